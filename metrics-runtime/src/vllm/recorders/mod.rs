//! The per-engine recorders: the state one model's recorders share (the registered families
//! and the engine table, whose entry holds every concept's handles of one engine), and the
//! scheduler-stats and request recorders, which find the engine and hand each record to the
//! concepts it feeds (`scheduler/record.rs`, `request/record.rs`, `connectors`, `sleep`, `log`).
//!
//! They sit above the concept folders, not in them: the engine entry names every concept's
//! handles (an engine joins and leaves with all of them), so a recorder inside a concept folder
//! would import that folder back through the entry.

pub(crate) mod core;
pub(crate) mod requests;
pub(crate) mod scheduler;
