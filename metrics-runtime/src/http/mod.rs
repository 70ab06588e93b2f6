//! The API server's HTTP families, as vLLM's Rust frontend exports them.
//!
//! vLLM's Rust frontend (`rust/src/metrics/src/api_server.rs` and
//! `rust/src/server/src/middleware/metrics.rs`) records three families per HTTP request, in the
//! style of Python's `prometheus-fastapi-instrumentator`:
//!
//! * `http_requests_total` {`method`, `status`, `handler`}: a counter; `status` is the status
//!   class (`2xx`, ...), `handler` the matched route template (`none` when no route matched);
//! * `http_request_duration_seconds` {`method`, `handler`}: a histogram over
//!   [`HTTP_REQUEST_DURATION_BUCKETS`];
//! * `http_request_duration_highr_seconds`: an unlabelled histogram over
//!   [`HTTP_REQUEST_DURATION_HIGHR_BUCKETS`].
//!
//! Requests whose matched route is one of [`EXCLUDED_HANDLERS`] are not recorded.
//!
//! [`HttpBodyMetrics`] declares three more families, which vLLM does not export and a server
//! registers only if it wants them: request and response body sizes
//! (`http_request_size_bytes`, `http_response_size_bytes`) and requests in progress
//! (`http_requests_inprogress`).
//!
//! This module declares the families ([`HttpMetrics::DESCRIPTORS`]) and registers them
//! ([`HttpMetrics::register`]); an HTTP middleware resolves one handle per (route, method,
//! status class) through the returned [`Family`] values, caches it, and records with atomics.
//!
//! ```
//! use metric_handles::http::{Handler, HttpHandlerLabels, HttpMetrics, HttpRequestLabels, StatusClass};
//! use metric_handles::Registry;
//!
//! let mut registry = Registry::default();
//! let http = HttpMetrics::register(&mut registry);
//! let requests = http.requests.get_or_create(&HttpRequestLabels {
//!     method: "POST".into(),
//!     status: StatusClass::from_code(200),
//!     handler: Handler::Route("/v1/completions".into()),
//! });
//! requests.inc();
//! let text = metric_handles::ExpositionFormat::PrometheusText.encode(&registry).unwrap();
//! assert!(text.contains(
//!     r#"http_requests_total{method="POST",status="2xx",handler="/v1/completions"} 1"#
//! ));
//! # let _ = HttpHandlerLabels { method: "GET".into(), handler: Handler::Unmatched };
//! ```

use std::fmt;

mod bodies;
#[cfg(feature = "http-layer")]
pub(crate) mod body;

pub use bodies::{HttpBodyMetrics, HTTP_BODY_SIZE_BUCKETS};

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelSetEncoder};

use crate::buckets::Buckets;
use crate::declare::descriptor::{MetricDescriptor, MetricKind, DEFAULT_MAX_SERIES};
use crate::registry::options::RegisterOptions;
use crate::registry::{check_registration, register_family, RegistrationError, Registry};
use crate::series::labels::NoLabels;
use crate::series::labels::OVERFLOW_LABEL;
use crate::{Counter, Family, Histogram, LabelEnum, LabelSet};

/// Bounds of `http_request_duration_seconds`, in seconds (vLLM's Rust frontend,
/// `rust/src/metrics/src/api_server.rs`).
pub const HTTP_REQUEST_DURATION_BUCKETS: &[f64] = &[0.1, 0.5, 1.0];

/// Bounds of `http_request_duration_highr_seconds`, in seconds (vLLM's Rust frontend,
/// `rust/src/metrics/src/api_server.rs`).
pub const HTTP_REQUEST_DURATION_HIGHR_BUCKETS: &[f64] = &[
    0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0,
    7.5, 10.0, 30.0, 60.0,
];

/// Route templates whose requests are not recorded: vLLM's Rust frontend's list
/// (`rust/src/server/src/middleware/metrics.rs`), which extends the Python server's
/// (`vllm/entrypoints/serve/instrumentator/metrics.py`) with its own control endpoints.
pub const EXCLUDED_HANDLERS: &[&str] = &[
    "/metrics",
    "/health",
    "/load",
    "/ping",
    "/version",
    "/server_info",
    "/reset_prefix_cache",
    "/reset_mm_cache",
    "/reset_encoder_cache",
    "/collective_rpc",
    "/sleep",
    "/wake_up",
    "/is_sleeping",
];

/// The `handler` label value of a request that matched no route.
pub const UNMATCHED_HANDLER: &str = "none";

/// Whether requests to the route template `handler` are left out of the HTTP families.
pub fn is_excluded_handler(handler: &str) -> bool {
    EXCLUDED_HANDLERS.contains(&handler)
}

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

/// The three HTTP families, registered.
#[derive(Clone, Debug)]
pub struct HttpMetrics {
    /// `http_requests_total` {`method`, `status`, `handler`}.
    pub requests: Family<HttpRequestLabels, Counter>,
    /// `http_request_duration_seconds` {`method`, `handler`}.
    pub duration: Family<HttpHandlerLabels, Histogram>,
    /// `http_request_duration_highr_seconds`, unlabelled.
    pub duration_highr: Histogram,
}

impl HttpMetrics {
    /// `http_requests_total`: help text is vLLM's Rust frontend's, without the final `.` the
    /// exposition adds (as for the two below).
    pub const REQUESTS: MetricDescriptor = MetricDescriptor::new(
        "http_requests",
        "requests",
        MetricKind::Counter,
        "Counter",
        "Total number of HTTP requests by method, status, and handler",
    )
    .common_labels(<HttpRequestLabels as LabelSet>::KEYS)
    .max_label_sets(HTTP_MAX_SERIES)
    .with_computed(
        "+1 per HTTP request, by method, status class (`2xx`...) and matched route template \
        (`none` when no route matched), recorded by an HTTP layer through \
        `metric_handles::http::HttpMetrics`; requests to `EXCLUDED_HANDLERS` are not counted.",
    );

    /// `http_request_duration_seconds`.
    pub const DURATION: MetricDescriptor = MetricDescriptor::new(
        "http_request_duration_seconds",
        "duration",
        MetricKind::Histogram,
        "Histogram",
        "Duration of HTTP requests in seconds grouped by method and handler",
    )
    .common_labels(<HttpHandlerLabels as LabelSet>::KEYS)
    .buckets(Buckets::Explicit(HTTP_REQUEST_DURATION_BUCKETS))
    .max_label_sets(HTTP_MAX_SERIES)
    .with_computed(
        "Observes each request's duration, by method and route template (same exclusions).",
    );

    /// `http_request_duration_highr_seconds`.
    pub const DURATION_HIGHR: MetricDescriptor = MetricDescriptor::new(
        "http_request_duration_highr_seconds",
        "duration_highr",
        MetricKind::Histogram,
        "Histogram",
        "High-resolution duration of HTTP requests in seconds",
    )
    .buckets(Buckets::Explicit(HTTP_REQUEST_DURATION_HIGHR_BUCKETS))
    .max_label_sets(1)
    .with_computed("Observes each request's duration, unlabelled (same exclusions).");

    /// The three families, in registration order: feeds the metric catalogue.
    pub const DESCRIPTORS: &'static [MetricDescriptor] =
        &[Self::REQUESTS, Self::DURATION, Self::DURATION_HIGHR];

    /// Registers the three families in `registry`.
    ///
    /// # Panics
    ///
    /// If a name they would write is taken (a second registration in one registry, say);
    /// [`try_register`](Self::try_register) returns the error instead.
    pub fn register(registry: &mut Registry) -> Self {
        Self::register_with(registry, &RegisterOptions::new())
    }

    /// Registers the three families with `options` (bucket overrides and series limits, keyed
    /// by the names above).
    ///
    /// # Panics
    ///
    /// As [`register`](Self::register).
    pub fn register_with(registry: &mut Registry, options: &RegisterOptions) -> Self {
        match Self::try_register_with(registry, options) {
            Ok(metrics) => metrics,
            Err(error) => panic!("{error}"),
        }
    }

    /// Registers the three families, unless a name they would write is taken: then nothing
    /// is registered and the error names both families.
    pub fn try_register(registry: &mut Registry) -> Result<Self, RegistrationError> {
        Self::try_register_with(registry, &RegisterOptions::new())
    }

    /// [`try_register`](Self::try_register) with `options`.
    pub fn try_register_with(
        registry: &mut Registry,
        options: &RegisterOptions,
    ) -> Result<Self, RegistrationError> {
        check_registration(registry, "HttpMetrics", Self::DESCRIPTORS, options)?;
        let requests = register_family(registry, &Self::REQUESTS, options);
        let duration = register_family(registry, &Self::DURATION, options);
        let duration_highr =
            register_family::<NoLabels, Histogram>(registry, &Self::DURATION_HIGHR, options);
        Ok(HttpMetrics {
            requests,
            duration,
            duration_highr: duration_highr.get_or_create(&NoLabels),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{assert_has_lines, exposition};

    #[test]
    fn status_codes_map_to_vllm_status_classes() {
        let label = |code| StatusClass::from_code(code).label_value();
        assert_eq!(label(101), "1xx");
        assert_eq!(label(200), "2xx");
        assert_eq!(label(204), "2xx");
        assert_eq!(label(302), "3xx");
        assert_eq!(label(404), "4xx");
        assert_eq!(label(503), "5xx");
        assert_eq!(label(99), "unknown");
        assert_eq!(label(600), "unknown");
        assert_eq!(label(0), "unknown");
    }

    #[test]
    fn control_endpoints_are_excluded_and_inference_routes_are_not() {
        for handler in ["/metrics", "/health", "/sleep", "/wake_up", "/is_sleeping"] {
            assert!(is_excluded_handler(handler), "{handler}");
        }
        for handler in [
            "/v1/completions",
            "/v1/models",
            UNMATCHED_HANDLER,
            "/health/x",
        ] {
            assert!(!is_excluded_handler(handler), "{handler}");
        }
    }

    /// Each family is written three times here (its constant, its entry in `DESCRIPTORS`, its
    /// registration): a family registered but left out of `DESCRIPTORS` would be missing from
    /// the catalogue and from the registration's name check, so the two must list the same
    /// families, in the same order.
    #[test]
    fn the_registered_families_are_the_descriptors() {
        let mut registry = Registry::default();
        let http = HttpMetrics::register(&mut registry);
        // One series each, so that every family writes its `# TYPE` line.
        http.requests
            .get_or_create(&HttpRequestLabels {
                method: "GET".into(),
                status: StatusClass::Success,
                handler: Handler::Unmatched,
            })
            .inc();
        http.duration
            .get_or_create(&HttpHandlerLabels {
                method: "GET".into(),
                handler: Handler::Unmatched,
            })
            .observe(0.1);
        let text = exposition(&registry);
        let exposed: Vec<&str> = text
            .lines()
            .filter_map(|line| line.strip_prefix("# TYPE "))
            .filter_map(|line| line.split(' ').next())
            .collect();
        let declared: Vec<String> = HttpMetrics::DESCRIPTORS
            .iter()
            .map(MetricDescriptor::exposed_name)
            .collect();
        assert_eq!(exposed, declared);
    }

    #[test]
    fn the_three_families_are_exposed_with_vllm_names_labels_and_buckets() {
        let mut registry = Registry::default();
        let http = HttpMetrics::register(&mut registry);
        http.requests
            .get_or_create(&HttpRequestLabels {
                method: "GET".into(),
                status: StatusClass::from_code(404),
                handler: Handler::Unmatched,
            })
            .inc();
        let handler = HttpHandlerLabels {
            method: "POST".into(),
            handler: Handler::Route("/v1/completions".into()),
        };
        http.duration.get_or_create(&handler).observe(0.3);
        http.duration_highr.observe(0.3);
        let text = exposition(&registry);
        assert_has_lines(
            &text,
            &[
                "# HELP http_requests_total Total number of HTTP requests by method, status, and handler.",
                "# TYPE http_requests_total counter",
                r#"http_requests_total{method="GET",status="4xx",handler="none"} 1"#,
                "# HELP http_request_duration_seconds Duration of HTTP requests in seconds grouped by method and handler.",
                r#"http_request_duration_seconds_bucket{method="POST",handler="/v1/completions",le="0.1"} 0"#,
                r#"http_request_duration_seconds_bucket{method="POST",handler="/v1/completions",le="0.5"} 1"#,
                r#"http_request_duration_seconds_bucket{method="POST",handler="/v1/completions",le="+Inf"} 1"#,
                "# HELP http_request_duration_highr_seconds High-resolution duration of HTTP requests in seconds.",
                r#"http_request_duration_highr_seconds_bucket{le="0.25"} 0"#,
                r#"http_request_duration_highr_seconds_bucket{le="0.5"} 1"#,
                r#"http_request_duration_highr_seconds_bucket{le="60"} 1"#,
                "http_request_duration_highr_seconds_count 1",
            ],
        );
    }
}
