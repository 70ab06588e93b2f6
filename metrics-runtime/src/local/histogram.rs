//! Request-local views of a [`Histogram`]: observations kept in the owner's memory, in order,
//! and merged into the histogram in one step (see [`Histogram::merge`]). How a view fits the
//! other members' views is told in [`crate::local`].

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;
use std::time::SystemTime;

use crate::exemplar::{ExemplarError, ExemplarLabels};
use crate::histogram::{Histogram, HistogramBuffer};

/// Records buffered per local view before it merges, unless a shorter interval is asked for.
/// vLLM's Rust frontend merges a request's inter-token latencies every 32 generated tokens by
/// default (`VLLM_RS_ITL_FLUSH_INTERVAL_TOKENS`, vLLM pull request 57582).
pub const DEFAULT_FLUSH_INTERVAL: usize = HistogramBuffer::CAPACITY;

/// Makes a view `!Sync` (it is `&mut`-only anyway) while keeping it `Send`, so a request task
/// can own it across `.await` points and threads.
type SingleOwner = PhantomData<Cell<()>>;

/// A request-local view of a [`Histogram`]: [`observe`](Self::observe) is a store into the
/// view's own buffer, merged into the histogram every `interval` observations, on
/// [`flush`](Self::flush) and on drop. A scrape sees everything merged so far and none of the
/// view's pending observations (at most `interval - 1`); a merged batch is in a scrape whole
/// or not at all, `_sum` included.
///
/// Single-owner: `Send` but not `Sync`, and recording takes `&mut self`. The view holds a
/// handle to the histogram (a clone: one reference count, no copy of the cells), so it can live
/// in the same struct as the handles it came from, or be moved into a task, with no lifetime
/// tying it to them. Obtained with [`Histogram::local`] (or
/// [`Local::local`](crate::local::Local::local)), so every histogram handle the derive generates has
/// one without any declaration.
pub struct LocalHistogram {
    histogram: Histogram,
    pending: HistogramBuffer,
    /// What counts towards the interval since the last merge: one per observation, or what
    /// [`observe_counting`](Self::observe_counting) says.
    counted: u64,
    interval: usize,
    _single_owner: SingleOwner,
}

impl LocalHistogram {
    pub(crate) fn new(histogram: Histogram, interval: usize) -> Self {
        LocalHistogram {
            histogram,
            pending: HistogramBuffer::new(),
            counted: 0,
            interval: interval.clamp(1, HistogramBuffer::CAPACITY),
            _single_owner: PhantomData,
        }
    }

    /// Records one observation locally; merges when `interval` observations are pending.
    #[inline]
    pub fn observe(&mut self, value: f64) {
        self.observe_counting(Some(value), 1);
    }

    /// Records `value`, if any, and counts `units` towards the merge interval in place of one
    /// observation: for an interval counted in something other than observations. vLLM merges
    /// a request's inter-token latencies every 32 generated *tokens*, and an output of several
    /// tokens carries one latency (its first output, none). The view merges once the units
    /// since the last merge reach the interval (or its buffer is full: it never holds more than
    /// [`HistogramBuffer::CAPACITY`] observations), and the units count again from 0. Returns
    /// whether it merged observations, so a caller can write the exemplar of the batch (see
    /// [`Histogram::set_exemplar`]).
    ///
    /// ```
    /// use metric_handles::Histogram;
    ///
    /// let itl = Histogram::new([0.01, 0.1]);
    /// let mut request = itl.local_with_interval(32);
    /// assert!(!request.observe_counting(None, 1)); // the first token: no latency yet
    /// assert!(!request.observe_counting(Some(0.02), 30));
    /// assert!(request.observe_counting(Some(0.03), 4)); // 35 tokens: merged
    /// assert_eq!((request.pending(), itl.snapshot().count()), (0, 2));
    /// ```
    #[inline]
    pub fn observe_counting(&mut self, value: Option<f64>, units: u64) -> bool {
        let mut merged = false;
        if let Some(value) = value {
            // Never full here: the buffer is merged as soon as it is. Were it full, the value
            // is merged rather than lost.
            if !self.pending.push(value) {
                merged = self.flush();
                let _ = self.pending.push(value);
            }
        }
        self.counted = self.counted.saturating_add(units);
        if self.counted >= self.interval as u64 || self.pending.is_full() {
            merged |= self.flush();
        }
        merged
    }

    /// Records one observation locally, as [`observe`](Self::observe), and writes its
    /// exemplar straight to the shared histogram's slot for the bucket it falls in (see
    /// [`Histogram::observe_with_exemplar`] for `labels` and the rules). The exemplar is
    /// visible to the next scrape at once, possibly before the observation it came with is
    /// merged: OpenMetrics asks an exemplar to lie within its bucket, not to be counted yet.
    ///
    /// ```
    /// use metric_handles::Histogram;
    ///
    /// let itl = Histogram::new([0.01, 0.1]);
    /// let mut request = itl.local();
    /// request.observe_with_exemplar(0.02, &[("trace_id", "3a2f90c9")])?;
    /// assert_eq!(request.pending(), 1);
    /// # Ok::<(), metric_handles::exemplar::ExemplarError>(())
    /// ```
    #[inline]
    pub fn observe_with_exemplar(
        &mut self,
        value: f64,
        labels: &(impl ExemplarLabels + ?Sized),
    ) -> Result<(), ExemplarError> {
        self.observe(value);
        self.histogram.set_exemplar(value, labels, None)
    }

    /// [`observe_with_exemplar`](Self::observe_with_exemplar) with the exemplar stamped `at`
    /// instead of now.
    #[inline]
    pub fn observe_with_exemplar_at(
        &mut self,
        value: f64,
        labels: &(impl ExemplarLabels + ?Sized),
        at: SystemTime,
    ) -> Result<(), ExemplarError> {
        self.observe(value);
        self.histogram.set_exemplar(value, labels, Some(at))
    }

    /// Merges the pending observations into the histogram now, and starts the next interval;
    /// returns whether there were any. Merging nothing touches nothing.
    #[inline]
    pub fn flush(&mut self) -> bool {
        self.counted = 0;
        if self.pending.is_empty() {
            return false;
        }
        self.histogram.merge(&mut self.pending);
        true
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
    pub fn histogram(&self) -> &Histogram {
        &self.histogram
    }
}

impl Drop for LocalHistogram {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

impl fmt::Debug for LocalHistogram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalHistogram")
            .field("pending", &self.pending.values())
            .field("interval", &self.interval)
            .finish()
    }
}

impl Histogram {
    /// A request-local view that records with plain stores and merges into this histogram
    /// every [`DEFAULT_FLUSH_INTERVAL`] observations, on `flush` and on drop (see
    /// [`LocalHistogram`]). The view holds a clone of this handle.
    pub fn local(&self) -> LocalHistogram {
        LocalHistogram::new(self.clone(), DEFAULT_FLUSH_INTERVAL)
    }

    /// A request-local view merging every `interval` observations, clamped to
    /// `1..=`[`HistogramBuffer::CAPACITY`].
    pub fn local_with_interval(&self, interval: usize) -> LocalHistogram {
        LocalHistogram::new(self.clone(), interval)
    }
}
