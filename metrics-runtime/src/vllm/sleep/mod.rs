//! Sleep mode: the engine's confirmed resource state ([`EngineSleepState`], reported with its
//! scheduler stats and exported as the sleep-state families of [`SLEEP_STATE_DESCRIPTORS`]),
//! and the frontend's timed sleep and wake-up operations ([`SleepModeRecorder`], whose families
//! are [`SleepModeMetrics`]).

pub(crate) mod input;
pub(crate) mod mode;
pub(crate) mod state;

pub use input::{EngineSleepState, KvCacheState, SleepOperation, WeightsState};
pub use mode::{SleepModeHandles, SleepModeMetrics, SleepModeRecorder, SleepOperationGuard};
pub use state::SLEEP_STATE_DESCRIPTORS;
