//! [`ExemplarSlots`]: a series' exemplar slots, allocated on its first exemplar;
//! [`ExemplarCell`]: the one slot of a counter, likewise.

use std::sync::OnceLock;
use std::time::SystemTime;

use super::labels::ExemplarLabels;
use super::read::{ExemplarBuffer, ExemplarRead};
use super::rules::{count_rejected, ExemplarError};
use super::slot::{with_checked, ExemplarSlot};
use super::timestamp::epoch_nanos;

/// The exemplar slots of one series: one for a counter, one per bucket for a histogram.
///
/// A series that never gets an exemplar holds a pointer and a length, and a record without an
/// exemplar never touches them. The first exemplar allocates every slot at once (one
/// allocation per series, ever); from then on recording and reading allocate nothing.
#[derive(Debug)]
pub struct ExemplarSlots {
    slots: OnceLock<Box<[ExemplarSlot]>>,
    len: usize,
}

impl ExemplarSlots {
    /// `len` slots, none allocated yet.
    pub const fn new(len: usize) -> Self {
        Self {
            slots: OnceLock::new(),
            len,
        }
    }

    /// The one slot of a counter.
    pub const fn single() -> Self {
        Self::new(1)
    }

    /// How many slots there are (allocated or not).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no slots at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether an exemplar was ever offered, so the slots exist: a scrape that finds none
    /// skips every read.
    pub fn is_allocated(&self) -> bool {
        self.slots.get().is_some()
    }

    /// Checks `labels` and makes them the exemplar of slot `index` (a bucket's index, 0 for a
    /// counter) with `value` at `timestamp` (now when `None`). See [`ExemplarSlot::record`];
    /// an `index` past the slots is [`ExemplarError::NoSuchSlot`], counted as rejected.
    pub fn record(
        &self,
        index: usize,
        labels: &(impl ExemplarLabels + ?Sized),
        value: f64,
        timestamp: Option<SystemTime>,
    ) -> Result<(), ExemplarError> {
        if index >= self.len {
            count_rejected();
            return Err(ExemplarError::NoSuchSlot);
        }
        // Checked before the slots are allocated: a refused exemplar allocates nothing.
        with_checked(labels, |labels| match self.allocated().get(index) {
            Some(slot) => slot.store(labels, value, epoch_nanos(timestamp)),
            None => Err(ExemplarError::NoSuchSlot),
        })?
    }

    /// The slot `index`, if the slots are allocated.
    pub fn get(&self, index: usize) -> Option<&ExemplarSlot> {
        self.slots.get()?.get(index)
    }

    /// Reads slot `index` into `buffer` ([`ExemplarSlot::read`]); `Empty` when the slots are
    /// not allocated or `index` is past them.
    pub fn read<'b>(&self, index: usize, buffer: &'b mut ExemplarBuffer) -> ExemplarRead<'b> {
        match self.get(index) {
            Some(slot) => slot.read(buffer),
            None => ExemplarRead::Empty,
        }
    }

    /// The slots, allocated on the first call.
    pub(crate) fn allocated(&self) -> &[ExemplarSlot] {
        self.slots
            .get_or_init(|| (0..self.len).map(|_| ExemplarSlot::new()).collect())
    }
}

/// The one exemplar slot of a counter, allocated on its first exemplar: a pointer and the
/// state of its one-time initialisation (16 bytes), where [`ExemplarSlots`] adds a length a
/// counter does not need. Every counter series carries one, so the 8 bytes count.
#[derive(Debug)]
pub(crate) struct ExemplarCell {
    slot: OnceLock<Box<ExemplarSlot>>,
}

impl ExemplarCell {
    /// The slot, not allocated yet.
    pub(crate) const fn new() -> Self {
        ExemplarCell {
            slot: OnceLock::new(),
        }
    }

    /// Checks `labels` and makes them the exemplar with `value` at `timestamp` (now when
    /// `None`), as [`ExemplarSlot::record`] does; a refused exemplar allocates nothing.
    pub(crate) fn record(
        &self,
        labels: &(impl ExemplarLabels + ?Sized),
        value: f64,
        timestamp: Option<SystemTime>,
    ) -> Result<(), ExemplarError> {
        with_checked(labels, |labels| {
            self.slot
                .get_or_init(|| Box::new(ExemplarSlot::new()))
                .store(labels, value, epoch_nanos(timestamp))
        })?
    }

    /// Reads the exemplar into `buffer`; `Empty` before the first.
    pub(crate) fn read<'b>(&self, buffer: &'b mut ExemplarBuffer) -> ExemplarRead<'b> {
        match self.slot.get() {
            Some(slot) => slot.read(buffer),
            None => ExemplarRead::Empty,
        }
    }
}
