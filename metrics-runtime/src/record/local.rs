//! Request-local recording: single-owner views of a [`Histogram`] or [`Counter`] that record
//! with plain arithmetic and merge into the shared series in one step.
//!
//! A shared handle pays at least one locked instruction per record (a histogram two: the
//! bucket's `fetch_add` and the sum's compare-and-swap). A request that records an
//! inter-token latency per output pays that on every token. A local view owned by the request
//! instead appends to a buffer in the request's own memory and merges the buffer into the
//! shared series:
//!
//! * every `interval` records (at most [`HistogramBuffer::CAPACITY`] for a histogram), which
//!   bounds how far a scrape can lag behind the request;
//! * on [`flush`](LocalHistogram::flush);
//! * when the view is dropped (end of scope, early return, panic unwinding, a cancelled
//!   task), so nothing recorded is lost on any path but process death.
//!
//! # What a scrape sees
//!
//! A scrape sees everything merged so far and nothing of a view's pending records: mid-request
//! it lags by at most `interval - 1` records per open view. A histogram merge adds the batch's
//! bucket counts first, then its sum; `_count` is not stored but derived from the buckets when
//! encoding, so every scrape, even one that runs in the middle of a merge, sees
//! `_count` = `+Inf` = the sum of the buckets. A scrape racing a merge may see part of the
//! batch's observations in the buckets, each counted whole, and `_sum` with or without the
//! batch (exactly as with concurrent [`Histogram::observe`] calls); the next scrape after the
//! merge sees all of it.
//!
//! A histogram merge costs one locked instruction for the whole batch: a compare-and-swap
//! takes the merge flag of the thread's shard, after which only this merge writes the shard's
//! merge cells, so the batch's per-bucket counts and its sum are added with plain loads and
//! stores (a merge that finds the flag taken adds with `fetch_add`s instead; nobody waits).
//! The batch's values are added to `_sum` in their original order, so a merged batch is
//! byte-identical to observing the same values one by one.
//!
//! ```
//! use metric_handles::{Counter, Histogram, Local};
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
//! [`Counter`]: crate::Counter

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

use crate::{Counter, Histogram};

/// Records buffered per local view before it merges, unless a shorter interval is asked for.
/// vLLM's Rust frontend merges a request's inter-token latencies every 32 generated tokens by
/// default (`VLLM_RS_ITL_FLUSH_INTERVAL_TOKENS`, vLLM pull request 57582).
pub const DEFAULT_FLUSH_INTERVAL: usize = 32;

/// Makes a view `!Sync` (it is `&mut`-only anyway) while keeping it `Send`, so a request task
/// can own it across `.await` points and threads.
type SingleOwner = PhantomData<Cell<()>>;

/// Observations recorded locally and not yet merged into a [`Histogram`]: the values
/// themselves, in order, at most [`CAPACITY`](Self::CAPACITY) of them. No allocation: the
/// buffer is a fixed array that lives wherever its owner does.
///
/// This is the building block of [`LocalHistogram`], for owners that cannot borrow the
/// histogram for their whole life (a struct that holds both the handles and the pending
/// records): [`push`](Self::push) records, [`Histogram::merge`] merges and clears.
///
/// ```
/// use metric_handles::{Histogram, HistogramBuffer};
///
/// let h = Histogram::new([1.0]);
/// let mut pending = HistogramBuffer::new();
/// assert!(pending.push(0.5));
/// h.merge(&mut pending);
/// assert!(pending.is_empty());
/// assert_eq!(h.snapshot().count(), 1);
/// ```
#[derive(Clone)]
pub struct HistogramBuffer {
    values: [f64; HistogramBuffer::CAPACITY],
    len: usize,
}

impl HistogramBuffer {
    /// The most observations a buffer holds.
    pub const CAPACITY: usize = DEFAULT_FLUSH_INTERVAL;

    /// An empty buffer.
    pub const fn new() -> Self {
        HistogramBuffer {
            values: [0.0; Self::CAPACITY],
            len: 0,
        }
    }

    /// Appends one observation. Returns `false`, recording nothing, when the buffer is full:
    /// merge it first (a caller that merges whenever [`is_full`](Self::is_full) never sees
    /// `false`).
    #[inline]
    #[must_use = "a full buffer records nothing: merge it and push again"]
    pub fn push(&mut self, value: f64) -> bool {
        match self.values.get_mut(self.len) {
            Some(slot) => {
                *slot = value;
                self.len += 1;
                true
            }
            None => false,
        }
    }

    /// The observations not merged yet, in the order they were recorded.
    pub fn values(&self) -> &[f64] {
        self.values.get(..self.len).unwrap_or(&[])
    }

    /// How many observations are pending.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the buffer holds [`CAPACITY`](Self::CAPACITY) observations.
    pub fn is_full(&self) -> bool {
        self.len >= Self::CAPACITY
    }

    /// Forgets the pending observations (after a merge).
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }
}

impl Default for HistogramBuffer {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for HistogramBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HistogramBuffer")
            .field("pending", &self.values())
            .finish()
    }
}

/// A request-local view of a [`Histogram`]: [`observe`](Self::observe) is a store into the
/// view's own buffer, merged into the histogram every `interval` observations, on
/// [`flush`](Self::flush) and on drop. A scrape sees everything merged so far and none of the
/// view's pending observations (at most `interval - 1`); `_count` = `+Inf` = the sum of the
/// buckets in every scrape, and one that races a merge may see `_sum` with or without the batch.
///
/// Single-owner: `Send` but not `Sync`, and recording takes `&mut self`. Obtained with
/// [`Histogram::local`] (or [`Local::local`]), so every histogram handle the derive generates
/// has one without any declaration.
pub struct LocalHistogram<'a> {
    histogram: &'a Histogram,
    pending: HistogramBuffer,
    interval: usize,
    _single_owner: SingleOwner,
}

impl<'a> LocalHistogram<'a> {
    pub(crate) fn new(histogram: &'a Histogram, interval: usize) -> Self {
        LocalHistogram {
            histogram,
            pending: HistogramBuffer::new(),
            interval: interval.clamp(1, HistogramBuffer::CAPACITY),
            _single_owner: PhantomData,
        }
    }

    /// Records one observation locally; merges when `interval` observations are pending.
    #[inline]
    pub fn observe(&mut self, value: f64) {
        // Never full here: the buffer is merged as soon as it holds `interval` (at most its
        // capacity) observations. Were it full, the value is merged directly rather than lost.
        if !self.pending.push(value) {
            self.flush();
            let _ = self.pending.push(value);
        }
        if self.pending.len() >= self.interval {
            self.flush();
        }
    }

    /// Merges the pending observations into the histogram now. Merging nothing touches
    /// nothing.
    #[inline]
    pub fn flush(&mut self) {
        if !self.pending.is_empty() {
            self.histogram.merge(&mut self.pending);
        }
    }

    /// Observations recorded but not merged yet.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Observations per automatic merge.
    pub fn interval(&self) -> usize {
        self.interval
    }

    /// The shared histogram this view merges into.
    pub fn histogram(&self) -> &'a Histogram {
        self.histogram
    }
}

impl Drop for LocalHistogram<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

impl fmt::Debug for LocalHistogram<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalHistogram")
            .field("pending", &self.pending.values())
            .field("interval", &self.interval)
            .finish()
    }
}

/// A request-local view of a `u64` [`Counter`]: increments add to a plain integer, merged into
/// the counter (one [`Counter::inc_by`]: saturating, and a single `fetch_add` for a total up
/// to 2^24) every `interval` increments, on [`flush`](Self::flush) and on drop.
///
/// Single-owner: `Send` but not `Sync`, and recording takes `&mut self`. Obtained with
/// [`Local::local`] on any counter handle.
pub struct LocalCounter<'a> {
    counter: &'a Counter,
    pending: u64,
    records: usize,
    interval: usize,
    _single_owner: SingleOwner,
}

impl<'a> LocalCounter<'a> {
    fn new(counter: &'a Counter, interval: usize) -> Self {
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
    pub fn counter(&self) -> &'a Counter {
        self.counter
    }
}

impl Drop for LocalCounter<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

impl fmt::Debug for LocalCounter<'_> {
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
    /// The view.
    type View<'a>
    where
        Self: 'a;

    /// A local view merging every [`DEFAULT_FLUSH_INTERVAL`] records.
    fn local(&self) -> Self::View<'_> {
        self.local_with_interval(DEFAULT_FLUSH_INTERVAL)
    }

    /// A local view merging every `interval` records: clamped to at least 1 (1 merges every
    /// record) and, for a histogram, to at most [`HistogramBuffer::CAPACITY`].
    fn local_with_interval(&self, interval: usize) -> Self::View<'_>;
}

impl Local for Histogram {
    type View<'a> = LocalHistogram<'a>;

    fn local_with_interval(&self, interval: usize) -> LocalHistogram<'_> {
        LocalHistogram::new(self, interval)
    }
}

impl Local for Counter {
    type View<'a> = LocalCounter<'a>;

    fn local_with_interval(&self, interval: usize) -> LocalCounter<'_> {
        LocalCounter::new(self, interval)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS: [f64; 3] = [0.1, 0.5, 1.0];

    fn assert_send<T: Send>() {}

    #[test]
    fn views_are_send() {
        assert_send::<LocalHistogram<'static>>();
        assert_send::<LocalCounter<'static>>();
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
        near_the_top.inc_by(crate::record::counter::saturating::SATURATED - 1000);
        merge_3s(&near_the_top);
        assert_eq!(near_the_top.get(), u64::MAX);
        let exact = Counter::default();
        merge_3s(&exact);
        assert_eq!(exact.get(), 12_000);
    }
}
