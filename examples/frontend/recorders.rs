//! The recorders the simulated frontend drives, and the engine-output types it produces.

pub use metric_handles::vllm::{
    CacheHitSource, CachedTokensBySource, CudagraphStats, EngineSleepState, EventType,
    FinishReason, KvCacheEvictionEvent, KvCacheState, KvConnectorStats, LoraState,
    MooncakeOperation, MooncakeRecord, MooncakeStats, MooncakeStatus, NixlStats, PerfStats,
    PrefillStats, PrefixCacheStats, RequestMetricsTracker, RequestOutput, RequestParams,
    SchedulerStats, SchedulerStatsRecorder, SleepOperation, SpecDecodingStats, StatsLogger,
    VllmMetrics, VllmMetricsConfig, WeightsState,
};
