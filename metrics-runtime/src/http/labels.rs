//! The labels of the HTTP families: the status class, the route (`handler`), and the two label
//! sets, with the limit on how many of them a family keeps.

use std::fmt;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelSetEncoder};

use crate::labels::OVERFLOW_LABEL;
use crate::limits::DEFAULT_MAX_SERIES;
use crate::{LabelEnum, LabelSet};

/// The `handler` label value of a request that matched no route.
pub const UNMATCHED_HANDLER: &str = "none";

/// The `status` label of `http_requests_total`: the response's status class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
pub enum StatusClass {
    /// 100-199.
    #[label(rename = "1xx")]
    Informational,
    /// 200-299.
    #[label(rename = "2xx")]
    Success,
    /// 300-399.
    #[label(rename = "3xx")]
    Redirection,
    /// 400-499.
    #[label(rename = "4xx")]
    ClientError,
    /// 500-599.
    #[label(rename = "5xx")]
    ServerError,
    /// Any other code.
    #[label(rename = "unknown")]
    Unknown,
}

impl StatusClass {
    /// The class of the status code `code` (`unknown` outside 100-599).
    pub const fn from_code(code: u16) -> Self {
        match code / 100 {
            1 => StatusClass::Informational,
            2 => StatusClass::Success,
            3 => StatusClass::Redirection,
            4 => StatusClass::ClientError,
            5 => StatusClass::ServerError,
            _ => StatusClass::Unknown,
        }
    }
}

/// The `handler` label of the HTTP families: the matched route template, or why there is none.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub enum Handler {
    /// The matched route template (`/v1/models/{id}`), never the raw path.
    Route(String),
    /// No route matched: `handler="none"` ([`UNMATCHED_HANDLER`]), as vLLM records it.
    Unmatched,
    /// A route past the recording layer's route limit: the series carries
    /// `otel_metric_overflow="true"` in place of `handler`, so a client that makes the server
    /// build routes cannot grow the label set.
    Overflow,
}

impl Handler {
    /// The `handler` label value, or `None` for [`Handler::Overflow`], which has none.
    pub fn label_value(&self) -> Option<&str> {
        match self {
            Handler::Route(route) => Some(route),
            Handler::Unmatched => Some(UNMATCHED_HANDLER),
            Handler::Overflow => None,
        }
    }

    /// Writes `handler="..."`, or `otel_metric_overflow="true"` for [`Handler::Overflow`].
    fn encode(&self, encoder: &mut LabelSetEncoder) -> Result<(), fmt::Error> {
        match self.label_value() {
            Some(value) => encode_label(encoder, "handler", value),
            None => encode_label(encoder, OVERFLOW_LABEL, "true"),
        }
    }
}

impl From<&str> for Handler {
    /// The route template `route`.
    fn from(route: &str) -> Self {
        Handler::Route(route.to_owned())
    }
}

impl From<String> for Handler {
    /// The route template `route`.
    fn from(route: String) -> Self {
        Handler::Route(route)
    }
}

/// Writes one `key="value"` pair.
fn encode_label(encoder: &mut LabelSetEncoder, key: &str, value: &str) -> Result<(), fmt::Error> {
    let mut label = encoder.encode_label();
    let mut key_encoder = label.encode_label_key()?;
    fmt::Write::write_str(&mut key_encoder, key)?;
    let mut value_encoder = key_encoder.encode_label_value()?;
    EncodeLabelValue::encode(&value, &mut value_encoder)?;
    value_encoder.finish()
}

/// The labels of `http_requests_total`, in vLLM's order: `method`, `status`, `handler`.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub struct HttpRequestLabels {
    /// The request method (`GET`, `POST`, ...).
    pub method: String,
    /// The response's status class.
    pub status: StatusClass,
    /// The matched route template, or why there is none.
    pub handler: Handler,
}

// Not offered to users in "other types implement `LabelSet`" lists (as derived ones are not).
#[diagnostic::do_not_recommend]
impl LabelSet for HttpRequestLabels {
    const KEYS: &'static [&'static str] = &["method", "status", "handler"];
}

impl EncodeLabelSet for HttpRequestLabels {
    fn encode(&self, encoder: &mut LabelSetEncoder) -> Result<(), fmt::Error> {
        encode_label(encoder, "method", &self.method)?;
        encode_label(encoder, "status", self.status.label_value())?;
        self.handler.encode(encoder)
    }
}

/// The labels of `http_request_duration_seconds`: `method`, `handler`.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub struct HttpHandlerLabels {
    /// The request method (`GET`, `POST`, ...).
    pub method: String,
    /// The matched route template, or why there is none.
    pub handler: Handler,
}

// Not offered to users in "other types implement `LabelSet`" lists (as derived ones are not).
#[diagnostic::do_not_recommend]
impl LabelSet for HttpHandlerLabels {
    const KEYS: &'static [&'static str] = &["method", "handler"];
}

impl EncodeLabelSet for HttpHandlerLabels {
    fn encode(&self, encoder: &mut LabelSetEncoder) -> Result<(), fmt::Error> {
        encode_label(encoder, "method", &self.method)?;
        self.handler.encode(encoder)
    }
}

/// The default limit on label sets of the two labelled HTTP families: route templates times
/// methods (times status classes) stay far below it in any real server; past it, records go to
/// the overflow series.
pub const HTTP_MAX_SERIES: usize = DEFAULT_MAX_SERIES;
