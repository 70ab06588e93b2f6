//! Sleep mode: the engine's resource snapshot (`input.rs`, reported with its scheduler stats,
//! exported as the sleep-state families of `state.rs`) and the frontend's timed sleep-mode
//! operations (`mode.rs`).

pub(crate) mod input;
pub(crate) mod mode;
pub(crate) mod state;

pub use input::{EngineSleepState, KvCacheState, SleepOperation, WeightsState};
pub use mode::{SleepModeHandles, SleepModeMetrics, SleepModeRecorder, SleepOperationGuard};
pub use state::SLEEP_STATE_DESCRIPTORS;
