//! The exemplar side of the [`Histogram`] handle: `observe_with_exemplar` and what a scrape
//! reads of its exemplars (the slots themselves are in `exemplars.rs`).

use std::time::SystemTime;

use super::observe::Histogram;
use crate::exemplar::{ExemplarBuffer, ExemplarError, ExemplarLabels, ExemplarView};

impl Histogram {
    /// Records one observation, as [`observe`](Self::observe), and makes `labels` (a trace id,
    /// say) the exemplar of the bucket it falls in, with `value` and the time now. With native
    /// buckets, the exemplar also joins the most recent [`NATIVE_EXEMPLARS`](crate::histogram::NATIVE_EXEMPLARS).
    ///
    /// `labels` is a slice or array of `(name, value)` pairs, [`EncodedLabels`] checked once
    /// for many records, or any [`LabelSet`](crate::LabelSet). The observation is recorded
    /// whatever happens to the exemplar; an exemplar that breaks a rule (more than 128
    /// characters, a bad or repeated label name) is refused with the error and counted in
    /// [`rejected_exemplars`](crate::exemplar::rejected_exemplars), one that meets another write to the
    /// same slot is dropped and counted in [`dropped_exemplars`](crate::exemplar::dropped_exemplars).
    /// Lock-free; allocates once per histogram, on its first exemplar.
    ///
    /// ```
    /// use metric_handles::Histogram;
    ///
    /// let latency = Histogram::new([0.1, 0.5, 1.0]);
    /// latency.observe_with_exemplar(0.3, &[("trace_id", "3a2f90c9f80b894f")])?;
    /// assert_eq!(latency.snapshot().count(), 1);
    /// # Ok::<(), metric_handles::exemplar::ExemplarError>(())
    /// ```
    ///
    /// [`EncodedLabels`]: crate::exemplar::EncodedLabels
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

    /// Makes `labels` the exemplar of the bucket `value` falls in, stamped `at` (now when
    /// `None`), without observing `value`: for observations counted another way, buffered in a
    /// [`HistogramBuffer`](crate::histogram::HistogramBuffer) and merged with
    /// [`merge`](Self::merge) (a request-local view does this with its
    /// `observe_with_exemplar`; vLLM's request tracker writes one exemplar per merge of a
    /// request's inter-token latencies). OpenMetrics asks an exemplar to lie within its
    /// bucket, not to be counted yet: write it with its observation merged, or just before.
    /// The rules and counts of refused and dropped exemplars are
    /// [`observe_with_exemplar`](Self::observe_with_exemplar)'s.
    ///
    /// ```
    /// use metric_handles::histogram::HistogramBuffer;
    /// use metric_handles::Histogram;
    ///
    /// let itl = Histogram::new([0.01, 0.1]);
    /// let mut pending = HistogramBuffer::new();
    /// assert!(pending.push(0.02));
    /// assert!(pending.push(0.05));
    /// itl.merge(&mut pending);
    /// itl.set_exemplar(0.05, &[("trace_id", "3a2f90c9")], None)?;
    /// assert_eq!(itl.snapshot().count(), 2);
    /// # Ok::<(), metric_handles::exemplar::ExemplarError>(())
    /// ```
    #[inline]
    pub fn set_exemplar(
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
    /// [`NATIVE_EXEMPLARS`](crate::histogram::NATIVE_EXEMPLARS)), oldest first, each copied into `buffer` in turn: what the
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
