//! `vllm:sleep_mode_operation_duration_seconds` and `vllm:sleep_mode_operations_in_flight`,
//! by `operation`, without `model_name`/`engine` labels: the frontend times each sleep-mode
//! operation it dispatches (vLLM's Rust frontend, `rust/src/metrics/src/api_server.rs`).

use std::time::Instant;

use crate::vllm::buckets::SLEEP_MODE_DURATION_BUCKETS;
use crate::vllm::sleep::input::SleepOperation;
use crate::{ByLabel, Family, Gauge, Histogram, MetricHandles, NoLabels};

/// The two sleep-mode families. Help texts are vLLM's Rust frontend's.
#[derive(Debug, MetricHandles)]
#[metric_handles(handles = SleepModeHandles)]
pub struct SleepModeMetrics {
    /// Duration of one sleep-mode operation
    ///
    /// # Computed
    ///
    /// `VllmMetrics::sleep_mode().begin(operation)` returns a guard; dropping it (success, failure
    /// or cancellation) observes the elapsed time, once. vLLM's three operations (`sleep`,
    /// `release_kv_cache_memory`, `wake`: the complete set) are exported from registration.
    #[metric(
        name = "vllm:sleep_mode_operation_duration_seconds",
        label = "operation",
        buckets = SLEEP_MODE_DURATION_BUCKETS
    )]
    pub operation_duration: Family<NoLabels, ByLabel<SleepOperation, Histogram>>,

    /// Sleep-mode operations currently awaited
    ///
    /// # Computed
    ///
    /// +1 by `begin(operation)`, -1 when its guard is dropped.
    #[metric(name = "vllm:sleep_mode_operations_in_flight", label = "operation")]
    pub operations_in_flight: Family<NoLabels, ByLabel<SleepOperation, Gauge>>,
}

/// Times sleep-mode operations. Obtained from
/// [`VllmMetrics::sleep_mode`](crate::vllm::VllmMetrics::sleep_mode); cheap to clone.
#[derive(Clone, Debug)]
pub struct SleepModeRecorder {
    handles: SleepModeHandles,
}

impl SleepModeRecorder {
    pub(crate) fn new(metrics: &SleepModeMetrics) -> Self {
        SleepModeRecorder {
            handles: metrics.resolve(&NoLabels),
        }
    }

    /// Starts timing `operation`: its in-flight gauge goes up now, and when the returned guard
    /// is dropped (the operation finished, failed, or its future was cancelled) the gauge goes
    /// down and the elapsed time is observed, exactly once.
    pub fn begin(&self, operation: SleepOperation) -> SleepOperationGuard {
        let in_flight = self.handles.operations_in_flight.get(operation).clone();
        in_flight.inc();
        SleepOperationGuard {
            started_at: Instant::now(),
            duration: self.handles.operation_duration.get(operation).clone(),
            in_flight,
        }
    }
}

/// An operation being timed (see [`SleepModeRecorder::begin`]).
#[derive(Debug)]
#[must_use = "dropping the guard ends the operation at once"]
pub struct SleepOperationGuard {
    started_at: Instant,
    duration: Histogram,
    in_flight: Gauge,
}

impl Drop for SleepOperationGuard {
    fn drop(&mut self) {
        self.in_flight.dec();
        self.duration
            .observe(self.started_at.elapsed().as_secs_f64());
    }
}
