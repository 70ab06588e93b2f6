//! [`ExemplarSlot`]: the latest exemplar of one counter or one bucket, written and read
//! without a lock.
//!
//! A sequence lock built of atomics. The sequence is 0 while the slot is empty, odd while a
//! writer is storing, and even once an exemplar is published.
//!
//! * A writer claims the slot with one compare-and-swap (acquire, so its stores follow the
//!   previous writer's) from the even sequence it read to the next odd one, stores the fields with relaxed stores behind a release fence, and publishes
//!   with a release store of the next even sequence. A writer that finds the slot odd, or
//!   loses the compare-and-swap, drops its exemplar rather than wait: the slot keeps the
//!   latest exemplar, and the one being written is as late as the dropped one. Drops are
//!   counted ([`dropped_exemplars`](crate::exemplar::dropped_exemplars)).
//! * A reader loads the sequence (acquire), copies the fields with relaxed loads, fences
//!   (acquire) and loads the sequence again. Equal even sequences mean no writer stored in
//!   between, so the copy is one exemplar whole; otherwise it tries again, at most
//!   [`READ_ATTEMPTS`] times, then reports [`ExemplarRead::Contended`] instead of spinning
//!   while writers keep the slot busy.
//!
//! The fences are the pairing Hans Boehm's "Can Seqlocks Get Along With Programming Language
//! Memory Models?" gives: a reader that loads a field stored after a writer's release fence
//! synchronizes with that writer at its acquire fence, so its second sequence load sees the
//! writer's claim and the copy is discarded.

use std::time::SystemTime;

use super::timestamp::epoch_nanos;

use super::labels::{
    check_pairs, pair_header, EncodedLabels, ExemplarLabels, LabelPairs, EXEMPLAR_LABEL_BYTES,
};
use super::read::{ExemplarBuffer, ExemplarRead};
use super::rules::{count_dropped, count_rejected, ExemplarError};
use super::sync::{fence, AtomicU64, Ordering};

/// How many times a read copies a slot that writers keep changing before it reports
/// [`ExemplarRead::Contended`].
pub const READ_ATTEMPTS: u32 = 16;

/// The copies a read tries: [`READ_ATTEMPTS`], or 2 under the loom model, where each retry
/// multiplies the interleavings to check and 2 already covers a retry that succeeds.
const ATTEMPTS: u32 = if cfg!(loom) { 2 } else { READ_ATTEMPTS };

/// The words of a slot's label bytes.
const LABEL_WORDS: usize = EXEMPLAR_LABEL_BYTES / 8;

/// The latest exemplar of one counter or one histogram bucket: its labels, value and
/// timestamp, written and read with atomics only (see the module documentation).
///
/// 544 bytes: the labels' [`EXEMPLAR_LABEL_BYTES`] and four words. A writer stores only the
/// words its labels fill, and a reader copies only those.
pub struct ExemplarSlot {
    /// 0: empty; odd: a writer is storing; even: published. The tests set it to play a
    /// writer caught mid-store.
    pub(super) sequence: AtomicU64,
    /// The labels' length in bytes.
    label_len: AtomicU64,
    /// The value's `f64` bits.
    value: AtomicU64,
    /// Nanoseconds since the Unix epoch (negative before it), as `i64` bits: an integer, so a
    /// record converts no float; a read turns it into seconds.
    timestamp: AtomicU64,
    /// The labels' stored form, 8 bytes a word (little-endian).
    labels: [AtomicU64; LABEL_WORDS],
}

impl Default for ExemplarSlot {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for ExemplarSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut buffer = ExemplarBuffer::new();
        f.debug_tuple("ExemplarSlot")
            .field(&self.read(&mut buffer))
            .finish()
    }
}

impl ExemplarSlot {
    /// An empty slot.
    pub fn new() -> Self {
        Self {
            sequence: AtomicU64::new(0),
            label_len: AtomicU64::new(0),
            value: AtomicU64::new(0),
            timestamp: AtomicU64::new(0),
            labels: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }

    /// Checks `labels` and makes them the slot's exemplar with `value`, stamped `timestamp`
    /// (now when `None`). Allocates nothing for slices, arrays, [`EncodedLabels`] and
    /// hand-written [`ExemplarLabels`].
    ///
    /// An exemplar that breaks a rule is counted in
    /// [`rejected_exemplars`](crate::exemplar::rejected_exemplars), one dropped because another writer
    /// holds the slot in [`dropped_exemplars`](crate::exemplar::dropped_exemplars); neither is ever a
    /// panic, and the caller's observation is its own to record either way.
    pub fn record(
        &self,
        labels: &(impl ExemplarLabels + ?Sized),
        value: f64,
        timestamp: Option<SystemTime>,
    ) -> Result<(), ExemplarError> {
        with_checked(labels, |labels| {
            self.store(labels, value, epoch_nanos(timestamp))
        })?
    }

    /// Makes `labels` (already checked) the slot's exemplar, unless a writer holds the slot.
    pub(crate) fn store(
        &self,
        labels: CheckedLabels<'_>,
        value: f64,
        nanos: i64,
    ) -> Result<(), ExemplarError> {
        let sequence = self.sequence.load(Ordering::Relaxed);
        if sequence % 2 == 1
            || self
                .sequence
                // Acquire: this write's stores come after the previous writer's (published
                // with release) in every field's modification order; with a relaxed claim a
                // previous writer's field store could land after this one's, and a reader of
                // this sequence would see a mix (the loom model finds it).
                .compare_exchange(sequence, sequence + 1, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            count_dropped();
            return Err(ExemplarError::Contended);
        }
        // The field stores below stay after the claim for any reader that sees one of them.
        fence(Ordering::Release);
        let len = match labels {
            CheckedLabels::Encoded(encoded) => {
                for (cell, word) in self.labels.iter().zip(encoded.words()) {
                    cell.store(word, Ordering::Relaxed);
                }
                encoded.as_bytes().len()
            }
            CheckedLabels::Pairs { pairs, bytes } => {
                let mut words = WordWriter::new(&self.labels);
                for &(name, value) in pairs {
                    words.push(&pair_header(name, value));
                    words.push(name.as_bytes());
                    words.push(value.as_bytes());
                }
                words.finish();
                bytes
            }
        };
        self.label_len.store(len as u64, Ordering::Relaxed);
        self.value.store(value.to_bits(), Ordering::Relaxed);
        self.timestamp.store(nanos as u64, Ordering::Relaxed);
        // Skips 0 (empty) when the sequence wraps, after 2^63 writes.
        let published = (sequence + 2).max(2);
        self.sequence.store(published, Ordering::Release);
        Ok(())
    }

    /// Copies the slot's exemplar into `buffer` without allocating: [`ExemplarRead::Empty`]
    /// before the first, [`ExemplarRead::Contended`] when writers changed it during every one
    /// of [`READ_ATTEMPTS`] copies.
    pub fn read<'b>(&self, buffer: &'b mut ExemplarBuffer) -> ExemplarRead<'b> {
        for attempt in 0..ATTEMPTS {
            if attempt > 0 {
                pause();
            }
            let before = self.sequence.load(Ordering::Acquire);
            if before == 0 {
                return ExemplarRead::Empty;
            }
            if before % 2 == 1 {
                continue;
            }
            let len = (self.label_len.load(Ordering::Relaxed) as usize).min(EXEMPLAR_LABEL_BYTES);
            for (word, chunk) in self
                .labels
                .iter()
                .zip(buffer.bytes.chunks_mut(8))
                .take(len.div_ceil(8))
            {
                chunk.copy_from_slice(&word.load(Ordering::Relaxed).to_le_bytes());
            }
            let value = f64::from_bits(self.value.load(Ordering::Relaxed));
            let nanos = self.timestamp.load(Ordering::Relaxed) as i64;
            fence(Ordering::Acquire);
            if self.sequence.load(Ordering::Relaxed) != before {
                continue;
            }
            // A consistent copy is a writer's checked labels; the check keeps any broken
            // invariant a contended read rather than a malformed one.
            if !LabelPairs::is_well_formed(&buffer.bytes[..len]) {
                continue;
            }
            buffer.len = len;
            buffer.value = value;
            buffer.timestamp = nanos;
            return ExemplarRead::Exemplar(buffer.view());
        }
        ExemplarRead::Contended
    }
}

/// One turn of a read waiting out a writer.
fn pause() {
    #[cfg(loom)]
    loom::thread::yield_now();
    #[cfg(not(loom))]
    std::hint::spin_loop();
}

/// An exemplar's labels once checked: the caller's pairs as they are (with the bytes their
/// stored form takes), or a layout already made.
#[derive(Clone, Copy, Debug)]
pub(crate) enum CheckedLabels<'a> {
    /// Pairs checked in place; copied into a slot pair by pair.
    Pairs {
        pairs: &'a [(&'a str, &'a str)],
        bytes: usize,
    },
    /// A stored form, copied into a slot as it is.
    Encoded(&'a EncodedLabels),
}

/// Checks `labels` and hands them to `store`, or returns the rule they break, counted in
/// [`rejected_exemplars`](crate::exemplar::rejected_exemplars). Slices and arrays are checked in place,
/// [`EncodedLabels`] not at all (they were checked when built); other label types are laid
/// out on the stack first.
pub(crate) fn with_checked<R>(
    labels: &(impl ExemplarLabels + ?Sized),
    store: impl FnOnce(CheckedLabels<'_>) -> R,
) -> Result<R, ExemplarError> {
    if let Some(encoded) = labels.as_checked() {
        return Ok(store(CheckedLabels::Encoded(encoded)));
    }
    if let Some(pairs) = labels.as_pairs() {
        let bytes = check_pairs(pairs).inspect_err(|_| count_rejected())?;
        return Ok(store(CheckedLabels::Pairs { pairs, bytes }));
    }
    let mut encoded = EncodedLabels::new();
    labels
        .encode_exemplar_labels(&mut encoded)
        .inspect_err(|_| count_rejected())?;
    Ok(store(CheckedLabels::Encoded(&encoded)))
}

/// Packs bytes into a slot's label words, 8 a word (little-endian), as they come: whole
/// 8-byte loads shifted into place, so copying a label costs a few word operations rather
/// than a `memmove` call per piece.
struct WordWriter<'s> {
    words: std::slice::Iter<'s, AtomicU64>,
    /// The bytes not stored yet, in the low `filled` bytes.
    pending: u64,
    filled: u32,
}

impl<'s> WordWriter<'s> {
    fn new(words: &'s [AtomicU64]) -> Self {
        Self {
            words: words.iter(),
            pending: 0,
            filled: 0,
        }
    }

    /// Appends `bytes`. Checked labels fit the slot; past its last word the rest is dropped
    /// (and the read's well-formedness check would refuse the copy) rather than a panic.
    fn push(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let Ok(chunk) = <[u8; 8]>::try_from(chunk) else {
                continue;
            };
            let word = u64::from_le_bytes(chunk);
            if self.filled == 0 {
                self.store(word);
            } else {
                let shift = 8 * self.filled;
                self.store(self.pending | (word << shift));
                self.pending = word >> (64 - shift);
            }
        }
        for &byte in chunks.remainder() {
            self.pending |= u64::from(byte) << (8 * self.filled);
            self.filled += 1;
            if self.filled == 8 {
                self.store(self.pending);
                self.pending = 0;
                self.filled = 0;
            }
        }
    }

    fn store(&mut self, word: u64) {
        if let Some(cell) = self.words.next() {
            cell.store(word, Ordering::Relaxed);
        }
    }

    /// Stores the last, partly filled word.
    fn finish(mut self) {
        if self.filled > 0 {
            self.store(self.pending);
        }
    }
}
