//! [`Counter`]: prometheus-client's counter, with increments that cannot make it go down.
//!
//! prometheus-client's `Counter<f64, AtomicU64>` adds whatever it is given: `inc_by(-1.0)`
//! makes the counter decrease (a scraper reads a reset), `inc_by(NaN)` makes it NaN for good,
//! and `inc_by(INFINITY)` pins it at `+Inf`. This counter refuses those increments: the value
//! is unchanged, and each refusal is counted in [`rejected_counter_increments`].
//!
//! Its `u64` counter wraps (`u64::MAX` + 1 is 0) and its `f64` counter overflows to `+Inf`.
//! This one saturates instead, at `u64::MAX` and at `f64::MAX`, and no reader sees it go down
//! under any interleaving of increments and reads (the crate's `counter/saturating.rs` says why).

pub(crate) mod saturating;

use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::SystemTime;

use prometheus_client::encoding::{EncodeCounterValue, EncodeMetric, MetricEncoder, NoLabelSet};
use prometheus_client::metrics::counter::Atomic;
use prometheus_client::metrics::exemplar::CounterWithExemplar;

use crate::exemplar::{ExemplarBuffer, ExemplarCell, ExemplarError, ExemplarLabels, ExemplarView};
use prometheus_client::metrics::{MetricType, TypedMetric};

/// Increments refused by every [`Counter`] of the process (negative, NaN or infinite).
static REJECTED_INCREMENTS: AtomicU64 = AtomicU64::new(0);

/// How many increments every [`Counter`] of the process refused: negative, NaN or infinite
/// increments of a floating-point counter. A non-zero value means a caller has a bug.
pub fn rejected_counter_increments() -> u64 {
    REJECTED_INCREMENTS.load(Ordering::Relaxed)
}

/// A value a [`Counter`] counts in, kept in the atomic `A`: which increments keep it a
/// counter, and how they are added so that it never wraps, never decreases and never leaves
/// the finite range.
///
/// Implemented for the pairs prometheus-client's counter supports: `u64` and `f64` in an
/// `AtomicU64` (the default), `u32` and `f32` in an `AtomicU32`.
pub trait CounterValue<A = AtomicU64>: Copy {
    /// The increment [`Counter::inc`] adds.
    const ONE: Self;

    /// Whether adding `self` keeps the counter finite and non-decreasing.
    fn is_valid_increment(self) -> bool;

    /// Adds `self`, a valid increment, to the counter held in `cell`, saturating at the
    /// type's largest finite value; returns the value before.
    fn add_to(self, cell: &A) -> Self;

    /// The value of the counter held in `cell`.
    fn read(cell: &A) -> Self;

    /// The value as an exemplar carries it (OpenMetrics exemplar values are floats).
    fn exemplar_value(self) -> f64;
}

impl CounterValue<AtomicU64> for u64 {
    const ONE: u64 = 1;

    #[inline]
    fn is_valid_increment(self) -> bool {
        true
    }

    #[inline]
    fn add_to(self, cell: &AtomicU64) -> u64 {
        saturating::add(cell, self)
    }

    #[inline]
    fn read(cell: &AtomicU64) -> u64 {
        saturating::read(cell.load(Ordering::Relaxed))
    }

    #[inline]
    fn exemplar_value(self) -> f64 {
        self as f64
    }
}

impl CounterValue<AtomicU32> for u32 {
    const ONE: u32 = 1;

    #[inline]
    fn is_valid_increment(self) -> bool {
        true
    }

    #[inline]
    fn add_to(self, cell: &AtomicU32) -> u32 {
        saturating::add_u32(cell, self)
    }

    #[inline]
    fn read(cell: &AtomicU32) -> u32 {
        cell.load(Ordering::Relaxed)
    }

    #[inline]
    fn exemplar_value(self) -> f64 {
        f64::from(self)
    }
}

/// The floating-point counters: finite, non-negative increments, summed in a
/// compare-and-swap loop that stops at the largest finite value.
macro_rules! impl_float_counter_value {
    ($float:ty, $atomic:ty, $add:path) => {
        impl CounterValue<$atomic> for $float {
            const ONE: $float = 1.0;

            #[inline]
            fn is_valid_increment(self) -> bool {
                self.is_finite() && self >= 0.0
            }

            #[inline]
            fn add_to(self, cell: &$atomic) -> $float {
                $add(cell, self)
            }

            #[inline]
            fn read(cell: &$atomic) -> $float {
                <$float>::from_bits(cell.load(Ordering::Relaxed))
            }

            #[inline]
            fn exemplar_value(self) -> f64 {
                f64::from(self)
            }
        }
    };
}

impl_float_counter_value!(f64, AtomicU64, saturating::add_f64);
impl_float_counter_value!(f32, AtomicU32, saturating::add_f32);

/// A monotonic counter: `u64` by default; `Counter<f64, AtomicU64>` counts fractions.
///
/// Recording is one atomic operation, as with prometheus-client's `Counter` (which holds the
/// value), except that the counter never goes down nor leaves the finite range:
/// [`Counter::inc_by`] refuses a negative, NaN or infinite increment, and an increment past
/// the largest value saturates there (`u64::MAX`, `f64::MAX`) instead of wrapping to a small
/// value or reaching `+Inf`. A `u64` increment of up to 2^24 is one `fetch_add`; a larger one
/// is a compare-and-swap, and so is every floating-point increment. Readers never see a
/// saturated counter read lower, however increments and scrapes interleave. A `u64` counter
/// saturates once its total reaches `2^64 - 2^57` (the top 0.8% of the range is headroom for
/// increments racing each other) and reads `u64::MAX` from then on.
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
/// seconds.inc_by(f64::MAX);
/// seconds.inc_by(f64::MAX); // saturates instead of reaching +Inf
/// assert_eq!(seconds.get(), f64::MAX);
///
/// let tokens: Counter = Counter::default();
/// tokens.inc_by(u64::MAX - 1);
/// tokens.inc_by(5); // saturates instead of wrapping to 3
/// assert_eq!(tokens.get(), u64::MAX);
/// ```
pub struct Counter<N = u64, A = AtomicU64> {
    inner: Arc<CounterCell<A>>,
    value_type: PhantomData<N>,
}

/// What the handles of one counter share: the value, and the exemplar slot, allocated on the
/// first exemplar (until then a pointer and a one-time flag beside the value, which a record
/// without an exemplar never reads). 16 bytes beside a `u64` value, 40 with the `Arc`'s counts.
pub(crate) struct CounterCell<A> {
    value: A,
    exemplar: ExemplarCell,
}

/// A `u64` counter's cell as the `metrics` facade's handle holds it: the facade's `Counter`
/// is an `Arc` of its own, so it shares this one rather than wrap the handle (one pointer to
/// follow per record, as through a [`Counter`]).
#[cfg(feature = "metrics-facade")]
impl CounterCell<AtomicU64> {
    /// Adds `v`, saturating, as [`Counter::inc_by`] does.
    #[inline]
    pub(crate) fn add(&self, v: u64) {
        saturating::add(&self.value, v);
    }

    /// Raises the counter to `v` if it is below: a count kept elsewhere, copied in.
    #[inline]
    pub(crate) fn raise_to(&self, v: u64) {
        saturating::raise_to(&self.value, v);
    }
}

#[cfg(feature = "metrics-facade")]
impl Counter<u64, AtomicU64> {
    /// The cell this handle records into, shared.
    pub(crate) fn shared_cell(&self) -> Arc<CounterCell<AtomicU64>> {
        Arc::clone(&self.inner)
    }
}

impl<N: CounterValue<A>, A: Atomic<N>> Counter<N, A> {
    /// Adds 1, saturating; returns the previous value.
    #[inline]
    pub fn inc(&self) -> N {
        N::ONE.add_to(self.cell())
    }

    /// Adds `v`, saturating at the largest value instead of wrapping or reaching `+Inf`;
    /// returns the previous value. A negative, NaN or infinite `v` is refused: the counter is
    /// unchanged, the refusal is counted in [`rejected_counter_increments`], and the current
    /// value is returned.
    #[inline]
    pub fn inc_by(&self, v: N) -> N {
        if v.is_valid_increment() {
            v.add_to(self.cell())
        } else {
            REJECTED_INCREMENTS.fetch_add(1, Ordering::Relaxed);
            self.get()
        }
    }

    /// The current value.
    #[inline]
    pub fn get(&self) -> N {
        N::read(self.cell())
    }

    /// The atomic holding the value: read and written only through [`CounterValue`], whose
    /// raw encoding of a saturated `u64` counter is not its value.
    #[inline]
    pub(crate) fn cell(&self) -> &A {
        &self.inner.value
    }
}

/// Exemplars: the latest increment recorded with one, its labels and when.
impl<N: CounterValue<A>, A: Atomic<N>> Counter<N, A> {
    /// Adds 1, as [`inc`](Self::inc), and makes `labels` (a trace id, say) the counter's
    /// exemplar, with the value 1 and the time now. See
    /// [`inc_by_with_exemplar`](Self::inc_by_with_exemplar).
    #[inline]
    pub fn inc_with_exemplar(
        &self,
        labels: &(impl ExemplarLabels + ?Sized),
    ) -> Result<(), ExemplarError> {
        self.inc_by_with_exemplar(N::ONE, labels)
    }

    /// Adds `v`, as [`inc_by`](Self::inc_by), and makes `labels` the counter's exemplar, with
    /// the value `v` and the time now: OpenMetrics writes it after the `_total` sample,
    /// `requests_total 7 # {trace_id="3a2f"} 1.0 1700000000.123`. The latest wins.
    ///
    /// `labels` is a slice or array of `(name, value)` pairs,
    /// [`EncodedLabels`](crate::exemplar::EncodedLabels) checked once for many records, or any
    /// [`LabelSet`](crate::LabelSet). The increment is added whatever happens to the exemplar;
    /// an exemplar that breaks a rule (more than 128 characters, a bad or repeated label name)
    /// is refused with the error and counted in
    /// [`rejected_exemplars`](crate::exemplar::rejected_exemplars), one that meets another write of the
    /// counter's exemplar is dropped and counted in
    /// [`dropped_exemplars`](crate::exemplar::dropped_exemplars). An increment the counter refuses
    /// (negative, NaN, infinite) keeps no exemplar either: the error is
    /// [`ExemplarError::RefusedValue`]. Lock-free; allocates once per counter, on its first
    /// exemplar.
    ///
    /// ```
    /// use metric_handles::Counter;
    ///
    /// let tokens: Counter = Counter::default();
    /// tokens.inc_by_with_exemplar(12, &[("trace_id", "3a2f90c9f80b894f")])?;
    /// assert_eq!(tokens.get(), 12);
    /// # Ok::<(), metric_handles::exemplar::ExemplarError>(())
    /// ```
    #[inline]
    pub fn inc_by_with_exemplar(
        &self,
        v: N,
        labels: &(impl ExemplarLabels + ?Sized),
    ) -> Result<(), ExemplarError> {
        self.add_with_exemplar(v, labels, None)
    }

    /// [`inc_by_with_exemplar`](Self::inc_by_with_exemplar) with the exemplar stamped `at`
    /// instead of now: a caller that has just read the clock saves a second read.
    #[inline]
    pub fn inc_by_with_exemplar_at(
        &self,
        v: N,
        labels: &(impl ExemplarLabels + ?Sized),
        at: SystemTime,
    ) -> Result<(), ExemplarError> {
        self.add_with_exemplar(v, labels, Some(at))
    }

    fn add_with_exemplar(
        &self,
        v: N,
        labels: &(impl ExemplarLabels + ?Sized),
        at: Option<SystemTime>,
    ) -> Result<(), ExemplarError> {
        if !v.is_valid_increment() {
            REJECTED_INCREMENTS.fetch_add(1, Ordering::Relaxed);
            return Err(ExemplarError::RefusedValue);
        }
        v.add_to(self.cell());
        self.inner.exemplar.record(labels, v.exemplar_value(), at)
    }

    /// The counter's latest exemplar, copied into `buffer`: its labels, value (the increment
    /// it came with) and timestamp. `None` before the first, or when writers kept changing it
    /// while it was copied (the next scrape reads it again). Allocates nothing.
    pub(crate) fn exemplar<'b>(&self, buffer: &'b mut ExemplarBuffer) -> Option<ExemplarView<'b>> {
        self.inner.exemplar.read(buffer).exemplar()
    }
}

impl<N, A> Clone for Counter<N, A> {
    fn clone(&self) -> Self {
        Counter {
            inner: Arc::clone(&self.inner),
            value_type: PhantomData,
        }
    }
}

impl<N, A: Default> Default for Counter<N, A> {
    fn default() -> Self {
        Counter {
            inner: Arc::new(CounterCell {
                value: A::default(),
                exemplar: ExemplarCell::new(),
            }),
            value_type: PhantomData,
        }
    }
}

impl<N, A: fmt::Debug> fmt::Debug for Counter<N, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Counter")
            .field("value", &self.inner.value)
            .field("exemplar", &self.inner.exemplar)
            .finish()
    }
}

impl<N, A> TypedMetric for Counter<N, A> {
    const TYPE: MetricType = MetricType::Counter;
}

impl<N: CounterValue<A> + EncodeCounterValue, A: Atomic<N>> EncodeMetric for Counter<N, A> {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), fmt::Error> {
        let mut buffer = ExemplarBuffer::new();
        match self.exemplar(&mut buffer) {
            None => encoder.encode_counter::<NoLabelSet, _, u64>(&self.get(), None),
            // prometheus-client's `Exemplar` has no public constructor: its own counter with
            // an exemplar builds one (a scrape-time allocation, only for a counter that has an
            // exemplar and is encoded by prometheus-client rather than the text writer).
            Some(view) => {
                let carrier = CounterWithExemplar::<_, f64, AtomicU64>::default();
                carrier.inc_by(view.value(), Some(view.label_set()), view.timestamp());
                let (_, exemplar) = carrier.get();
                encoder.encode_counter(&self.get(), exemplar.as_ref())
            }
        }
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Counter
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

    /// The registry holding only `counter`, as the classic text format writes it.
    fn encoded<N, A>(counter: &Counter<N, A>) -> String
    where
        Counter<N, A>: EncodeMetric + fmt::Debug + Send + Sync + Clone + 'static,
    {
        let mut registry = crate::Registry::default();
        registry.register("c", "c", counter.clone());
        crate::ExpositionFormat::PrometheusText
            .encode(&registry)
            .expect("encodes")
    }

    #[test]
    fn u64_increments_saturate_instead_of_wrapping_and_stay_saturated() {
        let c: Counter = Counter::default();
        assert_eq!(c.inc_by(u64::MAX - 1), 0);
        // prometheus-client's counter wraps here, to 3.
        c.inc_by(5);
        assert_eq!(c.get(), u64::MAX);
        for _ in 0..3 {
            assert_eq!(c.inc(), u64::MAX);
            assert_eq!(c.inc_by(1 << 40), u64::MAX);
        }
        assert_eq!(c.get(), u64::MAX);
        assert!(encoded(&c).contains("\nc_total 18446744073709551615\n"));
        // The last total below the headroom reads as it is; the next increment saturates.
        let top: Counter = Counter::default();
        let last_exact = u64::MAX - (1 << 57);
        top.inc_by(last_exact);
        assert_eq!(top.get(), last_exact);
        assert_eq!(top.inc(), last_exact);
        assert_eq!(top.get(), u64::MAX);
        // Below the top, every increment counts exactly.
        let exact: Counter = Counter::default();
        exact.inc();
        exact.inc_by(1 << 30);
        exact.inc_by(0);
        assert_eq!(exact.get(), (1 << 30) + 1);
    }

    #[test]
    fn f64_increments_stop_at_the_largest_finite_value() {
        let c: Counter<f64, AtomicU64> = Counter::default();
        c.inc_by(f64::MAX);
        // prometheus-client's counter reaches `+Inf` here.
        assert_eq!(c.inc_by(f64::MAX), f64::MAX);
        c.inc();
        assert_eq!(c.get(), f64::MAX);
        let text = encoded(&c);
        let written = text
            .lines()
            .find_map(|line| line.strip_prefix("c_total "))
            .expect("a sample");
        assert_eq!(written.parse::<f64>(), Ok(f64::MAX), "{text}");
        let small: Counter<f32, AtomicU32> = Counter::default();
        small.inc_by(f32::MAX);
        small.inc_by(f32::MAX);
        assert_eq!(small.get(), f32::MAX);
        let narrow: Counter<u32, AtomicU32> = Counter::default();
        narrow.inc_by(u32::MAX - 1);
        narrow.inc_by(9);
        assert_eq!(narrow.get(), u32::MAX);
    }
}
