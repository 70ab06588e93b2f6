//! The rules an exemplar is held to: its size ([`MAX_EXEMPLAR_CHARS`]), why one was not kept
//! ([`ExemplarError`]), and the process-wide counts of refused and dropped exemplars.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// The most characters (Unicode scalar values, not bytes) an exemplar's label names and
/// values may hold together: OpenMetrics 1.0's limit, which client_golang enforces as
/// `ExemplarMaxRunes` (`prometheus/value.go`), counting runes as this counts `char`s.
pub const MAX_EXEMPLAR_CHARS: usize = 128;

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

/// Counts one exemplar refused by code that checks its labels ahead of recording (with
/// [`EncodedLabels::try_from_pairs`](super::EncodedLabels::try_from_pairs), say, once per
/// request), so that [`rejected_exemplars`] reports every refusal, whoever made it.
pub fn count_rejected() {
    REJECTED.fetch_add(1, Ordering::Relaxed);
}

pub(super) fn count_dropped() {
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
    /// counted in [`rejected_counter_increments`](crate::counter::rejected_counter_increments)), so it
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
