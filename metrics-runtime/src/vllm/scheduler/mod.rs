//! What an engine's scheduler stats record: the stats an engine reports each step
//! ([`SchedulerStats`] and its parts), the scheduler families they feed ([`SchedulerMetrics`],
//! one set per engine, with its enum axes [`WaitingReason`] and [`CacheHitSource`]) and the
//! bounded CUDA-graph shape counts of the log line ([`CudagraphKey`]). The connector telemetry
//! and sleep snapshot the stats carry are recorded into the families of
//! [`connectors`](super::connectors) and [`sleep`](super::sleep);
//! [`SchedulerStatsRecorder`](super::SchedulerStatsRecorder) records it all per engine.

pub(crate) mod cudagraph;
pub(crate) mod input;
pub(crate) mod metrics;
pub(crate) mod record;

pub use cudagraph::{CudagraphKey, MAX_CUDAGRAPH_SHAPES, MAX_RUNTIME_MODE_LEN};
pub use input::{
    CachedTokensBySource, CudagraphStats, KvCacheEvictionEvent, PerfStats, PrefixCacheStats,
    SchedulerStats, SpecDecodingStats,
};
pub use metrics::{CacheHitSource, SchedulerHandles, SchedulerMetrics, WaitingReason};
pub use record::iteration_tokens;
