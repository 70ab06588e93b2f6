//! The `metrics` facade's handle on a histogram: the histogram's core itself, shared, so a
//! facade record takes the same path as [`Histogram::observe`] with no extra allocation or hop.

use std::sync::Arc;

use super::observe::Histogram;
use super::shards::HistogramCore;

impl metrics::HistogramFn for HistogramCore {
    #[inline]
    fn record(&self, value: f64) {
        self.observe_in_bucket(value);
    }
}

impl Histogram {
    /// A `metrics::Histogram` recording into this histogram. Observations go straight into
    /// the lock-free cells: nothing is buffered, so memory does not grow with traffic between
    /// scrapes.
    pub(crate) fn facade_handle(&self) -> metrics::Histogram {
        metrics::Histogram::from_arc(Arc::clone(&self.core))
    }
}
