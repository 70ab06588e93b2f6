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
//!   cost a pointer and a length.

mod labels;
mod read;
mod slot;
mod slots;
mod sync;

#[cfg(all(test, loom))]
mod loom_model;
#[cfg(all(test, not(loom)))]
mod tests;

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

pub use labels::{
    EncodedLabels, ExemplarLabels, LabelPairs, EXEMPLAR_LABEL_BYTES, MAX_EXEMPLAR_CHARS,
};
pub use read::{ExemplarBuffer, ExemplarLabelSet, ExemplarRead, ExemplarView};
pub(crate) use slot::{epoch_seconds, with_checked, CheckedLabels};
pub use slot::{ExemplarSlot, READ_ATTEMPTS};
pub use slots::ExemplarSlots;

/// Exemplars refused in the process for breaking a rule ([`ExemplarError`]).
static REJECTED: AtomicU64 = AtomicU64::new(0);

/// Exemplars dropped in the process because another write held their slot.
static DROPPED: AtomicU64 = AtomicU64::new(0);

/// How many exemplars the process refused for breaking a rule: too long, a bad or repeated
/// label name, labels that could not be written, a slot index past a series' slots. A
/// non-zero value means a caller has a bug; the observations themselves were recorded.
pub fn rejected_exemplars() -> u64 {
    REJECTED.load(Ordering::Relaxed)
}

/// How many valid exemplars the process dropped because another write to the same slot was
/// in progress. The slot then holds that other exemplar, as recent as the dropped one, so
/// "the latest exemplar" still holds; a high figure only says writers crowd one slot.
pub fn dropped_exemplars() -> u64 {
    DROPPED.load(Ordering::Relaxed)
}

pub(crate) fn count_rejected() {
    REJECTED.fetch_add(1, Ordering::Relaxed);
}

fn count_dropped() {
    DROPPED.fetch_add(1, Ordering::Relaxed);
}

/// Why an exemplar was not kept. The observation it came with is recorded either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExemplarError {
    /// Label names and values together hold more than [`MAX_EXEMPLAR_CHARS`] characters
    /// (`chars` counts up to the label that went over).
    TooLong {
        /// The characters counted when the limit was passed.
        chars: usize,
    },
    /// A label name is not `[a-zA-Z_][a-zA-Z0-9_]*`.
    InvalidLabelName,
    /// A label name appears twice.
    DuplicateLabelName,
    /// The labels could not be written (a label set whose encoder failed).
    Unencodable,
    /// The slot index is past the series' slots (a bucket that does not exist).
    NoSuchSlot,
    /// Another write to the slot was in progress; that exemplar is kept instead. Counted in
    /// [`dropped_exemplars`], not as a rejection: nothing was wrong with this one.
    Contended,
    /// The counter refused the increment the exemplar came with (negative, NaN or infinite:
    /// counted in [`rejected_counter_increments`](crate::rejected_counter_increments)), so it
    /// keeps no exemplar for it either.
    RefusedValue,
}

impl fmt::Display for ExemplarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLong { chars } => write!(
                f,
                "exemplar labels hold {chars} characters, over the {MAX_EXEMPLAR_CHARS} OpenMetrics allows"
            ),
            Self::InvalidLabelName => {
                f.write_str("an exemplar label name is not [a-zA-Z_][a-zA-Z0-9_]*")
            }
            Self::DuplicateLabelName => f.write_str("an exemplar label name appears twice"),
            Self::Unencodable => f.write_str("the exemplar's labels could not be encoded"),
            Self::NoSuchSlot => f.write_str("no exemplar slot at that index"),
            Self::Contended => {
                f.write_str("another exemplar was being written to the slot; it is kept instead")
            }
            Self::RefusedValue => f.write_str(
                "the counter refused the increment (negative, NaN or infinite), and its exemplar",
            ),
        }
    }
}

impl std::error::Error for ExemplarError {}
