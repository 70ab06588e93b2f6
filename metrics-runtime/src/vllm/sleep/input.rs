//! Sleep mode: the engine's resource snapshot and the frontend's sleep-mode operations.
//!
//! vLLM models sleep as a combination of scheduler and memory resource states rather than one
//! sleep level (vLLM's `docs/design/sleep_state_telemetry.md`): the engine publishes confirmed
//! snapshots in its scheduler stats, and the frontend times the operations it dispatches.

use serde::{Deserialize, Serialize};

use crate::LabelEnum;

/// Where the model weights are: the `state` of resource `weights`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, LabelEnum)]
#[serde(rename_all = "snake_case")]
#[label(rename_all = "snake_case")]
pub enum WeightsState {
    /// In device memory.
    Resident,
    /// Offloaded to host memory (sleep level 1).
    Offloaded,
    /// Discarded (sleep level 2).
    Discarded,
    /// Unconfirmed (a failed operation may have left workers in different states); also what
    /// an unrecognised state string decodes to.
    #[serde(other)]
    Unknown,
}

/// Where the KV cache is: the `state` of resource `kv_cache`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, LabelEnum)]
#[serde(rename_all = "snake_case")]
#[label(rename_all = "snake_case")]
pub enum KvCacheState {
    /// In device memory.
    Resident,
    /// Released.
    Released,
    /// Unconfirmed; also what an unrecognised state string decodes to.
    #[serde(other)]
    Unknown,
}

/// One engine's confirmed sleep state, carried by [`SchedulerStats::sleep_state`].
///
/// [`SchedulerStats::sleep_state`]: crate::vllm::scheduler::SchedulerStats::sleep_state
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineSleepState {
    /// Scheduling is paused.
    pub scheduler_paused: bool,
    /// Where the weights are.
    pub weights: WeightsState,
    /// Where the KV cache is.
    pub kv_cache: KvCacheState,
}

impl EngineSleepState {
    /// Scheduling runs and both memory resources are confirmed resident: the value of
    /// `vllm:engine_fully_awake`.
    pub fn fully_awake(&self) -> bool {
        !self.scheduler_paused
            && self.weights == WeightsState::Resident
            && self.kv_cache == KvCacheState::Resident
    }
}

/// A sleep-mode operation the frontend dispatches to its engines: the `operation` label of
/// `vllm:sleep_mode_operation_duration_seconds` and `vllm:sleep_mode_operations_in_flight`.
///
/// The complete set: vLLM's Python frontend declares exactly these three
/// (`Operation = Literal["sleep", "release_kv_cache_memory", "wake"]` beside its sleep-mode
/// metrics), and its Rust frontend records the same three (`rust/src/metrics/src/api_server.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, LabelEnum)]
#[serde(rename_all = "snake_case")]
#[label(rename_all = "snake_case")]
pub enum SleepOperation {
    /// `POST /sleep`.
    Sleep,
    /// Releasing the KV cache memory of a paused engine.
    ReleaseKvCacheMemory,
    /// `POST /wake_up`.
    Wake,
}
