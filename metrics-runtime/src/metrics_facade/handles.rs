//! The facade's handle types backed by this crate's members: a `metrics::Counter` shares a
//! counter's cell, a `metrics::Histogram` a histogram's core, a `metrics::Gauge` a float
//! gauge's cell.

use std::fmt;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use prometheus_client::encoding::{EncodeMetric, MetricEncoder};
use prometheus_client::metrics::gauge::Atomic;
use prometheus_client::metrics::MetricType;

use crate::counter::CounterCell;
use crate::histogram::Histogram;
use crate::member::{leaf_member_items, FamilyMember};
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

/// A facade gauge's value: an `f64`, in the bits of an atomic, with prometheus-client's
/// float-gauge arithmetic (a compare-and-swap loop to add, a swap to set). The series and every
/// `metrics::Gauge` handle to it share one allocation of it, as a counter's cell is shared:
/// wrapping prometheus-client's gauge (whose `Arc` is private) in a handle took one more.
#[derive(Debug, Default)]
pub(crate) struct FloatCell(AtomicU64);

impl FloatCell {
    #[inline]
    fn get(&self) -> f64 {
        Atomic::<f64>::get(&self.0)
    }
}

impl metrics::GaugeFn for FloatCell {
    #[inline]
    fn increment(&self, value: f64) {
        Atomic::<f64>::inc_by(&self.0, value);
    }

    #[inline]
    fn decrement(&self, value: f64) {
        Atomic::<f64>::dec_by(&self.0, value);
    }

    #[inline]
    fn set(&self, value: f64) {
        Atomic::<f64>::set(&self.0, value);
    }
}

/// One series of a gauge the facade records: the family member of its name. Exposed as a gauge
/// of `f64`, as `Gauge<f64, AtomicU64>` is.
#[derive(Clone, Debug, Default)]
pub(crate) struct FacadeGauge(Arc<FloatCell>);

impl EncodeMetric for FacadeGauge {
    fn encode(&self, mut encoder: MetricEncoder<'_>) -> Result<(), fmt::Error> {
        encoder.encode_gauge(&self.0.get())
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Gauge
    }
}

impl FamilyMember for FacadeGauge {
    leaf_member_items!(
        Gauge,
        |_spec| Self::default(),
        |this, labels, writer| {
            writer.gauge(labels, this.0.get());
            Ok(())
        },
        |this| Some(this.0.get().to_bits())
    );
}

/// The facade's handle for `counter`.
pub(crate) fn counter(counter: &Counter) -> metrics::Counter {
    metrics::Counter::from_arc(counter.shared_cell())
}

/// The facade's handle for `gauge`: its cell, shared.
pub(crate) fn gauge(gauge: &FacadeGauge) -> metrics::Gauge {
    metrics::Gauge::from_arc(Arc::clone(&gauge.0))
}

/// The facade's handle for `histogram`: its core, shared.
pub(crate) fn histogram(histogram: Histogram) -> metrics::Histogram {
    histogram.facade_handle()
}
