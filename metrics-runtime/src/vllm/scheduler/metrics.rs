//! The scheduler metrics, one set per engine, declared with the derive.

use std::sync::atomic::AtomicU64;

use crate::vllm::buckets::{ITERATION_TOKENS_BUCKETS, KV_RESIDENCY_BUCKETS};
use crate::vllm::labels::EngineLabels;
use crate::{ByLabel, ByPosition, Counter, Family, Gauge, Histogram, LabelEnum, MetricHandles};

/// Every scheduler metric of one engine. Help texts are vLLM's (without the final `.`, which
/// prometheus-client appends).
///
/// Alias versions are the value of vLLM's `--show-hidden-metrics-for-version` that re-enables
/// the old name: vLLM deprecated the `gpu_*` names in 0.9.2 and hid them from 0.11, behind
/// `=0.10`.
#[derive(Debug, MetricHandles)]
#[metric_handles(handles = SchedulerHandles, labels = EngineLabels)]
pub struct SchedulerMetrics {
    /// Number of requests in model execution batches
    ///
    /// # Computed
    ///
    /// Set to `num_running_reqs` of each `SchedulerStats`.
    #[metric(name = "vllm:num_requests_running")]
    pub num_requests_running: Family<EngineLabels, Gauge>,

    /// Number of requests waiting to be processed
    ///
    /// # Computed
    ///
    /// Set to `num_waiting_reqs + num_skipped_waiting_reqs` (saturating).
    #[metric(name = "vllm:num_requests_waiting")]
    pub num_requests_waiting: Family<EngineLabels, Gauge>,

    /// Number of waiting requests by reason. Reason labels: 'capacity' = waiting for scheduling capacity; 'deferred' = deferred by transient constraints (LoRA budget, KV transfer, blocked status). Sum of all reasons equals vllm:num_requests_waiting
    ///
    /// # Computed
    ///
    /// `capacity` set to `num_waiting_reqs`, `deferred` to `num_skipped_waiting_reqs`. Both series
    /// exist from the engine's first sight.
    #[metric(name = "vllm:num_requests_waiting_by_reason", label = "reason")]
    pub num_requests_waiting_by_reason: Family<EngineLabels, ByLabel<WaitingReason, Gauge>>,

    /// KV-cache usage. 1 means 100 percent usage
    ///
    /// # Computed
    ///
    /// Set to `kv_cache_usage`, a fraction (1.0 = full) despite the name, clamped to 0..1 (NaN
    /// records 0).
    #[metric(
        name = "vllm:kv_cache_usage_perc",
        alias(name = "vllm:gpu_cache_usage_perc", deprecated_in = "0.10")
    )]
    pub kv_cache_usage: Family<EngineLabels, Gauge<f64, AtomicU64>>,

    /// Prefix cache queries, in terms of number of queried tokens
    ///
    /// # Computed
    ///
    /// Increased by `prefix_cache_stats.queries` (tokens queried).
    #[metric(
        name = "vllm:prefix_cache_queries",
        alias(name = "vllm:gpu_prefix_cache_queries", deprecated_in = "0.10")
    )]
    pub prefix_cache_queries: Family<EngineLabels, Counter>,

    /// Prefix cache hits, in terms of number of cached tokens
    ///
    /// # Computed
    ///
    /// Increased by `prefix_cache_stats.hits` (tokens hit).
    #[metric(
        name = "vllm:prefix_cache_hits",
        alias(name = "vllm:gpu_prefix_cache_hits", deprecated_in = "0.10")
    )]
    pub prefix_cache_hits: Family<EngineLabels, Counter>,

    /// External prefix cache queries from KV connector cross-instance cache sharing, in terms of number of queried tokens
    ///
    /// # Computed
    ///
    /// Increased by `connector_prefix_cache_stats.queries`, only when connector stats are present.
    #[metric(name = "vllm:external_prefix_cache_queries")]
    pub external_prefix_cache_queries: Family<EngineLabels, Counter>,

    /// External prefix cache hits from KV connector cross-instance cache sharing, in terms of number of cached tokens
    ///
    /// # Computed
    ///
    /// Increased by `connector_prefix_cache_stats.hits`, only when connector stats are present.
    #[metric(name = "vllm:external_prefix_cache_hits")]
    pub external_prefix_cache_hits: Family<EngineLabels, Counter>,

    /// Number of cached prompt tokens by the cache tier that supplied them
    ///
    /// # Computed
    ///
    /// Per `SchedulerStats`: `device` += `prefix_cache_stats.hits` (every local prefix-cache hit is
    /// in device memory); when connector stats are present, each source +=
    /// `connector_prefix_cache_stats.hits_by_source` of that source. All five sources are exported
    /// at 0 from the engine's first sight. Skipped for a `sleep_state_only` update.
    #[metric(name = "vllm:prompt_tokens_cached_by_source", label = "source")]
    pub prompt_tokens_cached_by_source: Family<EngineLabels, ByLabel<CacheHitSource, Counter>>,

    /// Number of spec decoding drafts
    ///
    /// # Computed
    ///
    /// Increased by `spec_decoding_stats.num_drafts`, only when spec-decode stats are present.
    #[metric(name = "vllm:spec_decode_num_drafts")]
    pub spec_decode_num_drafts: Family<EngineLabels, Counter>,

    /// Number of draft tokens
    ///
    /// # Computed
    ///
    /// Increased by `spec_decoding_stats.num_draft_tokens`, only when spec-decode stats are
    /// present.
    #[metric(name = "vllm:spec_decode_num_draft_tokens")]
    pub spec_decode_num_draft_tokens: Family<EngineLabels, Counter>,

    /// Number of accepted tokens
    ///
    /// # Computed
    ///
    /// Increased by `spec_decoding_stats.num_accepted_tokens`, only when spec-decode stats are
    /// present.
    #[metric(name = "vllm:spec_decode_num_accepted_tokens")]
    pub spec_decode_num_accepted_tokens: Family<EngineLabels, Counter>,

    /// Accepted tokens per draft position
    ///
    /// # Computed
    ///
    /// Position `i` increased by `num_accepted_tokens_per_pos[i]`. Positions
    /// `0..num_speculative_tokens` are pre-resolved (array index); a position beyond goes through a
    /// bounded lookup.
    #[metric(
        name = "vllm:spec_decode_num_accepted_tokens_per_pos",
        label = "position",
        positions = 0
    )]
    pub spec_decode_num_accepted_tokens_per_pos: Family<EngineLabels, ByPosition<Counter>>,

    /// Estimated number of floating point operations per GPU (for Model Flops Utilization calculations)
    ///
    /// # Computed
    ///
    /// Increased by `perf_stats.num_flops_per_gpu`, only when perf stats are present and any of the
    /// three perf values is non-zero.
    #[metric(name = "vllm:estimated_flops_per_gpu")]
    pub estimated_flops_per_gpu: Family<EngineLabels, Counter>,

    /// Estimated number of bytes read from memory per GPU (for Model Flops Utilization calculations)
    ///
    /// # Computed
    ///
    /// Increased by `perf_stats.num_read_bytes_per_gpu`, same condition as
    /// `vllm:estimated_flops_per_gpu`.
    #[metric(name = "vllm:estimated_read_bytes_per_gpu")]
    pub estimated_read_bytes_per_gpu: Family<EngineLabels, Counter>,

    /// Estimated number of bytes written to memory per GPU (for Model Flops Utilization calculations)
    ///
    /// # Computed
    ///
    /// Increased by `perf_stats.num_write_bytes_per_gpu`, same condition as
    /// `vllm:estimated_flops_per_gpu`.
    #[metric(name = "vllm:estimated_write_bytes_per_gpu")]
    pub estimated_write_bytes_per_gpu: Family<EngineLabels, Counter>,

    /// Histogram of KV cache block lifetime from allocation to eviction. Sampled metrics (controlled by --kv-cache-metrics-sample)
    ///
    /// # Computed
    ///
    /// Observes each eviction event's `lifetime_seconds` (negative values record 0).
    #[metric(name = "vllm:kv_block_lifetime_seconds", buckets = KV_RESIDENCY_BUCKETS)]
    pub kv_block_lifetime: Family<EngineLabels, Histogram>,

    /// Histogram of idle time before KV cache block eviction. Sampled metrics (controlled by --kv-cache-metrics-sample)
    ///
    /// # Computed
    ///
    /// Observes each eviction event's `idle_seconds` (negative values record 0).
    #[metric(
        name = "vllm:kv_block_idle_before_evict_seconds",
        buckets = KV_RESIDENCY_BUCKETS
    )]
    pub kv_block_idle_before_evict: Family<EngineLabels, Histogram>,

    /// Histogram of time gaps between consecutive KV cache block accesses. Only the most recent accesses are recorded (ring buffer). Sampled metrics (controlled by --kv-cache-metrics-sample)
    ///
    /// # Computed
    ///
    /// Observes every gap of every eviction event's `reuse_gaps_seconds`.
    #[metric(name = "vllm:kv_block_reuse_gap_seconds", buckets = KV_RESIDENCY_BUCKETS)]
    pub kv_block_reuse_gap: Family<EngineLabels, Histogram>,

    /// Histogram of computed prompt and generated tokens per nonempty engine output batch
    ///
    /// # Computed
    ///
    /// What vLLM's Rust frontend counts: once per non-empty output batch of the engine
    /// (`SchedulerStatsRecorder::record_output_batch`), the batch's computed prompt tokens plus
    /// generated tokens: over its outputs, new tokens plus `prefill_stats.num_computed_tokens` when
    /// present (`metric_handles::vllm::scheduler::iteration_tokens`; cached prompt tokens are not counted). An
    /// empty batch records nothing. A histogram whose name ends in `_total`, as in vLLM.
    #[metric(name = "vllm:iteration_tokens_total", buckets = ITERATION_TOKENS_BUCKETS)]
    pub iteration_tokens: Family<EngineLabels, Histogram>,
}

/// Why requests wait: the `reason` label of `vllm:num_requests_waiting_by_reason`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum WaitingReason {
    /// Waiting for scheduling capacity.
    Capacity,
    /// Deferred by a transient constraint (LoRA budget, KV transfer, blocked status).
    Deferred,
}

/// The cache tier that supplied cached prompt tokens: the `source` label of
/// `vllm:prompt_tokens_cached_by_source` (vLLM's `CachedTokensBySource::SOURCES`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum CacheHitSource {
    /// Device (GPU) memory: every local prefix-cache hit.
    Device,
    /// Host (CPU) memory.
    Host,
    /// Another instance, peer to peer.
    P2p,
    /// Disk.
    Disk,
    /// An external tier that did not say which.
    ExternalUnspecified,
}
