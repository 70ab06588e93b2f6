//! Tests of the derives' own functions, which a proc-macro crate cannot export to an
//! integration test (it exports only its macros), so they are unit tests. The expansion
//! snapshots they compare with are in `tests/expand/`.
//!
//! * [`expand_snapshots`]: what the derives generate for representative inputs, compared with
//!   the committed `tests/expand/*.expanded.rs`;
//! * [`fuzz`]: the derives never panic and always produce items, whatever the input.

mod expand_snapshots;
mod fuzz;
