//! What an engine's scheduler stats record: the scheduler families, the KV-connector (NIXL,
//! Mooncake store) families fed by the connector telemetry the stats carry,
//! the bounded CUDA-graph shape counts, and the LoRA adapters in use.

pub(crate) mod connectors;
pub(crate) mod cudagraph;
pub(crate) mod lora_info;
pub(crate) mod metrics;
