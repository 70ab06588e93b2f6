//! [`OtlpError`]: why the exporter did not start, or an export did not succeed.

use std::error::Error;
use std::fmt;

use super::metrics::FailureReason;

/// Why the exporter did not start, or an export did not succeed.
#[derive(Debug)]
#[non_exhaustive]
pub enum OtlpError {
    /// The endpoint is not an `http://host[:port]/path` URL.
    Endpoint(String),
    /// The endpoint is `https`: this exporter has no TLS (a collector on the host or a sidecar,
    /// reached over plain HTTP, is the usual set-up).
    Https(String),
    /// A header name or value cannot be sent in HTTP.
    Header(String),
    /// The exporter's thread or its runtime could not be started.
    Start(std::io::Error),
    /// The export failed, for `reason` (the last try's, when it was retried).
    Export {
        /// Why.
        reason: FailureReason,
        /// What happened, in a sentence.
        detail: String,
    },
    /// The exporter has shut down.
    Stopped,
}

impl fmt::Display for OtlpError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            OtlpError::Endpoint(url) => write!(f, "the OTLP endpoint {url:?} is not an http:// URL"),
            OtlpError::Https(url) => write!(
                f,
                "the OTLP endpoint {url:?} is https, and this exporter has no TLS: use an http:// endpoint"
            ),
            OtlpError::Header(name) => write!(f, "the OTLP header {name:?} cannot be sent in HTTP"),
            OtlpError::Start(error) => write!(f, "the OTLP exporter could not start: {error}"),
            OtlpError::Export { reason, detail } => {
                write!(f, "the OTLP export failed ({reason:?}): {detail}")
            }
            OtlpError::Stopped => f.write_str("the OTLP exporter has shut down"),
        }
    }
}

impl Error for OtlpError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            OtlpError::Start(error) => Some(error),
            _ => None,
        }
    }
}
