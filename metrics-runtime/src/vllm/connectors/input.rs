//! KV-connector telemetry an engine reports with its scheduler stats: the inputs of the NIXL
//! and Mooncake-store families. Field names and meanings follow vLLM's Rust frontend
//! (`rust/src/engine-core-client/src/protocol/stats.rs`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::LabelEnum;

/// Transfer telemetry of a NIXL connector since its previous report.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NixlStats {
    /// Duration of each successful transfer, seconds.
    pub transfer_duration: Vec<f64>,
    /// Time spent posting each successful transfer, seconds.
    pub post_duration: Vec<f64>,
    /// Bytes moved by each successful transfer.
    pub bytes_transferred: Vec<u64>,
    /// Descriptors of each successful transfer.
    pub num_descriptors: Vec<u64>,
    /// Failed-transfer counter increments.
    pub num_failed_transfers: Vec<u64>,
    /// Failed-notification counter increments.
    pub num_failed_notifications: Vec<u64>,
    /// Increments of requests whose KV expired (tracked on the prefill instance).
    pub num_kv_expired_reqs: Vec<u64>,
}

/// A Mooncake-store operation: the `operation` label.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, LabelEnum,
)]
#[serde(rename_all = "snake_case")]
#[label(rename_all = "snake_case")]
pub enum MooncakeOperation {
    /// Checks whether keys exist before saving.
    SaveExists,
    /// Writes KV blocks to the store.
    SavePut,
    /// Reads KV blocks back from the store.
    LoadGet,
    /// Looks keys up.
    LookupExists,
}

/// How a Mooncake-store operation ended: the `status` label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, LabelEnum)]
#[serde(rename_all = "snake_case")]
#[label(rename_all = "snake_case")]
pub enum MooncakeStatus {
    /// Every key succeeded.
    Ok,
    /// The operation failed.
    Error,
    /// Some keys failed.
    PartialFailure,
}

/// One Mooncake-store operation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MooncakeRecord {
    /// How long the operation took, seconds.
    pub duration_seconds: f64,
    /// Keys the operation touched.
    pub num_keys: u64,
    /// Bytes it moved.
    pub num_bytes: u64,
    /// How it ended.
    pub status: MooncakeStatus,
    /// Keys that failed.
    pub num_failed_keys: u64,
}

/// Mooncake-store telemetry since the previous report, by operation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MooncakeStats(pub BTreeMap<MooncakeOperation, Vec<MooncakeRecord>>);

/// The connector telemetry of one scheduler step. A `MultiConnector` with several NIXL
/// children (`NixlConnector`, `NixlPullConnector`, `NixlPushConnector`) reports each in
/// `nixl`: all of them record into the same NIXL families, as in vLLM.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct KvConnectorStats {
    /// NIXL connectors' telemetry.
    pub nixl: Vec<NixlStats>,
    /// The Mooncake store connector's telemetry.
    pub mooncake: Option<MooncakeStats>,
}
