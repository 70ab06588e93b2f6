//! What an engine's scheduler stats record: the scheduler families, the KV-connector (NIXL,
//! Mooncake store) families fed by the connector telemetry the stats carry,
//! the bounded CUDA-graph shape counts, the LoRA adapters in use, and each engine's KV-cache
//! configuration.

pub(crate) mod cache_config;
pub(crate) mod connectors;
pub(crate) mod cudagraph;
pub(crate) mod lora_info;
pub(crate) mod metrics;
