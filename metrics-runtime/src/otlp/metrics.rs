//! The exporter's own families: what it sent, what failed and why, and when it last
//! succeeded, in the registry it pushes (so they reach the collector too) or any other.

use std::sync::atomic::AtomicU64;

use crate::{ByLabel, Counter, Family, Gauge, LabelEnum, MetricHandles, NoLabels};

/// The `reason` label of `metric_handles_otlp_export_failures_total`: why a request failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum FailureReason {
    /// No connection could be made, or it broke before an answer (retried).
    Unreachable,
    /// No answer within the timeout (retried).
    Timeout,
    /// The collector answered 429 Too Many Requests (retried, after its `Retry-After`).
    Throttled,
    /// The collector answered 502, 503 or 504 (retried, after its `Retry-After`).
    Unavailable,
    /// The collector answered another status outside 2xx (400 for a payload it cannot read,
    /// say): the payload is dropped, the next export sends a newer one.
    Rejected,
    /// The registry could not be encoded (a collector of the registry failed).
    Encoding,
}

impl FailureReason {
    /// Whether a request that failed so is tried again.
    pub const fn is_retried(self) -> bool {
        matches!(
            self,
            FailureReason::Unreachable
                | FailureReason::Timeout
                | FailureReason::Throttled
                | FailureReason::Unavailable
        )
    }
}

/// The exporter's families: register them and pass them to
/// [`OtlpConfig::with_metrics`](super::OtlpConfig::with_metrics).
#[derive(Debug, MetricHandles)]
#[metric_handles(handles = OtlpHandles, labels = NoLabels)]
pub struct OtlpMetrics {
    /// Total number of export requests the collector accepted
    #[metric(name = "metric_handles_otlp_exports")]
    pub exports: Family<NoLabels, Counter>,

    /// Total number of failed export requests by reason
    #[metric(name = "metric_handles_otlp_export_failures", label = "reason")]
    pub failures: Family<NoLabels, ByLabel<FailureReason, Counter>>,

    /// Total number of data points in the requests the collector accepted
    #[metric(name = "metric_handles_otlp_data_points")]
    pub data_points: Family<NoLabels, Counter>,

    /// Total number of unsent snapshots replaced by a newer one before they could be sent
    #[metric(name = "metric_handles_otlp_superseded_snapshots")]
    pub superseded: Family<NoLabels, Counter>,

    /// Time of the last export the collector accepted, in seconds since the epoch
    #[metric(name = "metric_handles_otlp_last_success_timestamp", unit = "seconds")]
    pub last_success: Family<NoLabels, Gauge<f64, AtomicU64>>,
}
