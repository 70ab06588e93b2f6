//! The recorders: the state one model's recorders share (the registered families and the
//! engine table), and the scheduler-stats and request recorders that write through it.

pub(crate) mod core;
pub(crate) mod requests;
pub(crate) mod scheduler;
