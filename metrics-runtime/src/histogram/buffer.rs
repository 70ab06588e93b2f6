//! [`HistogramBuffer`]: observations kept by their owner, merged into a histogram in one step.

use std::fmt;

/// Observations recorded locally and not yet merged into a [`Histogram`](super::Histogram): the values
/// themselves, in order, at most [`CAPACITY`](Self::CAPACITY) of them. No allocation: the
/// buffer is a fixed array that lives wherever its owner does.
///
/// This is the building block of [`LocalHistogram`](crate::local::LocalHistogram), for owners that keep the histogram
/// handle elsewhere and merge on a rule of their own: [`push`](Self::push) records,
/// [`Histogram::merge`](super::Histogram::merge) merges and clears.
///
/// ```
/// use metric_handles::Histogram;
/// use metric_handles::histogram::HistogramBuffer;
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
    /// The most observations a buffer holds: as many as a request-local view merges at by
    /// default ([`DEFAULT_FLUSH_INTERVAL`](crate::local::DEFAULT_FLUSH_INTERVAL)).
    pub const CAPACITY: usize = 32;

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
