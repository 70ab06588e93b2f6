//! The KV connectors' telemetry: what an engine's NIXL and Mooncake-store connectors report
//! with its scheduler stats ([`KvConnectorStats`], in
//! [`SchedulerStats::kv_connector_stats`](crate::vllm::scheduler::SchedulerStats::kv_connector_stats)),
//! recorded into vLLM's NIXL and Mooncake-store families, which [`NIXL_DESCRIPTORS`] and
//! [`MOONCAKE_DESCRIPTORS`] describe. A third-party connector declares its own families in
//! [`VllmMetrics::plugin_families`](crate::vllm::VllmMetrics::plugin_families).

pub(crate) mod input;
pub(crate) mod metrics;

pub use input::{
    KvConnectorStats, MooncakeOperation, MooncakeRecord, MooncakeStats, MooncakeStatus, NixlStats,
};
pub use metrics::{MOONCAKE_DESCRIPTORS, MOONCAKE_LABEL_KEYS, NIXL_DESCRIPTORS};
