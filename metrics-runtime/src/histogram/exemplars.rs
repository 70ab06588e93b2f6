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

use crate::exemplar::{
    epoch_nanos, with_checked, CheckedLabels, ExemplarBuffer, ExemplarError, ExemplarLabels,
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

    fn store(&self, labels: CheckedLabels<'_>, value: f64, nanos: i64) {
        let turn = self.next.fetch_add(1, Ordering::Relaxed);
        if let Some(slot) = self.slots.get(turn % NATIVE_EXEMPLARS) {
            // A writer still in this slot a whole ring ago: it keeps it, and the drop is
            // counted by the slot.
            let _ = slot.store(labels, value, nanos);
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
            let nanos = epoch_nanos(timestamp);
            if let Some(ring) = &self.native {
                ring.get_or_init(|| Box::new(NativeRing::new()))
                    .store(labels, value, nanos);
            }
            match self.buckets.allocated().get(bucket) {
                Some(slot) => slot.store(labels, value, nanos),
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
