//! The handler's own families, as client_golang's `promhttp` exports its
//! `promhttp_metric_handler_*` families, under this crate's prefix.

use crate::{ByLabel, Counter, Family, Gauge, LabelEnum, MetricHandles, NoLabels};

/// The `code` label of `metric_handles_metric_handler_requests_total`: every status the
/// handler answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
pub enum ScrapeStatus {
    /// A body in the negotiated format.
    #[label(rename = "200")]
    Ok,
    /// A method other than `GET` or `HEAD`.
    #[label(rename = "405")]
    MethodNotAllowed,
    /// No coding the `Accept-Encoding` header accepts is offered (`identity;q=0`, say).
    #[label(rename = "406")]
    NotAcceptable,
    /// The registry failed to encode (the reason is in the body).
    #[label(rename = "500")]
    InternalServerError,
    /// Over the in-flight limit, or over the scrape's timeout.
    #[label(rename = "503")]
    ServiceUnavailable,
}

impl ScrapeStatus {
    /// The HTTP status code.
    pub const fn code(self) -> u16 {
        match self {
            ScrapeStatus::Ok => 200,
            ScrapeStatus::MethodNotAllowed => 405,
            ScrapeStatus::NotAcceptable => 406,
            ScrapeStatus::InternalServerError => 500,
            ScrapeStatus::ServiceUnavailable => 503,
        }
    }
}

/// The `cause` label of `metric_handles_metric_handler_errors_total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum ScrapeErrorCause {
    /// A metric or collector returned an error while being encoded.
    Encoding,
    /// A metric or collector panicked while being encoded.
    Panic,
}

/// The handler's families: register them in the registry the handler serves and pass them
/// to [`MetricsHandler::with_metrics`](super::MetricsHandler::with_metrics).
#[derive(Debug, MetricHandles)]
#[metric_handles(handles = ScrapeHandles, labels = NoLabels)]
pub struct ScrapeMetrics {
    /// Total number of scrapes by HTTP status code
    #[metric(name = "metric_handles_metric_handler_requests", label = "code")]
    pub requests: Family<NoLabels, ByLabel<ScrapeStatus, Counter>>,

    /// Current number of scrapes being served
    #[metric(name = "metric_handles_metric_handler_requests_in_flight")]
    pub in_flight: Family<NoLabels, Gauge>,

    /// Total number of internal errors encountered by the metric handler
    #[metric(name = "metric_handles_metric_handler_errors", label = "cause")]
    pub errors: Family<NoLabels, ByLabel<ScrapeErrorCause, Counter>>,
}
