//! An HTTP server's request families, for any service: what a request to each route costs and
//! how it ended, recorded by route template (never by raw path) with a bounded label set.
//!
//! The families are those of Python's `prometheus-fastapi-instrumentator`, the set vLLM's
//! frontends export (so its dashboards work unchanged); three per HTTP request:
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
//! With the feature `http-layer`, `layer::HttpMetricsLayer` records them for any axum or tower
//! service. This module declares the families ([`HttpMetrics::DESCRIPTORS`]) and registers them
//! ([`HttpMetrics::register`]); an HTTP middleware resolves one handle per (route, method,
//! status class) through the returned [`Family`](crate::Family) values, caches it, and records with atomics.
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

mod bodies;
#[cfg(feature = "http-layer")]
pub(crate) mod body;
mod families;
mod labels;
#[cfg(feature = "http-layer")]
#[cfg_attr(docsrs, doc(cfg(feature = "http-layer")))]
pub mod layer;

pub use bodies::{HttpBodyMetrics, HTTP_BODY_SIZE_BUCKETS};
pub use families::{
    is_excluded_handler, HttpMetrics, EXCLUDED_HANDLERS, HTTP_REQUEST_DURATION_BUCKETS,
    HTTP_REQUEST_DURATION_HIGHR_BUCKETS,
};
pub use labels::{
    Handler, HttpHandlerLabels, HttpRequestLabels, StatusClass, HTTP_MAX_SERIES, UNMATCHED_HANDLER,
};
