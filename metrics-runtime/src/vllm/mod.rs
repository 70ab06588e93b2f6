//! vLLM's complete metric set, recorded at atomic-add cost: the families of vLLM's Rust
//! frontend `/metrics`, with the default `vllm` feature. The names, types, labels, bucket bounds
//! and arithmetic are vLLM's, so vLLM's Grafana dashboard, alert rules and PromQL queries work
//! unchanged against a frontend that records through this module; [`catalogue`] lists every
//! family with the vLLM files and commits it was matched against.
//!
//! * [`VllmMetrics::register`] registers every scheduler and request metric, declared with
//!   `#[derive(MetricHandles)]` in [`SchedulerMetrics`] and [`RequestMetrics`], the sleep-mode
//!   and LoRA families ([`SleepModeMetrics`], [`LoraInfoMetrics`]), and vLLM's NIXL,
//!   Mooncake-store and engine sleep-state families; a third-party connector adds its own to
//!   [`VllmMetrics::plugin_families`].
//! * [`SchedulerStatsRecorder`] records each engine's [`SchedulerStats`] (with its connector
//!   telemetry and sleep snapshot); an engine is resolved on first sight (the only slow path)
//!   and cached in a lock-free table.
//! * [`RequestMetricsRecorder::track`] creates one [`RequestMetricsTracker`] per request, which
//!   records every output and the finish (every edge case of vLLM's output processor).
//! * [`SleepModeRecorder`] times sleep-mode operations; [`LoraInfoRecorder`] exports the LoRA
//!   adapters in use; [`CacheConfigRecorder`] exports each engine's KV-cache configuration
//!   (`vllm:cache_config_info`). The HTTP families are declared in [`crate::http`].
//! * [`StatsLogger`] computes vLLM's periodic log line.
//!
//! ```
//! use metric_handles::Registry;
//! use metric_handles::vllm::{
//!     FinishReason, RequestOutput, RequestParams, SchedulerStats, VllmMetrics, VllmMetricsConfig,
//! };
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

mod buckets;
mod cache_config;
mod catalogue;
mod config;
mod connectors;
mod engines;
mod labels;
mod log;
mod logger;
mod lora;
mod metric_set;
mod recorders;
mod request;
mod scheduler;
mod sleep;
mod sync;
mod values;

pub use buckets::{
    ITERATION_TOKENS_BUCKETS, ITL_BUCKETS, KV_RESIDENCY_BUCKETS, MOONCAKE_OPERATION_TIME_BUCKETS,
    NIXL_BYTES_BUCKETS, NIXL_DESCRIPTORS_BUCKETS, NIXL_POST_TIME_BUCKETS, NIXL_XFER_TIME_BUCKETS,
    PARAMS_N_BUCKETS, PREEMPTIONS_BUCKETS, REQUEST_LATENCY_BUCKETS, SLEEP_MODE_DURATION_BUCKETS,
    TOKENS_BUCKETS_DEFAULT_MAX, TTFT_BUCKETS,
};
pub use cache_config::{
    CacheConfig, CacheConfigHandles, CacheConfigLabels, CacheConfigMetrics, CacheConfigRecorder,
};
pub use catalogue::catalogue;
pub use config::{VllmMetricsConfig, MAX_MODEL_NAME_LEN};
pub use connectors::input::{
    KvConnectorStats, MooncakeOperation, MooncakeRecord, MooncakeStats, MooncakeStatus, NixlStats,
};
pub use connectors::metrics::{MOONCAKE_DESCRIPTORS, MOONCAKE_LABEL_KEYS, NIXL_DESCRIPTORS};
/// The number of engine indices with a lock-free slot in the recorders; higher indices are
/// found in a sorted list (this repository's tests record past it). Not a stable API.
#[doc(hidden)]
pub use engines::ENGINE_SLOTS;
pub use labels::EngineLabels;
pub use log::interval::{LogStatsInterval, MAX_LOGGED_POSITIONS};
pub use log::line::{SpecDecodeLine, StatsLine};
pub use logger::StatsLogger;
pub use lora::{LoraInfoHandles, LoraInfoLabels, LoraInfoMetrics, LoraInfoRecorder, LoraState};
pub use metric_set::VllmMetrics;
pub use recorders::requests::{RequestMetricsRecorder, RequestMetricsTracker};
pub use recorders::scheduler::SchedulerStatsRecorder;
pub use request::input::{EventType, FinishReason, PrefillStats, RequestOutput};
pub use request::lifecycle::{
    FinishRecord, OutputRecord, ParentFields, PromptRecord, RequestLifecycle, RequestParams,
};
pub use request::metrics::{PromptSource, RequestHandles, RequestMetrics};
pub use request::record::FLUSH_INTERVAL_TOKENS;
pub use scheduler::cudagraph::{CudagraphKey, MAX_CUDAGRAPH_SHAPES, MAX_RUNTIME_MODE_LEN};
pub use scheduler::input::{
    CachedTokensBySource, CudagraphStats, KvCacheEvictionEvent, PerfStats, PrefixCacheStats,
    SchedulerStats, SpecDecodingStats,
};
pub use scheduler::metrics::{CacheHitSource, SchedulerHandles, SchedulerMetrics, WaitingReason};
pub use scheduler::record::iteration_tokens;
pub use sleep::input::{EngineSleepState, KvCacheState, SleepOperation, WeightsState};
pub use sleep::mode::{SleepModeHandles, SleepModeMetrics, SleepModeRecorder, SleepOperationGuard};
pub use sleep::state::SLEEP_STATE_DESCRIPTORS;
