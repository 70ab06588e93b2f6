//! The KV connectors' telemetry (NIXL, Mooncake store): what an engine reports with its
//! scheduler stats (`input.rs`) and the connector families it feeds (`metrics.rs`).

pub(crate) mod input;
pub(crate) mod metrics;

pub use input::{
    KvConnectorStats, MooncakeOperation, MooncakeRecord, MooncakeStats, MooncakeStatus, NixlStats,
};
pub use metrics::{MOONCAKE_DESCRIPTORS, MOONCAKE_LABEL_KEYS, NIXL_DESCRIPTORS};
