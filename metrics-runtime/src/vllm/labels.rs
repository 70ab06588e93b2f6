//! The label sets of the vLLM metrics: the common `model_name` + `engine`, and the enum axes.

use crate::{LabelEnum, LabelSet};

/// The labels every vLLM metric carries, in this order: `model_name`, `engine` (the engine-core
/// index as a decimal integer).
#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    /// The served model's name.
    pub model_name: String,
    /// The engine-core index.
    pub engine: u32,
}

/// Where prompt tokens came from: the `source` label of `vllm:prompt_tokens_by_source`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum PromptSource {
    /// Computed by this engine's prefill.
    LocalCompute,
    /// Served from this engine's prefix cache.
    LocalCacheHit,
    /// Transferred from an external KV store (KV connector).
    ExternalKvTransfer,
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
