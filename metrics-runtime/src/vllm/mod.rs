//! vLLM's complete metric set, recorded at atomic-add cost: the families of vLLM's Rust
//! frontend `/metrics`, with the default `vllm` feature. The names, types, labels, bucket bounds
//! and arithmetic are vLLM's, so vLLM's Grafana dashboard, alert rules and PromQL queries work
//! unchanged against a frontend that records through this module; [`catalogue()`] lists every
//! family with the vLLM files and commits it was matched against.
//!
//! The module root holds the metric set and the recorders it hands out; each concept is a
//! module with the input an engine reports, the families it feeds and what a record writes:
//!
//! * [`VllmMetrics::register`] registers every family below; a third-party connector adds its
//!   own to [`VllmMetrics::plugin_families`].
//! * [`SchedulerStatsRecorder`] records each engine's [`SchedulerStats`](scheduler::SchedulerStats)
//!   into the [`scheduler`] families, with the [`connectors`] telemetry and the [`sleep`]
//!   snapshot the stats carry; an engine is resolved on first sight (the only slow path) and
//!   cached in a lock-free table.
//! * [`RequestMetricsRecorder::track`] creates one [`RequestMetricsTracker`] per request, which
//!   records every output and the finish into the [`request`] families (every edge case of
//!   vLLM's output processor).
//! * [`sleep`] also times sleep-mode operations ([`SleepModeRecorder`](sleep::SleepModeRecorder));
//!   [`lora`] exports the LoRA adapters in use; [`cache_config`] each engine's KV-cache
//!   configuration (`vllm:cache_config_info`). The HTTP families are declared in
//!   [`crate::http`].
//! * [`StatsLogger`] computes vLLM's periodic log line ([`log`]); [`buckets`] holds vLLM's
//!   bucket bounds.
//!
//! ```
//! use metric_handles::Registry;
//! use metric_handles::vllm::request::{FinishReason, RequestOutput, RequestParams};
//! use metric_handles::vllm::scheduler::SchedulerStats;
//! use metric_handles::vllm::{VllmMetrics, VllmMetricsConfig};
//!
//! let mut registry = Registry::default();
//! let metrics = VllmMetrics::register(&mut registry, VllmMetricsConfig::default());
//! metrics.scheduler().record(0, &SchedulerStats { num_running_reqs: 1, ..Default::default() });
//! let mut tracker = metrics.requests().track(0, RequestParams {
//!     arrival_time: 100.0, prompt_len: 5, max_tokens_param: Some(1), n_param: 1,
//! });
//! let output = RequestOutput {
//!     new_token_ids: vec![42],
//!     finish_reason: Some(FinishReason::Length),
//!     ..Default::default()
//! };
//! tracker.observe_output(7.0, 100.25, &output);
//! assert!(tracker.is_finished());
//! let text = metric_handles::ExpositionFormat::PrometheusText.encode(&registry).unwrap();
//! assert!(text.contains(
//!     r#"vllm:request_success_total{model_name="model",engine="0",finished_reason="length"} 1"#
//! ));
//! ```

pub mod buckets;
pub mod cache_config;
mod catalogue;
mod config;
pub mod connectors;
mod engines;
mod labels;
pub mod log;
mod logger;
pub mod lora;
mod metric_set;
mod recorders;
pub mod request;
pub mod scheduler;
pub mod sleep;
mod sync;
mod values;

pub use catalogue::catalogue;
pub use config::{VllmMetricsConfig, MAX_MODEL_NAME_LEN};
/// The number of engine indices with a lock-free slot in the recorders; higher indices are
/// found in a sorted list (this repository's tests record past it). Not a stable API.
#[doc(hidden)]
pub use engines::ENGINE_SLOTS;
pub use labels::EngineLabels;
pub use logger::StatsLogger;
pub use metric_set::VllmMetrics;
pub use recorders::requests::{RequestMetricsRecorder, RequestMetricsTracker};
pub use recorders::scheduler::SchedulerStatsRecorder;
