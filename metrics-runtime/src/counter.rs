//! [`Counter`]: prometheus-client's counter, with increments that cannot make it go down.
//!
//! prometheus-client's `Counter<f64, AtomicU64>` adds whatever it is given: `inc_by(-1.0)`
//! makes the counter decrease (a scraper reads a reset), `inc_by(NaN)` makes it NaN for good,
//! and `inc_by(INFINITY)` pins it at `+Inf`. This counter refuses those increments: the value
//! is unchanged, and each refusal is counted in [`rejected_counter_increments`].

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use prometheus_client::encoding::{EncodeCounterValue, EncodeMetric, MetricEncoder};
use prometheus_client::metrics::counter::{self, Atomic};
use prometheus_client::metrics::{MetricType, TypedMetric};

use crate::descriptor::MetricKind;
use crate::member::{AxisShape, FamilyMember, SeriesSpec};

/// Increments refused by every [`Counter`] of the process (negative, NaN or infinite).
static REJECTED_INCREMENTS: AtomicU64 = AtomicU64::new(0);

/// How many increments every [`Counter`] of the process refused: negative, NaN or infinite
/// increments of a floating-point counter. A non-zero value means a caller has a bug.
pub fn rejected_counter_increments() -> u64 {
    REJECTED_INCREMENTS.load(Ordering::Relaxed)
}

/// A value a [`Counter`] counts in: which increments keep it a counter.
pub trait CounterValue: Copy {
    /// Whether adding `self` keeps the counter finite and non-decreasing.
    fn is_valid_increment(self) -> bool;
}

impl CounterValue for u64 {
    #[inline]
    fn is_valid_increment(self) -> bool {
        true
    }
}

impl CounterValue for u32 {
    #[inline]
    fn is_valid_increment(self) -> bool {
        true
    }
}

impl CounterValue for f64 {
    #[inline]
    fn is_valid_increment(self) -> bool {
        self.is_finite() && self >= 0.0
    }
}

impl CounterValue for f32 {
    #[inline]
    fn is_valid_increment(self) -> bool {
        self.is_finite() && self >= 0.0
    }
}

/// A monotonic counter: `u64` by default; `Counter<f64, AtomicU64>` counts fractions.
///
/// The same atomic operations as prometheus-client's `Counter` (which it wraps, and which
/// [`Counter::as_prometheus_client`] returns), except that [`Counter::inc_by`] refuses an
/// increment that would make it decrease or stop being finite.
///
/// ```
/// use std::sync::atomic::AtomicU64;
/// use metric_handles::Counter;
///
/// let seconds: Counter<f64, AtomicU64> = Counter::default();
/// seconds.inc_by(1.5);
/// seconds.inc_by(-1.0); // refused
/// seconds.inc_by(f64::NAN); // refused
/// assert_eq!(seconds.get(), 1.5);
/// ```
pub struct Counter<N = u64, A = AtomicU64> {
    inner: counter::Counter<N, A>,
}

impl<N: CounterValue, A: Atomic<N>> Counter<N, A> {
    /// Adds 1; returns the previous value.
    #[inline]
    pub fn inc(&self) -> N {
        self.inner.inc()
    }

    /// Adds `v`; returns the previous value. A negative, NaN or infinite `v` is refused: the
    /// counter is unchanged, the refusal is counted in [`rejected_counter_increments`], and the current
    /// value is returned.
    #[inline]
    pub fn inc_by(&self, v: N) -> N {
        if v.is_valid_increment() {
            self.inner.inc_by(v)
        } else {
            REJECTED_INCREMENTS.fetch_add(1, Ordering::Relaxed);
            self.inner.get()
        }
    }

    /// The current value.
    #[inline]
    pub fn get(&self) -> N {
        self.inner.get()
    }

    /// The atomic holding the value, for operations this type does not offer (a saturating
    /// add, say). The caller keeps the value non-decreasing.
    #[inline]
    pub fn inner(&self) -> &A {
        self.inner.inner()
    }

    /// The prometheus-client counter this wraps (sharing its value).
    pub fn as_prometheus_client(&self) -> &counter::Counter<N, A> {
        &self.inner
    }
}

impl<N, A> Clone for Counter<N, A> {
    fn clone(&self) -> Self {
        Counter {
            inner: self.inner.clone(),
        }
    }
}

impl<N, A: Default> Default for Counter<N, A> {
    fn default() -> Self {
        Counter {
            inner: counter::Counter::default(),
        }
    }
}

impl<N: fmt::Debug, A: fmt::Debug> fmt::Debug for Counter<N, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<N, A> TypedMetric for Counter<N, A> {
    const TYPE: MetricType = MetricType::Counter;
}

impl<N: EncodeCounterValue, A: Atomic<N>> EncodeMetric for Counter<N, A> {
    fn encode(&self, encoder: MetricEncoder) -> Result<(), fmt::Error> {
        self.inner.encode(encoder)
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Counter
    }
}

impl<N, A> FamilyMember for Counter<N, A>
where
    N: CounterValue + EncodeCounterValue + fmt::Debug + Send + Sync + 'static,
    A: Atomic<N> + Default + fmt::Debug + Send + Sync + 'static,
{
    const KIND: MetricKind = MetricKind::Counter;
    const AXIS: AxisShape = AxisShape::None;

    fn build(_spec: &SeriesSpec) -> Self {
        Self::default()
    }

    fn encode_member<L: prometheus_client::encoding::EncodeLabelSet>(
        &self,
        labels: &L,
        encoder: &mut MetricEncoder<'_>,
    ) -> Result<(), fmt::Error> {
        self.encode(encoder.encode_family(labels)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_nan_and_infinite_increments_are_refused_and_counted() {
        let c: Counter<f64, AtomicU64> = Counter::default();
        let before = rejected_counter_increments();
        assert_eq!(c.inc_by(2.5), 0.0);
        for bad in [-1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.5] {
            assert_eq!(c.inc_by(bad), 2.5);
        }
        c.inc_by(-0.0);
        assert_eq!(c.get(), 2.5);
        assert!(rejected_counter_increments() >= before + 5);
        let n: Counter = Counter::default();
        n.inc();
        n.inc_by(u64::MAX - 1);
        assert_eq!(n.get(), u64::MAX);
    }
}
