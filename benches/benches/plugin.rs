//! Recording through a family registered at run time (`metric_handles::family`) against the
//! same family declared with `#[derive(MetricHandles)]`, and against what vLLM's KV-connector
//! adapter does for descriptor-driven families (a prometheus-client `Family` keyed by a label
//! vector built per record, then `get_or_create`). Both of ours resolve once, then record
//! through the same handle type: the figures should match.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use metric_handles::family::{FamilySpec, RuntimeFamilies};
use metric_handles::Registry;
use metric_handles::{Counter, Family, Histogram, MetricHandles};
use metric_handles_benches::fixtures::{observations, ITL_BUCKETS, MODEL_NAME, OBSERVATIONS};
use metric_handles_benches::labels::EngineLabels;
use metric_handles_benches::runner::{Runner, SingleThread};

/// vLLM's inter-token-latency bounds, as the slice the derive takes.
const XFER_BUCKETS: &[f64] = &ITL_BUCKETS;

/// The two families, declared at compile time.
#[derive(MetricHandles)]
#[metric_handles(handles = DerivedHandles, labels = EngineLabels)]
struct Derived {
    /// Number of failed transfers
    #[metric(name = "bench:failed_transfers")]
    failed: Family<EngineLabels, Counter>,
    /// Transfer time
    #[metric(name = "bench:xfer_time_seconds", buckets = XFER_BUCKETS)]
    xfer: Family<EngineLabels, Histogram>,
}

/// vLLM's descriptor-driven label set: sorted `(key, value)` pairs built for each record.
type AdapterLabels = Vec<(String, String)>;

struct State {
    values: Vec<f64>,
    derived: DerivedHandles,
    runtime_counter: Counter,
    runtime_histogram: Histogram,
    adapter_counter: prometheus_client::metrics::family::Family<AdapterLabels, Counter>,
    adapter_histogram: prometheus_client::metrics::family::Family<
        AdapterLabels,
        prometheus_client::metrics::histogram::Histogram,
        fn() -> prometheus_client::metrics::histogram::Histogram,
    >,
}

impl State {
    fn new() -> Self {
        let mut registry = Registry::default();
        let labels = EngineLabels::engine(0);
        let derived = Derived::register(&mut registry).resolve(&labels);
        let plugins = RuntimeFamilies::<EngineLabels>::register_in(&mut registry);
        let counter = plugins
            .register::<Counter>(&FamilySpec::counter(
                "plugin:failed_transfers",
                "Number of failed transfers",
            ))
            .expect("a valid spec");
        let histogram = plugins
            .register::<Histogram>(&FamilySpec::histogram(
                "plugin:xfer_time_seconds",
                "Transfer time",
                ITL_BUCKETS.to_vec(),
            ))
            .expect("a valid spec");
        State {
            values: observations(),
            derived,
            runtime_counter: counter.get_or_create(&labels, &[]).expect("no extra keys"),
            runtime_histogram: histogram
                .get_or_create(&labels, &[])
                .expect("no extra keys"),
            adapter_counter: Default::default(),
            adapter_histogram: prometheus_client::metrics::family::Family::new_with_constructor(
                adapter_histogram_constructor
                    as fn() -> prometheus_client::metrics::histogram::Histogram,
            ),
        }
    }

    fn value(&self, i: usize) -> f64 {
        // In bounds: `values` has OBSERVATIONS (a power of two) elements.
        self.values[i & (OBSERVATIONS - 1)]
    }

    fn derived_counter(&self, _: usize) {
        black_box(&self.derived.failed).inc();
    }
    fn runtime_counter(&self, _: usize) {
        black_box(&self.runtime_counter).inc();
    }
    fn adapter_counter(&self, _: usize) {
        black_box(&self.adapter_counter)
            .get_or_create(&adapter_labels(0))
            .inc();
    }
    fn derived_histogram(&self, i: usize) {
        black_box(&self.derived.xfer).observe(self.value(i));
    }
    fn runtime_histogram(&self, i: usize) {
        black_box(&self.runtime_histogram).observe(self.value(i));
    }
    fn adapter_histogram(&self, i: usize) {
        black_box(&self.adapter_histogram)
            .get_or_create(&adapter_labels(0))
            .observe(self.value(i));
    }
}

fn adapter_histogram_constructor() -> prometheus_client::metrics::histogram::Histogram {
    prometheus_client::metrics::histogram::Histogram::new(ITL_BUCKETS)
}

/// What vLLM's `connector_metric_labels` builds for every observation.
fn adapter_labels(engine: u32) -> AdapterLabels {
    let mut labels = vec![
        ("model_name".to_owned(), black_box(MODEL_NAME).to_owned()),
        ("engine".to_owned(), engine.to_string()),
    ];
    labels.sort_by(|a, b| a.0.cmp(&b.0));
    labels
}

fn plugin(c: &mut Criterion) {
    let state = State::new();
    // Derived first in one group, run-time first in the other: the first benchmark of a group
    // tends to absorb the machine's warm-up noise.
    SingleThread::new(c, "plugin_counter_1t", &state).run_all(|counters| {
        counters.run("derived", State::derived_counter);
        counters.run("runtime_family", State::runtime_counter);
        counters.run("adapter_lookup", State::adapter_counter);
    });
    SingleThread::new(c, "plugin_histogram_1t", &state).run_all(|histograms| {
        histograms.run("runtime_family", State::runtime_histogram);
        histograms.run("derived", State::derived_histogram);
        histograms.run("adapter_lookup", State::adapter_histogram);
    });
}

criterion_group!(benches, plugin);
criterion_main!(benches);
