//! Request-local recording: single-owner views of a [`Histogram`] or [`Counter`] that record
//! with plain arithmetic and merge into the shared series in one step.
//!
//! A shared handle pays at least one locked instruction per record (a histogram two: the
//! bucket's `fetch_add` and the sum's compare-and-swap). A request that records an
//! inter-token latency per output pays that on every token. A local view owned by the request
//! instead appends to a buffer in the request's own memory and merges the buffer into the
//! shared series:
//!
//! * every `interval` records (at most [`HistogramBuffer::CAPACITY`](crate::histogram::HistogramBuffer::CAPACITY) for a histogram), which
//!   bounds how far a scrape can lag behind the request;
//! * on [`flush`](LocalHistogram::flush);
//! * when the view is dropped (end of scope, early return, panic unwinding, a cancelled
//!   task), so nothing recorded is lost on any path but process death.
//!
//! # What a scrape sees
//!
//! A scrape sees everything merged so far and nothing of a view's pending records: mid-request
//! it lags by at most `interval - 1` records per open view. A histogram merge counts its batch
//! as started, then adds the sum and last the bucket counts, and a scrape reads only records
//! that have finished (the histogram's hot and cold halves), so every scrape sees a merged
//! batch whole or not at all, with `_sum`, `_count` and the buckets in agreement.
//!
//! A histogram merge costs two locked instructions for the whole batch: a compare-and-swap
//! takes the merge flag of the thread's shard and a `fetch_add` counts the batch as started,
//! after which only this merge writes the shard's
//! merge cells, so the batch's per-bucket counts and its sum are added with plain loads and
//! stores (a merge that finds the flag taken adds with `fetch_add`s instead; nobody waits).
//! The batch's values are added to `_sum` in their original order, so a merged batch is
//! byte-identical to observing the same values one by one.
//!
//! ```
//! use metric_handles::{Counter, Histogram};
//! use metric_handles::local::Local;
//!
//! let itl = Histogram::new([0.01, 0.1, 1.0]);
//! let tokens = Counter::default();
//! {
//!     let mut request_itl = itl.local();
//!     let mut request_tokens = tokens.local();
//!     for gap in [0.02, 0.03, 0.5] {
//!         request_itl.observe(gap);
//!         request_tokens.inc();
//!     }
//!     assert_eq!(request_itl.pending(), 3);
//!     assert_eq!(itl.snapshot().count(), 0); // not merged yet
//! } // dropped: merged
//! assert_eq!(itl.snapshot().count(), 3);
//! assert_eq!(tokens.get(), 3);
//! ```
//!
//! A view owns a clone of the handle it merges into (a reference count, not a borrow), so
//! it can sit in one struct with the handles, move into a task, or outlive the scope that
//! created it. The histogram's view is `histogram.rs` of this folder; the buffer it merges,
//! [`HistogramBuffer`](crate::histogram::HistogramBuffer), sits with `Histogram::merge`.
//!
//! [`Counter`]: crate::Counter

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

use crate::counter::Counter;
use crate::histogram::Histogram;

mod histogram;

pub use histogram::{LocalHistogram, DEFAULT_FLUSH_INTERVAL};

/// Makes a view `!Sync` (it is `&mut`-only anyway) while keeping it `Send`, so a request task
/// can own it across `.await` points and threads.
type SingleOwner = PhantomData<Cell<()>>;

/// A request-local view of a `u64` [`Counter`]: increments add to a plain integer, merged into
/// the counter (one [`Counter::inc_by`]: saturating, and a single `fetch_add` for a total up
/// to 2^24) every `interval` increments, on [`flush`](Self::flush) and on drop.
///
/// Single-owner: `Send` but not `Sync`, and recording takes `&mut self`. The view holds a
/// clone of the counter handle. Obtained with [`Local::local`] on any counter handle.
pub struct LocalCounter {
    counter: Counter,
    pending: u64,
    records: usize,
    interval: usize,
    _single_owner: SingleOwner,
}

impl LocalCounter {
    fn new(counter: Counter, interval: usize) -> Self {
        LocalCounter {
            counter,
            pending: 0,
            records: 0,
            interval: interval.max(1),
            _single_owner: PhantomData,
        }
    }

    /// Adds one.
    #[inline]
    pub fn inc(&mut self) {
        self.inc_by(1);
    }

    /// Adds `delta` locally (saturating at `u64::MAX`); merges when `interval` increments are
    /// pending.
    #[inline]
    pub fn inc_by(&mut self, delta: u64) {
        self.pending = self.pending.saturating_add(delta);
        self.records += 1;
        if self.records >= self.interval {
            self.flush();
        }
    }

    /// Merges the pending total into the counter now. Merging nothing touches nothing.
    #[inline]
    pub fn flush(&mut self) {
        self.counter.inc_by(self.pending);
        self.pending = 0;
        self.records = 0;
    }

    /// The total added locally and not merged yet.
    pub fn pending(&self) -> u64 {
        self.pending
    }

    /// Increments per automatic merge.
    pub fn interval(&self) -> usize {
        self.interval
    }

    /// The shared counter this view merges into.
    pub fn counter(&self) -> &Counter {
        &self.counter
    }
}

impl Drop for LocalCounter {
    fn drop(&mut self) {
        self.flush();
    }
}

impl fmt::Debug for LocalCounter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalCounter")
            .field("pending", &self.pending)
            .field("interval", &self.interval)
            .finish()
    }
}

/// Handles that have a request-local view: [`Histogram`] and the `u64` [`Counter`], so
/// `handles.field.local()` works on every such field of a derive-generated handle struct.
pub trait Local {
    /// The view. It holds a clone of the handle, so it borrows nothing.
    type View;

    /// A local view merging every [`DEFAULT_FLUSH_INTERVAL`] records.
    fn local(&self) -> Self::View {
        self.local_with_interval(DEFAULT_FLUSH_INTERVAL)
    }

    /// A local view merging every `interval` records: clamped to at least 1 (1 merges every
    /// record) and, for a histogram, to at most [`HistogramBuffer::CAPACITY`](crate::histogram::HistogramBuffer::CAPACITY).
    fn local_with_interval(&self, interval: usize) -> Self::View;
}

impl Local for Histogram {
    type View = LocalHistogram;

    fn local_with_interval(&self, interval: usize) -> LocalHistogram {
        Histogram::local_with_interval(self, interval)
    }
}

impl Local for Counter {
    type View = LocalCounter;

    fn local_with_interval(&self, interval: usize) -> LocalCounter {
        LocalCounter::new(self.clone(), interval)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::histogram::HistogramBuffer;

    const BOUNDS: [f64; 3] = [0.1, 0.5, 1.0];

    fn assert_send<T: Send>() {}

    #[test]
    fn views_are_send() {
        assert_send::<LocalHistogram>();
        assert_send::<LocalCounter>();
    }

    #[test]
    fn a_view_merges_every_interval_and_on_drop() {
        let h = Histogram::new(BOUNDS);
        {
            let mut local = h.local_with_interval(4);
            for i in 0..10 {
                local.observe(f64::from(i) * 0.1);
                assert_eq!(h.snapshot().count(), (i as u64 + 1) / 4 * 4);
                assert_eq!(local.pending(), (i as usize + 1) % 4);
            }
        }
        assert_eq!(h.snapshot().count(), 10);
    }

    #[test]
    fn merging_is_observing_the_same_values_one_by_one() {
        let values: Vec<f64> = (0..200)
            .map(|i| (f64::from(i) * 0.037).sin().abs() * 1.3)
            .chain([f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, -2.5])
            .chain([-f64::NAN, 5e-324, 1.0, 1.0f64.next_up(), 0.5f64.next_down()])
            .collect();
        // The batch search is a lookup table for bounds like vLLM's, a linear count for the
        // others: both must agree with `observe`.
        let bounds: [&[f64]; 2] = [&BOUNDS, &[-1.0, 0.0, 0.5, 1.0]];
        for (interval, bounds) in [1, 3, 7, 32]
            .into_iter()
            .flat_map(|i| bounds.map(|b| (i, b)))
        {
            let direct = Histogram::new(bounds.iter().copied());
            let merged = Histogram::new(bounds.iter().copied());
            let mut local = merged.local_with_interval(interval);
            for &v in &values {
                direct.observe(v);
                local.observe(v);
            }
            drop(local);
            // The sums are compared bit for bit: same values, same order, same rounding.
            assert_eq!(
                merged.snapshot().sum().to_bits(),
                direct.snapshot().sum().to_bits()
            );
            assert_eq!(merged.snapshot(), direct.snapshot(), "interval {interval}");
        }
    }

    #[test]
    fn the_sum_still_saturates_within_a_batch() {
        let h = Histogram::new(BOUNDS);
        let mut local = h.local();
        for v in [f64::MAX, f64::MAX, -f64::MAX] {
            local.observe(v);
        }
        local.flush();
        // Sequentially: MAX, then saturated MAX, then MAX - MAX = 0.
        assert_eq!(h.snapshot().sum(), 0.0);
        assert_eq!(h.snapshot().count(), 3);
    }

    #[test]
    fn an_interval_counted_in_units_merges_when_they_reach_it_or_the_buffer_fills() {
        let h = Histogram::new(BOUNDS);
        let mut local = h.local_with_interval(8);
        // Units without an observation count; the merge starts the next interval.
        assert!(!local.observe_counting(None, 7));
        assert!(local.observe_counting(Some(0.5), 1));
        assert_eq!((local.pending(), h.snapshot().count()), (0, 1));
        // Nothing pending: reaching the interval merges nothing.
        assert!(!local.observe_counting(None, 8));
        // Observations that count no unit: the full buffer merges them, none is lost.
        let mut merges = 0;
        for _ in 0..HistogramBuffer::CAPACITY + 3 {
            merges += usize::from(local.observe_counting(Some(0.5), 0));
        }
        assert_eq!(merges, 1);
        assert_eq!(local.pending(), 3);
        assert!(local.flush());
        assert!(!local.flush());
        assert_eq!(
            h.snapshot().count(),
            1 + HistogramBuffer::CAPACITY as u64 + 3
        );
    }

    #[test]
    fn intervals_are_clamped() {
        let h = Histogram::new(BOUNDS);
        assert_eq!(h.local_with_interval(0).interval(), 1);
        assert_eq!(
            h.local_with_interval(1000).interval(),
            HistogramBuffer::CAPACITY
        );
        let c = Counter::default();
        assert_eq!(c.local_with_interval(0).interval(), 1);
    }

    #[test]
    fn a_full_buffer_refuses_instead_of_overwriting() {
        let mut buffer = HistogramBuffer::new();
        for i in 0..HistogramBuffer::CAPACITY {
            assert!(buffer.push(i as f64));
        }
        assert!(buffer.is_full());
        assert!(!buffer.push(99.0));
        assert_eq!(buffer.values().last(), Some(&31.0));
    }

    #[test]
    fn a_counter_view_merges_every_interval_and_on_drop() {
        let c = Counter::default();
        {
            let mut local = c.local_with_interval(3);
            local.inc_by(5);
            local.inc();
            assert_eq!((c.get(), local.pending()), (0, 6));
            local.inc_by(4);
            assert_eq!((c.get(), local.pending()), (10, 0));
            local.inc_by(7);
        }
        assert_eq!(c.get(), 17);
    }

    #[test]
    fn counters_saturate_locally_and_when_merging() {
        let c = Counter::default();
        c.inc_by(u64::MAX - 3);
        let mut local = c.local();
        local.inc_by(u64::MAX);
        local.inc_by(9);
        assert_eq!(local.pending(), u64::MAX);
        local.flush();
        assert_eq!(c.get(), u64::MAX);
        local.inc_by(1);
        drop(local);
        assert_eq!(c.get(), u64::MAX);
    }

    #[test]
    fn merges_saturate_and_stay_saturated_under_contention() {
        let merge_3s = |c: &Counter| {
            std::thread::scope(|s| {
                for _ in 0..4 {
                    s.spawn(|| {
                        let mut local = c.local_with_interval(1);
                        (0..1000).for_each(|_| local.inc_by(3));
                    });
                }
            });
        };
        let near_the_top = Counter::default();
        near_the_top.inc_by(crate::counter::saturating::SATURATED - 1000);
        merge_3s(&near_the_top);
        assert_eq!(near_the_top.get(), u64::MAX);
        let exact = Counter::default();
        merge_3s(&exact);
        assert_eq!(exact.get(), 12_000);
    }
}
