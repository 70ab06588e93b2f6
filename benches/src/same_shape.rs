//! One exposition shape built twice, from this crate's families and from prometheus-client's,
//! with the same values: what the `encode_same_shape` benchmarks encode, so the two encoders
//! are compared on the same samples.
//!
//! The shape is vLLM's per-engine one: `label_sets` label sets of `{model_name, engine}`, each
//! with [`COUNTERS`] counters, [`GAUGES`] gauges and [`HISTOGRAMS`] histograms of the 19 ITL
//! bounds. [`ours_native`] and [`prometheus_client_native`] give the histograms native buckets
//! too, at bucket factor 1.1 with at most 160 buckets ([`NATIVE_FACTOR`], [`NATIVE_BUCKETS`]).

use metric_handles::__private::register_family;
use metric_handles::descriptor::{MetricDescriptor, MetricKind};
use metric_handles::histogram::NativeConfig;
use metric_handles::{Buckets, RegisterOptions, Registry};
use prometheus_client::metrics::counter::Counter as PcCounter;
use prometheus_client::metrics::family::Family as PcFamily;
use prometheus_client::metrics::gauge::Gauge as PcGauge;
use prometheus_client::metrics::histogram::{
    Histogram as PcHistogram, NativeHistogramConfig as PcNativeConfig,
};
use prometheus_client::registry::Registry as PcRegistry;

use crate::fixtures::{observations, ITL_BUCKETS};
use crate::labels::EngineLabels;

/// Counter families of the shape.
pub const COUNTERS: usize = 20;
/// Gauge families of the shape.
pub const GAUGES: usize = 10;
/// Histogram families of the shape.
pub const HISTOGRAMS: usize = 10;
/// Observations recorded into every histogram series.
pub const OBSERVED: usize = 8;
/// The native buckets' bucket factor, in the `_native` shapes.
pub const NATIVE_FACTOR: f64 = 1.1;
/// The native buckets' limit, in the `_native` shapes.
pub const NATIVE_BUCKETS: u32 = 160;

/// A registry of the shape and a handle to each of its histogram series, so a benchmark can
/// record into them between scrapes.
#[derive(Debug)]
pub struct Shape<R, H> {
    /// The registry a scrape encodes.
    pub registry: R,
    /// Every histogram series of the shape, label set by label set.
    pub histograms: Vec<H>,
}

/// The shape with `label_sets` label sets, registered as this crate's families.
pub fn ours(label_sets: u32) -> Shape<Registry, metric_handles::Histogram> {
    build_ours(label_sets, None)
}

/// [`ours`], its histograms with native buckets beside the classic ones.
pub fn ours_native(label_sets: u32) -> Shape<Registry, metric_handles::Histogram> {
    let native = NativeConfig::from_factor(NATIVE_FACTOR).max_buckets(NATIVE_BUCKETS);
    build_ours(label_sets, Some(native))
}

fn build_ours(
    label_sets: u32,
    native: Option<NativeConfig>,
) -> Shape<Registry, metric_handles::Histogram> {
    let mut registry = Registry::default();
    let options = RegisterOptions::default();
    let describe = |kind, value_type, prefix: &str, i: usize| {
        let name: &'static str = Box::leak(format!("shape_{prefix}_{i}").into_boxed_str());
        let descriptor =
            MetricDescriptor::new(name, name, kind, value_type, "One family of the same shape")
                .common_labels(<EngineLabels as metric_handles::LabelSet>::KEYS)
                .buckets(Buckets::Explicit(&ITL_BUCKETS));
        match native {
            Some(native) if kind == MetricKind::Histogram => descriptor.native(native),
            _ => descriptor,
        }
    };
    let counters: Vec<metric_handles::Family<EngineLabels, metric_handles::Counter>> = (0
        ..COUNTERS)
        .map(|i| {
            let descriptor = describe(MetricKind::Counter, "Counter", "counter", i);
            register_family(&mut registry, &descriptor, &options)
        })
        .collect();
    let gauges: Vec<metric_handles::Family<EngineLabels, metric_handles::Gauge>> = (0..GAUGES)
        .map(|i| {
            let descriptor = describe(MetricKind::Gauge, "Gauge", "gauge", i);
            register_family(&mut registry, &descriptor, &options)
        })
        .collect();
    let histograms: Vec<metric_handles::Family<EngineLabels, metric_handles::Histogram>> = (0
        ..HISTOGRAMS)
        .map(|i| {
            let descriptor = describe(MetricKind::Histogram, "Histogram", "histogram", i);
            register_family(&mut registry, &descriptor, &options)
        })
        .collect();
    let values = observations();
    let mut series = Vec::new();
    for engine in 0..label_sets {
        let labels = EngineLabels::engine(engine);
        for (i, family) in counters.iter().enumerate() {
            family
                .get_or_create(&labels)
                .inc_by(counter_value(engine, i));
        }
        for (i, family) in gauges.iter().enumerate() {
            family.get_or_create(&labels).set(gauge_value(engine, i));
        }
        for (i, family) in histograms.iter().enumerate() {
            let histogram = family.get_or_create(&labels);
            for k in 0..OBSERVED {
                histogram.observe(values[observation(engine, i, k)]);
            }
            series.push(histogram);
        }
    }
    Shape {
        registry,
        histograms: series,
    }
}

/// The shape with `label_sets` label sets, as prometheus-client's families with the values
/// of [`ours`].
pub fn prometheus_client(label_sets: u32) -> Shape<PcRegistry, PcHistogram> {
    build_prometheus_client(label_sets, || PcHistogram::new(ITL_BUCKETS))
}

/// [`prometheus_client`], its histograms with native buckets beside the classic ones (as
/// [`ours_native`]'s).
pub fn prometheus_client_native(label_sets: u32) -> Shape<PcRegistry, PcHistogram> {
    build_prometheus_client(label_sets, || {
        let native = PcNativeConfig::new(NATIVE_FACTOR).max_buckets(NATIVE_BUCKETS as usize);
        PcHistogram::new_classic_and_native(ITL_BUCKETS, native)
    })
}

fn build_prometheus_client(
    label_sets: u32,
    histogram: fn() -> PcHistogram,
) -> Shape<PcRegistry, PcHistogram> {
    let mut registry = PcRegistry::default();
    let help = "One family of the same shape";
    let counters: Vec<PcFamily<EngineLabels, PcCounter>> = (0..COUNTERS)
        .map(|i| {
            let family = PcFamily::default();
            registry.register(format!("shape_counter_{i}"), help, family.clone());
            family
        })
        .collect();
    let gauges: Vec<PcFamily<EngineLabels, PcGauge>> = (0..GAUGES)
        .map(|i| {
            let family = PcFamily::default();
            registry.register(format!("shape_gauge_{i}"), help, family.clone());
            family
        })
        .collect();
    type Histograms = PcFamily<EngineLabels, PcHistogram, fn() -> PcHistogram>;
    let histograms: Vec<Histograms> = (0..HISTOGRAMS)
        .map(|i| {
            let family: Histograms = PcFamily::new_with_constructor(histogram);
            registry.register(format!("shape_histogram_{i}"), help, family.clone());
            family
        })
        .collect();
    let values = observations();
    let mut series = Vec::new();
    for engine in 0..label_sets {
        let labels = EngineLabels::engine(engine);
        for (i, family) in counters.iter().enumerate() {
            family
                .get_or_create(&labels)
                .inc_by(counter_value(engine, i));
        }
        for (i, family) in gauges.iter().enumerate() {
            family.get_or_create(&labels).set(gauge_value(engine, i));
        }
        for (i, family) in histograms.iter().enumerate() {
            let histogram = family.get_or_create(&labels);
            for k in 0..OBSERVED {
                histogram.observe(values[observation(engine, i, k)]);
            }
            series.push(histogram.clone());
        }
    }
    Shape {
        registry,
        histograms: series,
    }
}

/// The value of counter family `family` of label set `engine`.
pub fn counter_value(engine: u32, family: usize) -> u64 {
    u64::from(engine) * 1_000 + family as u64 * 37
}

/// The value of gauge family `family` of label set `engine`.
pub fn gauge_value(engine: u32, family: usize) -> i64 {
    i64::from(engine % 7) * 3 + family as i64
}

/// The index in [`observations`] of observation `k` of histogram family `family` of label set
/// `engine`.
pub fn observation(engine: u32, family: usize, k: usize) -> usize {
    (engine as usize * 131 + family * 17 + k * 7) % values_len()
}

fn values_len() -> usize {
    crate::fixtures::OBSERVATIONS
}
