//! The handler itself: admission (method, in-flight limit), negotiation, the coalesced encode
//! and the response; the module root documents what it does.

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use flate2::write::GzEncoder;
use flate2::Compression;

use super::coalesce::{Coalescer, EncodeFailure, Outcome, Waiter};
use super::coding::ContentCoding;
use super::own_metrics::{ScrapeErrorCause, ScrapeHandles, ScrapeMetrics, ScrapeStatus};
use super::pool::EncoderPool;
use crate::exposition::format::{EncodeOptions, ExpositionFormat};
use crate::exposition::Negotiated;
use crate::registry::Registry;
use crate::NoLabels;

/// The gzip level unless [`HandlerOptions::gzip_level`] says otherwise. On the 64-engine vLLM
/// scrape (3.5 MB of OpenMetrics text) level 1 writes 145 KB in 4 ms more than the encode;
/// level 6 writes 103 KB in 26 ms more (docs/benchmarks.md in the repository).
pub const DEFAULT_GZIP_LEVEL: u32 = 1;

/// What is subtracted from a scrape's timeout header unless
/// [`HandlerOptions::timeout_offset`] says otherwise, so that the `503` reaches Prometheus
/// before its own timeout ends the scrape (the blackbox exporter's `--timeout-offset`).
pub const DEFAULT_TIMEOUT_OFFSET: Duration = Duration::from_millis(250);

/// The `Vary` header of every answer.
pub const VARY: &str = "Accept, Accept-Encoding";

/// The request header that carries Prometheus's scrape timeout, in seconds.
pub const SCRAPE_TIMEOUT_HEADER: &str = "X-Prometheus-Scrape-Timeout-Seconds";

/// The most encode threads a handler starts ([`HandlerOptions::encode_threads`]): one per
/// (format, coding) pair it can serve, as each pair has at most one encode at a time.
pub const MAX_ENCODE_THREADS: usize = FORMATS * CODINGS;

/// How the handler serves: compression, limits and timeouts.
#[derive(Clone, Debug)]
pub struct HandlerOptions {
    /// The gzip level, 0 (stored) to 9 (smallest); [`DEFAULT_GZIP_LEVEL`].
    pub gzip_level: u32,
    /// Whether gzip is offered at all (`false`: every answer is identity).
    pub compression: bool,
    /// Scrapes served at once, waiting ones included; past it, `503`. `None`: no limit.
    pub max_in_flight: Option<usize>,
    /// The longest a scrape waits for its body, whatever its timeout header says, and what a
    /// scrape without the header waits. `None`: no limit.
    pub timeout: Option<Duration>,
    /// Subtracted from the timeout header (never below half the header's value).
    pub timeout_offset: Duration,
    /// Whether OpenMetrics answers carry a `_created` line for each counter and histogram
    /// series ([`EncodeOptions::created_lines`](crate::exposition::EncodeOptions::created_lines); off by
    /// default, as client_golang's `EnableOpenMetricsTextCreatedSamples`). Protobuf answers
    /// always carry start timestamps.
    pub created_lines: bool,
    /// The most encodes of different formats or codings that run at once, each on a thread of
    /// the handler's pool (started as needed and kept); more queue. Scrapes of one format and
    /// coding share one encode, so more than [`MAX_ENCODE_THREADS`] never run at once. At
    /// least 1. Default: the cores the process may use
    /// ([`std::thread::available_parallelism`]), at most [`MAX_ENCODE_THREADS`]; raise it when
    /// a collector waits (on a file, a socket) rather than computes, so that scrapes of
    /// different formats do not wait for each other's collector.
    pub encode_threads: usize,
}

impl Default for HandlerOptions {
    fn default() -> Self {
        HandlerOptions {
            gzip_level: DEFAULT_GZIP_LEVEL,
            compression: true,
            max_in_flight: None,
            timeout: None,
            timeout_offset: DEFAULT_TIMEOUT_OFFSET,
            created_lines: false,
            encode_threads: std::thread::available_parallelism()
                .map_or(1, std::num::NonZeroUsize::get)
                .min(MAX_ENCODE_THREADS),
        }
    }
}

/// A scrape, as the handler reads it: the method and the three headers that matter.
#[derive(Clone, Copy, Debug)]
pub struct ScrapeRequest<'a> {
    /// The request method (`GET`, `HEAD`, ...).
    pub method: &'a str,
    /// The `Accept` header.
    pub accept: Option<&'a str>,
    /// The `Accept-Encoding` header.
    pub accept_encoding: Option<&'a str>,
    /// The `X-Prometheus-Scrape-Timeout-Seconds` header.
    pub scrape_timeout: Option<&'a str>,
}

impl<'a> ScrapeRequest<'a> {
    /// A `GET` without headers.
    pub const fn get() -> Self {
        ScrapeRequest {
            method: "GET",
            accept: None,
            accept_encoding: None,
            scrape_timeout: None,
        }
    }

    /// The request with `method`, reading each header through `header` (given a lowercase
    /// name, it returns the header's value).
    pub fn from_headers(method: &'a str, header: impl Fn(&str) -> Option<&'a str>) -> Self {
        ScrapeRequest {
            method,
            accept: header("accept"),
            accept_encoding: header("accept-encoding"),
            scrape_timeout: header("x-prometheus-scrape-timeout-seconds"),
        }
    }
}

/// What to answer a scrape with.
#[derive(Clone, Debug)]
pub struct ScrapeResponse {
    /// The HTTP status code.
    pub status: u16,
    /// The headers, names lowercase.
    pub headers: Vec<(&'static str, String)>,
    pub(super) body: Body,
}

#[derive(Clone, Debug)]
pub(super) enum Body {
    /// The encode's body, shared by every scrape it served.
    Shared(Outcome),
    Owned(Vec<u8>),
    Empty,
}

impl ScrapeResponse {
    /// The value of header `name` (lowercase), if set.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body (empty for `HEAD`).
    pub fn body(&self) -> &[u8] {
        match &self.body {
            Body::Shared(outcome) => match &**outcome {
                Ok(body) => body,
                Err(_) => &[],
            },
            Body::Owned(body) => body,
            Body::Empty => &[],
        }
    }

    fn plain(status: ScrapeStatus, message: String) -> Self {
        ScrapeResponse {
            status: status.code(),
            headers: vec![
                ("content-type", "text/plain; charset=utf-8".to_owned()),
                ("content-length", message.len().to_string()),
                ("vary", VARY.to_owned()),
            ],
            body: Body::Owned(message.into_bytes()),
        }
    }
}

/// The `/metrics` handler of one registry (see the [module](crate::serve) documentation). Cloning it
/// is cheap and shares its in-flight count and its encodes.
#[derive(Clone)]
pub struct MetricsHandler {
    pub(super) shared: Arc<Shared>,
}

pub(super) struct Shared {
    registry: Arc<Registry>,
    options: HandlerOptions,
    /// One slot per (format, coding).
    coalescer: Arc<Coalescer<{ FORMATS * CODINGS }>>,
    in_flight: AtomicUsize,
    metrics: Option<ScrapeHandles>,
    /// The threads every encode runs on, under [`MetricsHandler::respond`] and the service.
    encoder: EncoderPool,
}

const FORMATS: usize = 4;
const CODINGS: usize = 2;

impl std::fmt::Debug for MetricsHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_struct("MetricsHandler")
            .field("options", &self.shared.options)
            .field("in_flight", &self.shared.in_flight.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// A scrape past the checks, waiting for its body.
pub(super) struct Admitted {
    negotiated: Negotiated,
    coding: ContentCoding,
    head: bool,
    pub(super) deadline: Option<Instant>,
    /// How long the scrape may wait, for the `503` message.
    timeout: Option<Duration>,
    _in_flight: InFlight,
}

/// Holds one in-flight slot; released when the answer is made or the scrape is dropped.
struct InFlight {
    shared: Arc<Shared>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.shared.in_flight.fetch_sub(1, Ordering::AcqRel);
        if let Some(metrics) = &self.shared.metrics {
            metrics.in_flight.dec();
        }
    }
}

impl MetricsHandler {
    /// The handler of `registry`, with the default [`HandlerOptions`].
    pub fn new(registry: Arc<Registry>) -> Self {
        Self::with_options(registry, HandlerOptions::default())
    }

    /// The handler of `registry` with `options`.
    pub fn with_options(registry: Arc<Registry>, options: HandlerOptions) -> Self {
        let encoder = EncoderPool::new(options.encode_threads.min(MAX_ENCODE_THREADS));
        MetricsHandler {
            shared: Arc::new(Shared {
                registry,
                options,
                coalescer: Arc::default(),
                in_flight: AtomicUsize::new(0),
                metrics: None,
                encoder,
            }),
        }
    }

    /// Records the handler's own families in `metrics` (registered in the registry it serves,
    /// or any other). Call before cloning the handler.
    pub fn with_metrics(mut self, metrics: &ScrapeMetrics) -> Self {
        let handles = metrics.resolve(&NoLabels);
        match Arc::get_mut(&mut self.shared) {
            Some(shared) => shared.metrics = Some(handles),
            None => {
                let shared = &self.shared;
                self.shared = Arc::new(Shared {
                    registry: shared.registry.clone(),
                    options: shared.options.clone(),
                    coalescer: Arc::default(),
                    in_flight: AtomicUsize::new(0),
                    metrics: Some(handles),
                    encoder: EncoderPool::new(
                        shared.options.encode_threads.min(MAX_ENCODE_THREADS),
                    ),
                });
            }
        }
        self
    }

    /// The options it serves with.
    pub fn options(&self) -> &HandlerOptions {
        &self.shared.options
    }

    /// Answers `request`, blocking the calling thread until the body is ready or the
    /// scrape's timeout passes.
    ///
    /// The encode runs on a thread of the handler's pool
    /// ([`HandlerOptions::encode_threads`]), as under the tower service, never on the calling
    /// thread: this thread only waits, so it can give up at its deadline and leave the encode
    /// to the scrapes still waiting (or skip it, if it has not started and none is).
    pub fn respond(&self, request: &ScrapeRequest<'_>) -> ScrapeResponse {
        match self.admit(request) {
            Ok(admitted) => {
                let waiter = self.start(&admitted);
                let outcome = waiter.wait_until(admitted.deadline);
                // The claim is given up before answering: a queued encode nobody waits for
                // is skipped.
                drop(waiter);
                self.answer(admitted, outcome)
            }
            Err(response) => response,
        }
    }

    /// The checks before any encode: method, in-flight limit, content coding, deadline.
    pub(super) fn admit(&self, request: &ScrapeRequest<'_>) -> Result<Admitted, ScrapeResponse> {
        let head = match request.method {
            "GET" => false,
            "HEAD" => true,
            other => {
                let mut response = ScrapeResponse::plain(
                    ScrapeStatus::MethodNotAllowed,
                    format!("method {other} is not allowed: /metrics answers GET and HEAD\n"),
                );
                response.headers.push(("allow", "GET, HEAD".to_owned()));
                return Err(self.count(response, ScrapeStatus::MethodNotAllowed));
            }
        };
        let shared = &self.shared;
        let before = shared.in_flight.fetch_add(1, Ordering::AcqRel);
        if let Some(metrics) = &shared.metrics {
            metrics.in_flight.inc();
        }
        let in_flight = InFlight {
            shared: Arc::clone(shared),
        };
        if let Some(max) = shared.options.max_in_flight {
            if before >= max {
                let response = ScrapeResponse::plain(
                    ScrapeStatus::ServiceUnavailable,
                    format!("limit of concurrent scrapes reached ({max}), try again later\n"),
                );
                drop(in_flight);
                return Err(self.count(response, ScrapeStatus::ServiceUnavailable));
            }
        }
        let Some(coding) =
            super::coding::choose_coding(request.accept_encoding, shared.options.compression)
        else {
            let offered = if shared.options.compression {
                "gzip, identity"
            } else {
                "identity"
            };
            let response = ScrapeResponse::plain(
                ScrapeStatus::NotAcceptable,
                format!(
                    "Accept-Encoding {:?} accepts none of the codings offered: {offered}\n",
                    request.accept_encoding.unwrap_or("")
                ),
            );
            return Err(self.count(response, ScrapeStatus::NotAcceptable));
        };
        let timeout = self.timeout(request.scrape_timeout);
        Ok(Admitted {
            negotiated: Negotiated::from_accept(request.accept),
            coding,
            head,
            deadline: timeout.and_then(|t| Instant::now().checked_add(t)),
            timeout,
            _in_flight: in_flight,
        })
    }

    /// How long a scrape with timeout header `header` may wait for its body.
    pub(super) fn timeout(&self, header: Option<&str>) -> Option<Duration> {
        let options = &self.shared.options;
        let asked = header
            .and_then(|value| value.trim().parse::<f64>().ok())
            .filter(|seconds| seconds.is_finite() && *seconds > 0.0)
            .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
            .map(|asked| asked.saturating_sub(options.timeout_offset).max(asked / 2));
        match (asked, options.timeout) {
            (Some(asked), Some(limit)) => Some(asked.min(limit)),
            (asked, limit) => asked.or(limit),
        }
    }

    /// Joins the encode `admitted` needs, or queues one on the handler's pool.
    pub(super) fn start(&self, admitted: &Admitted) -> Waiter {
        let format = admitted.negotiated.format;
        let coding = admitted.coding;
        let key = format_slot(format) * CODINGS + coding_slot(coding);
        let registry = Arc::clone(&self.shared.registry);
        let level = self.shared.options.gzip_level.min(9);
        let options =
            EncodeOptions::default().with_created_lines(self.shared.options.created_lines);
        self.shared.coalescer.join(
            key,
            move || encode_body(&registry, format, options, coding, level),
            |job| self.shared.encoder.run(job),
        )
    }

    /// The answer to `admitted` once its encode is done (`None`: its deadline passed first).
    pub(super) fn answer(&self, admitted: Admitted, outcome: Option<Outcome>) -> ScrapeResponse {
        let Some(outcome) = outcome else {
            let seconds = admitted.timeout.map_or(0.0, |t| t.as_secs_f64());
            let response = ScrapeResponse::plain(
                ScrapeStatus::ServiceUnavailable,
                format!(
                    "the scrape's body was not ready within {seconds:.3} s; counters are \
                     cumulative, so the next scrape reports every count\n"
                ),
            );
            return self.count(response, ScrapeStatus::ServiceUnavailable);
        };
        let length = match &*outcome {
            Ok(body) => body.len(),
            Err(failure) => {
                let (cause, reason) = match failure {
                    EncodeFailure::Encoding(reason) => (ScrapeErrorCause::Encoding, reason),
                    EncodeFailure::Panicked(reason) => (ScrapeErrorCause::Panic, reason),
                };
                if let Some(metrics) = &self.shared.metrics {
                    metrics.errors.get(cause).inc();
                }
                let response = ScrapeResponse::plain(
                    ScrapeStatus::InternalServerError,
                    format!("encoding the metrics failed: {reason}\n"),
                );
                return self.count(response, ScrapeStatus::InternalServerError);
            }
        };
        let mut headers = vec![
            (
                "content-type",
                admitted.negotiated.content_type().to_owned(),
            ),
            ("content-length", length.to_string()),
            ("vary", VARY.to_owned()),
        ];
        if let Some(coding) = admitted.coding.header_value() {
            headers.push(("content-encoding", coding.to_owned()));
        }
        let response = ScrapeResponse {
            status: 200,
            headers,
            body: if admitted.head {
                Body::Empty
            } else {
                Body::Shared(outcome)
            },
        };
        self.count(response, ScrapeStatus::Ok)
    }

    fn count(&self, response: ScrapeResponse, status: ScrapeStatus) -> ScrapeResponse {
        if let Some(metrics) = &self.shared.metrics {
            metrics.requests.get(status).inc();
        }
        response
    }
}

fn format_slot(format: ExpositionFormat) -> usize {
    match format {
        ExpositionFormat::OpenMetrics => 0,
        ExpositionFormat::PrometheusText => 1,
        ExpositionFormat::PrometheusTextV1 => 2,
        #[cfg(feature = "protobuf")]
        ExpositionFormat::PrometheusProtobuf => 3,
    }
}

fn coding_slot(coding: ContentCoding) -> usize {
    match coding {
        ContentCoding::Identity => 0,
        ContentCoding::Gzip => 1,
    }
}

/// Encodes `registry` in `format` with `options` and compresses it with `coding`.
fn encode_body(
    registry: &Registry,
    format: ExpositionFormat,
    options: EncodeOptions,
    coding: ContentCoding,
    gzip_level: u32,
) -> Result<Vec<u8>, EncodeFailure> {
    let mut body = Vec::new();
    format
        .encode_into_with(registry, &mut body, options)
        .map_err(|_| {
            EncodeFailure::Encoding(
                "a metric or collector returned an error (fmt::Error)".to_owned(),
            )
        })?;
    match coding {
        ContentCoding::Identity => Ok(body),
        ContentCoding::Gzip => gzip(&body, gzip_level)
            .map_err(|error| EncodeFailure::Encoding(format!("gzip: {error}"))),
    }
}

/// `bytes` compressed with gzip at `level`.
pub(crate) fn gzip(bytes: &[u8], level: u32) -> std::io::Result<Vec<u8>> {
    let mut encoder = GzEncoder::new(Vec::with_capacity(bytes.len() / 8), Compression::new(level));
    encoder.write_all(bytes)?;
    encoder.finish()
}
