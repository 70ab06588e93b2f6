//! The atomics of the exemplar slot: the standard library's, or `loom`'s when the crate is
//! built with `--cfg loom` to model-check the slot's sequence protocol (`loom_model.rs`).

#[cfg(loom)]
pub(super) use loom::sync::atomic::{fence, AtomicU64, Ordering};
#[cfg(not(loom))]
pub(super) use std::sync::atomic::{fence, AtomicU64, Ordering};
