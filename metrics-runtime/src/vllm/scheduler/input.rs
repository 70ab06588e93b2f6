//! What an engine reports of each scheduler step: [`SchedulerStats`], with its prefix-cache,
//! speculative-decoding, perf, eviction and CUDA-graph parts.
//!
//! Plain data with `serde` derives so a frontend can decode them from its wire format (as every
//! input of the vLLM recorders). Field names and meanings follow vLLM's engine-core outputs
//! (vLLM's Rust frontend, `rust/src/engine-core-client/src/protocol/stats.rs`).

use serde::{Deserialize, Serialize};

use crate::vllm::connectors::input::KvConnectorStats;
use crate::vllm::scheduler::metrics::CacheHitSource;
use crate::vllm::sleep::input::EngineSleepState;

/// Prefix-cache counters of one scheduler step (tokens, not blocks).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PrefixCacheStats {
    /// The cache was reset during the interval.
    pub reset: bool,
    /// Requests that queried the cache.
    pub requests: u64,
    /// Tokens queried.
    pub queries: u64,
    /// Tokens hit.
    pub hits: u64,
    /// Preempted requests that queried the cache again.
    pub preempted_requests: u64,
    /// Tokens queried by preempted requests.
    pub preempted_queries: u64,
    /// Tokens hit by preempted requests.
    pub preempted_hits: u64,
    /// `hits` split by the cache tier that supplied them: connector stats carry it; for the
    /// local prefix cache every hit is `device` and this field is ignored.
    pub hits_by_source: CachedTokensBySource,
}

/// Cache-hit tokens by the tier that supplied them: the `source` values of
/// `vllm:prompt_tokens_cached_by_source` (vLLM's `CachedTokensBySource`). A tier an engine does
/// not report is 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CachedTokensBySource {
    /// Device (GPU) memory.
    pub device: u64,
    /// Host (CPU) memory.
    pub host: u64,
    /// Another instance, peer to peer.
    pub p2p: u64,
    /// Disk.
    pub disk: u64,
    /// An external tier that did not say which.
    pub external_unspecified: u64,
}

impl CachedTokensBySource {
    /// The count of `source`.
    pub fn get(&self, source: CacheHitSource) -> u64 {
        match source {
            CacheHitSource::Device => self.device,
            CacheHitSource::Host => self.host,
            CacheHitSource::P2p => self.p2p,
            CacheHitSource::Disk => self.disk,
            CacheHitSource::ExternalUnspecified => self.external_unspecified,
        }
    }
}

/// Speculative-decoding counters of one scheduler step.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SpecDecodingStats {
    /// The configured number of speculative tokens per draft.
    pub num_spec_tokens: u64,
    /// Drafts proposed.
    pub num_drafts: u64,
    /// Draft tokens proposed.
    pub num_draft_tokens: u64,
    /// Draft tokens accepted.
    pub num_accepted_tokens: u64,
    /// Accepted tokens by 0-based draft position.
    pub num_accepted_tokens_per_pos: Vec<u64>,
}

/// Estimated work of one scheduler step, per GPU.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PerfStats {
    /// Floating-point operations.
    pub num_flops_per_gpu: u64,
    /// Bytes read from memory.
    pub num_read_bytes_per_gpu: u64,
    /// Bytes written to memory.
    pub num_write_bytes_per_gpu: u64,
}

/// One KV-cache block eviction, with its residency timings in seconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct KvCacheEvictionEvent {
    /// Time from allocation to eviction.
    pub lifetime_seconds: f64,
    /// Time since the last access at eviction.
    pub idle_seconds: f64,
    /// Gaps between consecutive reuses of the block.
    pub reuse_gaps_seconds: Vec<f64>,
}

/// CUDA-graph padding of one scheduler step.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CudagraphStats {
    /// Tokens before padding.
    pub num_unpadded_tokens: u64,
    /// Tokens after padding.
    pub num_padded_tokens: u64,
    /// Padding tokens added.
    pub num_paddings: u64,
    /// The CUDA-graph runtime mode (`FULL`, `PIECEWISE`, ...).
    pub runtime_mode: String,
}

/// The scheduler state an engine reports with each step batch.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SchedulerStats {
    /// Requests in model execution batches.
    pub num_running_reqs: u64,
    /// Requests waiting for capacity.
    pub num_waiting_reqs: u64,
    /// Waiting requests deferred by a transient constraint.
    pub num_skipped_waiting_reqs: u64,
    /// KV-cache usage as a fraction (1.0 = full).
    pub kv_cache_usage: f64,
    /// Local prefix-cache counters.
    pub prefix_cache_stats: PrefixCacheStats,
    /// External (KV connector) prefix-cache counters, when a connector is configured.
    pub connector_prefix_cache_stats: Option<PrefixCacheStats>,
    /// Speculative-decoding counters, when speculative decoding is on.
    pub spec_decoding_stats: Option<SpecDecodingStats>,
    /// Estimated FLOPs and memory traffic, when enabled.
    pub perf_stats: Option<PerfStats>,
    /// KV-cache blocks evicted during the step.
    pub kv_cache_eviction_events: Vec<KvCacheEvictionEvent>,
    /// CUDA-graph padding, when CUDA graphs are used.
    pub cudagraph_stats: Option<CudagraphStats>,
    /// KV-connector transfer telemetry (NIXL, Mooncake store), when a connector reports it.
    pub kv_connector_stats: Option<KvConnectorStats>,
    /// The engine's confirmed sleep state; engines that do not publish one leave it `None`.
    pub sleep_state: Option<EngineSleepState>,
    /// A telemetry-only update: only `sleep_state` is recorded, every other field is ignored.
    pub sleep_state_only: bool,
}
