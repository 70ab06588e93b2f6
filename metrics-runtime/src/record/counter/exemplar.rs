//! A counter's exemplar: the latest increment recorded with one, its labels and when.

use std::sync::atomic::Ordering;
use std::time::SystemTime;

use prometheus_client::metrics::counter::Atomic;

use super::{Counter, CounterValue, REJECTED_INCREMENTS};
use crate::record::exemplar::{ExemplarBuffer, ExemplarError, ExemplarLabels, ExemplarView};

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
    /// [`EncodedLabels`](crate::EncodedLabels) checked once for many records, or any
    /// [`LabelSet`](crate::LabelSet). The increment is added whatever happens to the exemplar;
    /// an exemplar that breaks a rule (more than 128 characters, a bad or repeated label name)
    /// is refused with the error and counted in
    /// [`rejected_exemplars`](crate::rejected_exemplars), one that meets another write of the
    /// counter's exemplar is dropped and counted in
    /// [`dropped_exemplars`](crate::dropped_exemplars). An increment the counter refuses
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
    /// # Ok::<(), metric_handles::ExemplarError>(())
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
        self.inner
            .exemplar
            .record(0, labels, v.exemplar_value(), at)
    }

    /// The counter's latest exemplar, copied into `buffer`: its labels, value (the increment
    /// it came with) and timestamp. `None` before the first, or when writers kept changing it
    /// while it was copied (the next scrape reads it again). Allocates nothing.
    pub(crate) fn exemplar<'b>(&self, buffer: &'b mut ExemplarBuffer) -> Option<ExemplarView<'b>> {
        self.inner.exemplar.read(0, buffer).exemplar()
    }
}
