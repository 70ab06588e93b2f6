//! Exemplars: the latest trace (or other small label set) behind a counter's increments or a
//! histogram bucket's observations, written as OpenMetrics writes it:
//! `latency_seconds_bucket{le="0.5"} 12 # {trace_id="abc"} 0.31 1700000000.123`.
//!
//! # The rules (OpenMetrics 1.0)
//!
//! * The label names and values of one exemplar hold at most [`MAX_EXEMPLAR_CHARS`] (128)
//!   characters together, counted in characters (Unicode scalar values), not bytes, as
//!   client_golang counts runes (`prometheus/value.go`, `ExemplarMaxRunes`).
//! * Each name is a label name (`[a-zA-Z_][a-zA-Z0-9_]*`), and no name appears twice.
//! * An empty label set is allowed (`# {} 0.31`).
//! * A bucket's exemplar value lies within the bucket: the histogram picks the slot from the
//!   observed value, the way it picks the bucket it counts, so this holds by construction.
//!
//! An exemplar that breaks a rule is refused with an [`ExemplarError`] and counted in
//! [`rejected_exemplars`]; the observation it came with is recorded all the same. Nothing
//! here panics on user input.
//!
//! # The design
//!
//! prometheus-client keeps exemplars behind a lock per metric (`metrics/exemplar.rs`), and
//! client_golang swaps a pointer to a freshly allocated exemplar per bucket
//! (`prometheus/histogram.go`, `updateExemplar`). Here each slot ([`ExemplarSlot`]) is a
//! sequence lock made of atomics, so recording an exemplar takes no lock and allocates
//! nothing:
//!
//! * The labels are checked and laid out on the caller's stack ([`EncodedLabels`]), then
//!   copied into the slot's fixed [`EXEMPLAR_LABEL_BYTES`]: enough for every label set the
//!   rules allow, so no byte budget of its own refuses anything.
//! * A write claims the slot with one compare-and-swap; a write that finds another in
//!   progress gives up (the slot keeps the latest exemplar either way) and is counted in
//!   [`dropped_exemplars`].
//! * A read (a scrape) copies into the caller's [`ExemplarBuffer`] and retries a copy that a
//!   write overlapped, a bounded number of times ([`READ_ATTEMPTS`]), then reports
//!   [`ExemplarRead::Contended`] rather than wait on writers.
//! * A series' slots ([`ExemplarSlots`]) are allocated on its first exemplar: until then they
//!   cost a pointer and a length (a counter's one slot, a pointer and a one-time flag).

mod labels;
mod read;
mod rules;
mod slot;
mod slots;
mod sync;
mod timestamp;

#[cfg(test)]
mod check_tests;
#[cfg(all(test, loom))]
mod loom_model;
#[cfg(test)]
mod tests;

pub use labels::{EncodedLabels, ExemplarLabels, LabelPairs, EXEMPLAR_LABEL_BYTES};
pub use read::{ExemplarBuffer, ExemplarLabelSet, ExemplarRead, ExemplarView};
pub use rules::{
    count_rejected, dropped_exemplars, rejected_exemplars, ExemplarError, MAX_EXEMPLAR_CHARS,
};
pub(crate) use slot::{with_checked, CheckedLabels};
pub use slot::{ExemplarSlot, READ_ATTEMPTS};
pub(crate) use slots::ExemplarCell;
pub use slots::ExemplarSlots;
pub(crate) use timestamp::epoch_nanos;
