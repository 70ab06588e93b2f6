//! A `/metrics` handler: format and content-coding negotiation, limits, timeouts and
//! coalesced encodes, as client_golang's `promhttp` serves a registry (feature `serve`).
//!
//! [`MetricsHandler::respond`] is framework-free: it takes the request's method and headers
//! ([`ScrapeRequest`]) and returns the status, headers and body ([`ScrapeResponse`]) for any
//! HTTP server. With the `http-layer` feature, [`MetricsService`] is the same handler as a
//! tower `Service` for axum (`Router::route_service("/metrics", ...)`).
//!
//! * **Format**: negotiated from `Accept` ([`Negotiated::from_accept`](crate::exposition::Negotiated::from_accept)): OpenMetrics 1.0.0,
//!   Prometheus text 0.0.4 or 1.0.0; a 1.0.0 format's `Content-Type` carries `escaping=`.
//!   With the `protobuf` feature, the Prometheus protobuf format to a scraper that asks for it
//!   (Prometheus with native histograms enabled), answered with client_golang's
//!   `Content-Type`, `application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily;
//!   encoding=delimited`, and gzipped like the text.
//! * **Compression**: gzip when `Accept-Encoding` prefers it, with q-values read as RFC 9110
//!   says; `identity;q=0` with nothing else acceptable is `406 Not Acceptable`. Every answer
//!   carries `Vary: Accept, Accept-Encoding`, so a cache between keeps the variants apart.
//! * **`HEAD`** is answered with the headers of a `GET` (its `Content-Length` included) and
//!   no body; any other method is `405` with `Allow: GET, HEAD`.
//! * **Timeout**: Prometheus sends its scrape timeout in `X-Prometheus-Scrape-Timeout-Seconds`.
//!   A scrape whose body is not ready by then (less [`HandlerOptions::timeout_offset`], so the
//!   answer reaches Prometheus before it gives up) is answered `503`. Nothing is lost: the
//!   encode goes on for the scrapes that still wait, and counters are cumulative, so the next
//!   scrape reports every count.
//! * **In-flight limit**: past [`HandlerOptions::max_in_flight`] scrapes at once, a scrape
//!   is answered `503` at once, as promhttp's `MaxRequestsInFlight`.
//! * **Coalescing**: scrapes that arrive while an encode of the same format and coding runs
//!   wait for it and share its body: one encode serves them all (client_golang 1.24's
//!   `CoalesceGather`). A body is never reused for a scrape that arrives after it was made.
//! * **Errors**: an encode that fails, or a collector that panics, is `500` with the reason.
//! * **Encode threads**: every encode runs on a thread of the handler's pool, under
//!   [`MetricsHandler::respond`] and [`MetricsService`] alike, never on the scrape's own thread
//!   nor on an async executor's worker thread. The pool has
//!   [`HandlerOptions::encode_threads`] threads (by default the cores the process may use, at
//!   most [`MAX_ENCODE_THREADS`]), started as encodes need them and kept. Scrapes of different
//!   formats or codings do not wait for each other up to that many at once (a slow collector
//!   delays only the scrapes of the encodes it is in); past it, encodes queue in arrival
//!   order.
//! * **Abandoned encodes**: an encode still queued when every scrape that wanted it has gone
//!   (timed out, or its future was dropped) is skipped, so it neither delays the encodes
//!   behind it nor calls the collectors for nobody. One that has started runs to its end and
//!   answers whoever joined it meanwhile.
//! * **Its own families** ([`ScrapeMetrics`]), as promhttp's `promhttp_metric_handler_*`:
//!   `metric_handles_metric_handler_requests_total{code}`,
//!   `metric_handles_metric_handler_requests_in_flight` and
//!   `metric_handles_metric_handler_errors_total{cause}`.
//!
//! ```
//! use std::sync::Arc;
//! use metric_handles::serve::{MetricsHandler, ScrapeMetrics, ScrapeRequest};
//! use metric_handles::{NoLabels, Registry};
//!
//! let mut registry = Registry::default();
//! let scrapes = ScrapeMetrics::register(&mut registry);
//! let handler = MetricsHandler::new(Arc::new(registry)).with_metrics(&scrapes);
//!
//! let response = handler.respond(&ScrapeRequest {
//!     accept: Some("text/plain;version=0.0.4"),
//!     accept_encoding: Some("gzip"),
//!     ..ScrapeRequest::get()
//! });
//! assert_eq!(response.status, 200);
//! assert_eq!(response.header("content-encoding"), Some("gzip"));
//! assert_eq!(response.header("vary"), Some("Accept, Accept-Encoding"));
//! assert_eq!(scrapes.resolve(&NoLabels).in_flight.get(), 0);
//! ```

mod coalesce;
mod coding;
mod handler;
mod own_metrics;
mod pool;
#[cfg(feature = "http-layer")]
mod service;

pub use coding::ContentCoding;
pub use handler::{
    HandlerOptions, MetricsHandler, ScrapeRequest, ScrapeResponse, DEFAULT_GZIP_LEVEL,
    DEFAULT_TIMEOUT_OFFSET, MAX_ENCODE_THREADS, SCRAPE_TIMEOUT_HEADER, VARY,
};
pub use own_metrics::{ScrapeErrorCause, ScrapeHandles, ScrapeMetrics, ScrapeStatus};
#[cfg(feature = "http-layer")]
#[cfg_attr(docsrs, doc(cfg(feature = "http-layer")))]
pub use service::{MetricsFuture, MetricsService};

#[cfg(test)]
mod tests;
