//! A histogram's exemplars: the latest per classic bucket (the bucket its value falls in), and
//! for a histogram with native buckets the most recent few in a ring.
//!
//! # Classic buckets
//!
//! One [`ExemplarSlot`] per bucket, `+Inf` included, allocated on the histogram's first
//! exemplar: OpenMetrics text writes each on its bucket's line, and the protobuf format in
//! `Bucket.exemplar`. A later exemplar in the same bucket replaces the earlier one.
//!
//! # Native buckets
//!
//! A native bucket has no line of its own to carry an exemplar: the protobuf format carries a
//! native histogram's exemplars as a list beside the buckets (`Histogram.exemplars` in
//! prometheus/client_model `metrics.proto`). client_golang keeps up to 10 there by default
//! (`NativeHistogramMaxExemplars`, `prometheus/histogram.go`), under a mutex, replacing the
//! oldest past a time-to-live or else the one whose value lies closest to a neighbour's. Here
//! a ring of [`NATIVE_EXEMPLARS`] slots keeps the most recent ones: each exemplar takes the
//! next slot with one `fetch_add` on the ring's cursor and overwrites what was there. No lock,
//! and no choice to make on the record path; the price is that a burst of exemplars in one
//! range of values can push every older one out (client_golang's spread rule would keep some).
//! For "which trace made this latency", the most recent ones are what a reader asks for.
//!
//! A histogram with native buckets records each exemplar in both: its classic bucket's slot
//! (a native-only histogram has one classic bucket, `+Inf`, so text scrapes still see the
//! latest exemplar) and the ring.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::SystemTime;

use super::observe::Histogram;
use crate::record::exemplar::{
    epoch_seconds, with_checked, CheckedLabels, ExemplarBuffer, ExemplarError, ExemplarLabels,
    ExemplarSlot, ExemplarSlots, ExemplarView,
};

/// The exemplars a histogram with native buckets keeps for them: the most recent ones, as
/// many as client_golang keeps by default (`NativeHistogramMaxExemplars`).
pub const NATIVE_EXEMPLARS: usize = 10;

/// The exemplar slots of one histogram (see the module documentation).
#[derive(Debug)]
pub(super) struct HistogramExemplars {
    /// One per classic bucket, `+Inf` last.
    buckets: ExemplarSlots,
    /// The native buckets' ring, for a histogram that has them; allocated on its first
    /// exemplar.
    native: Option<OnceLock<Box<NativeRing>>>,
}

/// The most recent exemplars of a native histogram.
#[derive(Debug)]
struct NativeRing {
    /// How many exemplars were ever written: the next one takes slot `next % NATIVE_EXEMPLARS`.
    next: AtomicUsize,
    slots: [ExemplarSlot; NATIVE_EXEMPLARS],
}

impl NativeRing {
    fn new() -> Self {
        Self {
            next: AtomicUsize::new(0),
            slots: std::array::from_fn(|_| ExemplarSlot::new()),
        }
    }

    fn store(&self, labels: CheckedLabels<'_>, value: f64, seconds: f64) {
        let turn = self.next.fetch_add(1, Ordering::Relaxed);
        if let Some(slot) = self.slots.get(turn % NATIVE_EXEMPLARS) {
            // A writer still in this slot a whole ring ago: it keeps it, and the drop is
            // counted by the slot.
            let _ = slot.store(labels, value, seconds);
        }
    }

    #[cfg_attr(not(test), allow(dead_code))]
    /// The slots oldest first: from the one the next exemplar overwrites.
    fn oldest_first(&self) -> impl Iterator<Item = &ExemplarSlot> {
        let start = self.next.load(Ordering::Relaxed) % NATIVE_EXEMPLARS;
        self.slots[start..].iter().chain(&self.slots[..start])
    }
}

impl HistogramExemplars {
    /// Slots for `buckets` classic buckets (`+Inf` included) and, with `native`, the ring.
    pub(super) fn new(buckets: usize, native: bool) -> Self {
        Self {
            buckets: ExemplarSlots::new(buckets),
            native: native.then(OnceLock::new),
        }
    }

    /// Checks `labels` and makes them, with `value` at `timestamp` (now when `None`), the
    /// exemplar of classic bucket `bucket` and the newest of the native ring.
    pub(super) fn record(
        &self,
        bucket: usize,
        labels: &(impl ExemplarLabels + ?Sized),
        value: f64,
        timestamp: Option<SystemTime>,
    ) -> Result<(), ExemplarError> {
        with_checked(labels, |labels| {
            let seconds = epoch_seconds(timestamp);
            if let Some(ring) = &self.native {
                ring.get_or_init(|| Box::new(NativeRing::new()))
                    .store(labels, value, seconds);
            }
            match self.buckets.allocated().get(bucket) {
                Some(slot) => slot.store(labels, value, seconds),
                None => Err(ExemplarError::NoSuchSlot),
            }
        })?
    }

    /// Whether any exemplar was ever recorded: a scrape that finds none reads no slot.
    pub(super) fn any(&self) -> bool {
        self.buckets.is_allocated()
    }

    /// The latest exemplar of classic bucket `bucket` (`+Inf` last), copied into `buffer`.
    pub(super) fn bucket<'b>(
        &self,
        bucket: usize,
        buffer: &'b mut ExemplarBuffer,
    ) -> Option<ExemplarView<'b>> {
        self.buckets.read(bucket, buffer).exemplar()
    }

    #[cfg_attr(not(test), allow(dead_code))]
    /// Calls `each` with every exemplar of the native ring, oldest first (by when each took
    /// its slot), each copied into `buffer` in turn.
    pub(super) fn native(
        &self,
        buffer: &mut ExemplarBuffer,
        mut each: impl FnMut(ExemplarView<'_>),
    ) {
        let Some(ring) = self.native.as_ref().and_then(OnceLock::get) else {
            return;
        };
        for slot in ring.oldest_first() {
            if let Some(view) = slot.read(buffer).exemplar() {
                each(view);
            }
        }
    }
}

impl Histogram {
    /// Records one observation, as [`observe`](Self::observe), and makes `labels` (a trace id,
    /// say) the exemplar of the bucket it falls in, with `value` and the time now. With native
    /// buckets, the exemplar also joins the most recent [`NATIVE_EXEMPLARS`].
    ///
    /// `labels` is a slice or array of `(name, value)` pairs, [`EncodedLabels`] checked once
    /// for many records, or any [`LabelSet`](crate::LabelSet). The observation is recorded
    /// whatever happens to the exemplar; an exemplar that breaks a rule (more than 128
    /// characters, a bad or repeated label name) is refused with the error and counted in
    /// [`rejected_exemplars`](crate::rejected_exemplars), one that meets another write to the
    /// same slot is dropped and counted in [`dropped_exemplars`](crate::dropped_exemplars).
    /// Lock-free; allocates once per histogram, on its first exemplar.
    ///
    /// ```
    /// use metric_handles::Histogram;
    ///
    /// let latency = Histogram::new([0.1, 0.5, 1.0]);
    /// latency.observe_with_exemplar(0.3, &[("trace_id", "3a2f90c9f80b894f")])?;
    /// assert_eq!(latency.snapshot().count(), 1);
    /// # Ok::<(), metric_handles::ExemplarError>(())
    /// ```
    ///
    /// [`EncodedLabels`]: crate::EncodedLabels
    #[inline]
    pub fn observe_with_exemplar(
        &self,
        value: f64,
        labels: &(impl ExemplarLabels + ?Sized),
    ) -> Result<(), ExemplarError> {
        let bucket = self.observe_in_bucket(value);
        self.core.exemplars.record(bucket, labels, value, None)
    }

    /// [`observe_with_exemplar`](Self::observe_with_exemplar) with the exemplar stamped `at`
    /// instead of now: a caller that has just read the clock (to time what it observes) saves
    /// a second read.
    #[inline]
    pub fn observe_with_exemplar_at(
        &self,
        value: f64,
        labels: &(impl ExemplarLabels + ?Sized),
        at: SystemTime,
    ) -> Result<(), ExemplarError> {
        let bucket = self.observe_in_bucket(value);
        self.core.exemplars.record(bucket, labels, value, Some(at))
    }

    /// Makes `labels` the exemplar of the bucket `value` falls in without observing it: the
    /// request-local view (and vLLM's request tracker) counts its observations itself.
    pub(crate) fn exemplar_only(
        &self,
        value: f64,
        labels: &(impl ExemplarLabels + ?Sized),
        at: Option<SystemTime>,
    ) -> Result<(), ExemplarError> {
        self.core
            .exemplars
            .record(self.bucket_of(value), labels, value, at)
    }

    /// Whether an exemplar was ever recorded into this histogram: a scrape that finds none
    /// reads no slot.
    pub(crate) fn has_exemplars(&self) -> bool {
        self.core.exemplars.any()
    }

    /// The latest exemplar of classic bucket `bucket` (`0..=bounds().len()`, `+Inf` last),
    /// copied into `buffer`: its labels, value and timestamp. `None` when the bucket never had
    /// one, or writers kept changing it while it was copied (the next scrape reads it again).
    /// Allocates nothing.
    pub(crate) fn bucket_exemplar<'b>(
        &self,
        bucket: usize,
        buffer: &'b mut ExemplarBuffer,
    ) -> Option<ExemplarView<'b>> {
        self.core.exemplars.bucket(bucket, buffer)
    }

    /// Calls `each` with the most recent exemplars of the native buckets (up to
    /// [`NATIVE_EXEMPLARS`]), oldest first, each copied into `buffer` in turn: what the
    /// protobuf format carries in `Histogram.exemplars`. Nothing for a histogram without
    /// native buckets or before its first exemplar. Allocates nothing.
    ///
    /// The order is the order in which exemplars took their slots; two writers racing can
    /// store theirs in the other order, so a consumer that needs timestamps in order sorts.
    // For the protobuf encoder (`Histogram.exemplars`): the text formats have no place for a
    // native histogram's exemplars, so until that encoder reads them only the tests do.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn native_exemplars(
        &self,
        buffer: &mut ExemplarBuffer,
        each: impl FnMut(ExemplarView<'_>),
    ) {
        self.core.exemplars.native(buffer, each)
    }
}
