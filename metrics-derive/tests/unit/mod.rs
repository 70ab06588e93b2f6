//! Tests of the derives' own functions, which a proc-macro crate cannot export to an
//! integration test (it exports only its macros): `lib.rs` compiles this folder into the
//! crate's unit tests, and it lives here, beside the expansion snapshots it reads
//! (`tests/expand/`), so that `src/` holds only the derives. Cargo does not build it as a test
//! crate of its own (no `main.rs`).
//!
//! * [`expand_snapshots`]: what the derives generate for representative inputs, compared with
//!   the committed `tests/expand/*.expanded.rs`;
//! * [`fuzz`]: the derives never panic and always produce items, whatever the input.

mod expand_snapshots;
mod fuzz;
