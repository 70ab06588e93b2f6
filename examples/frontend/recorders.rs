//! The recorders the simulated frontend drives, and the engine-output types it produces.

pub use metric_handles::vllm::{
    CudagraphStats, EventType, FinishReason, KvCacheEvictionEvent, PerfStats, PrefillStats,
    PrefixCacheStats, RequestMetricsTracker, RequestOutput, RequestParams, SchedulerStats,
    SchedulerStatsRecorder, SpecDecodingStats, StatsLogger, VllmMetrics, VllmMetricsConfig,
};
