//! One OTLP/HTTP request: a POST of the protobuf body over an HTTP/1.1 connection kept open
//! between exports, and what its answer means for the exporter.

use std::io::Write;
use std::time::Duration;

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue};
use http::{Request, StatusCode, Uri};
use http_body_util::{BodyExt, Full, Limited};
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use super::config::{Compression, OtlpConfig};
use super::error::OtlpError;
use super::metrics::FailureReason;

/// The most of a collector's answer that is read (64 KiB).
const MAX_ANSWER: usize = 64 * 1024;

/// What became of one request.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// A 2xx answer: the collector has the data.
    Accepted,
    /// It failed for `reason`; when the reason is retried, not before `retry_after` (the
    /// collector's `Retry-After`) if it said.
    Failed {
        reason: FailureReason,
        retry_after: Option<Duration>,
        detail: String,
    },
}

/// Where requests go and what they carry besides the body; the open connection.
pub(crate) struct Transport {
    path: Uri,
    authority: String,
    host_port: (String, u16),
    headers: Vec<(HeaderName, HeaderValue)>,
    compression: Compression,
    timeout: Duration,
    connection: Option<SendRequest<Full<Bytes>>>,
}

impl Transport {
    /// Checks the configuration's URL and headers.
    pub(crate) fn new(config: &OtlpConfig) -> Result<Self, OtlpError> {
        let uri: Uri = config
            .endpoint
            .parse()
            .map_err(|_| OtlpError::Endpoint(config.endpoint.clone()))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some("https") => return Err(OtlpError::Https(config.endpoint.clone())),
            _ => return Err(OtlpError::Endpoint(config.endpoint.clone())),
        }
        let authority = uri
            .authority()
            .ok_or_else(|| OtlpError::Endpoint(config.endpoint.clone()))?;
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']');
        let host_port = (host.to_owned(), authority.port_u16().unwrap_or(80));
        let mut headers = Vec::new();
        for (name, value) in &config.headers {
            let name =
                HeaderName::try_from(name.as_str()).map_err(|_| OtlpError::Header(name.clone()))?;
            let value = HeaderValue::try_from(value.as_str())
                .map_err(|_| OtlpError::Header(name.to_string()))?;
            headers.push((name, value));
        }
        // HTTP/1.1 to an origin server names the path alone (origin form), not the whole URL.
        let path: Uri = uri
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .parse()
            .map_err(|_| OtlpError::Endpoint(config.endpoint.clone()))?;
        Ok(Transport {
            authority: authority.as_str().to_owned(),
            path,
            host_port,
            headers,
            compression: config.compression,
            timeout: config.timeout,
            connection: None,
        })
    }

    /// Sends `body` (an encoded request), compressed as configured, within the timeout.
    pub(crate) async fn send(&mut self, body: &[u8]) -> Outcome {
        let body = match self.compression {
            Compression::None => Bytes::copy_from_slice(body),
            Compression::Gzip => gzip(body),
        };
        match tokio::time::timeout(self.timeout, self.exchange(body)).await {
            Ok(outcome) => outcome,
            Err(_) => {
                // A connection that saw a request time out may still deliver its answer.
                self.connection = None;
                Outcome::Failed {
                    reason: FailureReason::Timeout,
                    retry_after: None,
                    detail: format!("no answer within {:?}", self.timeout),
                }
            }
        }
    }

    async fn exchange(&mut self, body: Bytes) -> Outcome {
        let unreachable = |detail: String| Outcome::Failed {
            reason: FailureReason::Unreachable,
            retry_after: None,
            detail,
        };
        let mut sender = match self.connection.take() {
            Some(sender) if !sender.is_closed() => sender,
            _ => match self.connect().await {
                Ok(sender) => sender,
                Err(detail) => return unreachable(detail),
            },
        };
        if sender.ready().await.is_err() {
            // The kept connection closed while idle: one fresh one.
            sender = match self.connect().await {
                Ok(sender) => sender,
                Err(detail) => return unreachable(detail),
            };
        }
        let mut request = Request::post(self.path.clone())
            .header(http::header::HOST, self.authority.as_str())
            .header(http::header::CONTENT_TYPE, "application/x-protobuf")
            .header(
                http::header::USER_AGENT,
                concat!("metric-handles/", env!("CARGO_PKG_VERSION")),
            );
        if self.compression == Compression::Gzip {
            request = request.header(http::header::CONTENT_ENCODING, "gzip");
        }
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        let request = match request.body(Full::new(body)) {
            Ok(request) => request,
            Err(error) => return unreachable(format!("the request could not be built: {error}")),
        };
        let response = match sender.send_request(request).await {
            Ok(response) => response,
            Err(error) => return unreachable(format!("the request failed: {error}")),
        };
        let status = response.status();
        let retry_after = response
            .headers()
            .get(http::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        // Read the answer whole so the connection can carry the next request; a collector's
        // answer is an `ExportMetricsServiceResponse` or a short status message, so one that
        // goes on past `MAX_ANSWER` is cut off with its connection rather than held in memory.
        let answer = Limited::new(response.into_body(), MAX_ANSWER)
            .collect()
            .await;
        if answer.is_ok() {
            self.connection = Some(sender);
        }
        if status.is_success() {
            return Outcome::Accepted;
        }
        let reason = match status {
            StatusCode::TOO_MANY_REQUESTS => FailureReason::Throttled,
            StatusCode::BAD_GATEWAY
            | StatusCode::SERVICE_UNAVAILABLE
            | StatusCode::GATEWAY_TIMEOUT => FailureReason::Unavailable,
            _ => FailureReason::Rejected,
        };
        Outcome::Failed {
            reason,
            retry_after,
            detail: format!("the collector answered {status}"),
        }
    }

    async fn connect(&self) -> Result<SendRequest<Full<Bytes>>, String> {
        let (host, port) = (&self.host_port.0, self.host_port.1);
        let stream = TcpStream::connect((host.as_str(), port))
            .await
            .map_err(|error| format!("cannot connect to {host}:{port}: {error}"))?;
        // Metrics requests are small and few: no Nagle delay on their last segment.
        let _ = stream.set_nodelay(true);
        let (sender, connection) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|error| format!("HTTP handshake with {host}:{port} failed: {error}"))?;
        // The connection's driver; it ends when the connection closes.
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(sender)
    }
}

/// `body` gzipped with flate2's default level.
fn gzip(body: &[u8]) -> Bytes {
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(body.len() / 4),
        flate2::Compression::default(),
    );
    // Writing into a `Vec` cannot fail.
    let _ = encoder.write_all(body);
    Bytes::from(encoder.finish().unwrap_or_default())
}
