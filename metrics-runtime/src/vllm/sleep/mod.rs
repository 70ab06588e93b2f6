//! Sleep mode: the engine's resource snapshot (reported with its scheduler stats, exported as
//! the sleep-state families) and the frontend's timed sleep-mode operations.

pub(crate) mod mode;
pub(crate) mod state;
