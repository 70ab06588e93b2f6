//! The facade's handle types backed by this crate's members: a `metrics::Counter` shares a
//! counter's cell, a `metrics::Histogram` a histogram, a `metrics::Gauge` a float gauge.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use crate::counter::CounterCell;
use crate::gauge::Gauge;
use crate::histogram::Histogram;
use crate::Counter;

/// The facade's counters count in `u64`, as this crate's default counter does; an increment
/// saturates at `u64::MAX` rather than wrap to a value a scraper reads as a reset.
impl metrics::CounterFn for CounterCell<AtomicU64> {
    #[inline]
    fn increment(&self, value: u64) {
        self.add(value);
    }

    #[inline]
    fn absolute(&self, value: u64) {
        self.raise_to(value);
    }
}

/// The facade's gauges hold an `f64`.
pub(crate) type FloatGauge = Gauge<f64, AtomicU64>;

/// A float gauge as the facade's `Gauge` holds it (prometheus-client's gauge is a type of
/// another crate: the facade's trait is implemented on this wrapper).
#[derive(Debug)]
pub(crate) struct FacadeGauge(pub(crate) FloatGauge);

impl metrics::GaugeFn for FacadeGauge {
    #[inline]
    fn increment(&self, value: f64) {
        self.0.inc_by(value);
    }

    #[inline]
    fn decrement(&self, value: f64) {
        self.0.dec_by(value);
    }

    #[inline]
    fn set(&self, value: f64) {
        self.0.set(value);
    }
}

/// Observations go straight into the lock-free histogram: nothing is buffered, so memory does
/// not grow with traffic between scrapes.
impl metrics::HistogramFn for Histogram {
    #[inline]
    fn record(&self, value: f64) {
        self.observe(value);
    }
}

/// The facade's handle for `counter`.
pub(crate) fn counter(counter: &Counter) -> metrics::Counter {
    metrics::Counter::from_arc(counter.shared_cell())
}

/// The facade's handle for `gauge`.
pub(crate) fn gauge(gauge: FloatGauge) -> metrics::Gauge {
    metrics::Gauge::from_arc(Arc::new(FacadeGauge(gauge)))
}

/// The facade's handle for `histogram`.
pub(crate) fn histogram(histogram: Histogram) -> metrics::Histogram {
    metrics::Histogram::from_arc(Arc::new(histogram))
}
