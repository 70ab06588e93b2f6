//! The `metrics` facade recorded into our families (`metric_handles::metrics_facade`) against
//! what its users install today, metrics-exporter-prometheus, and against our own handles.
//!
//! * `facade_counter_1t`: a counter increment through a kept facade handle of ours
//!   (`facade_handle`), our derived handle (`cached_handle`), a kept handle of the exporter's
//!   (`exporter_handle`); and the macro path, a lookup by key every call: ours
//!   (`facade_lookup`), metrics-util's atomic registry, what `metrics`' own recorders are built
//!   on (`metrics_util_lookup`), the exporter's (`exporter_lookup`).
//! * `facade_histogram_1t` and `facade_histogram_{threads}t` (same series): an observation
//!   through a kept facade handle of ours, of the exporter's, and through our derived handle.
//! * `facade_scrape_64_text` and `..._busy`: the same-shape registry (64 label sets x 20
//!   counters, 10 gauges, 10 histograms of 19 bounds) recorded through the facade, scraped as
//!   text 0.0.4: ours (`ExpositionFormat::encode_into`), the exporter's `render`, and the same
//!   families declared with the derive (`derived`). Each id's throughput is its body's size,
//!   so the report compares time per byte. `_busy` records into every histogram series before
//!   each scrape (untimed).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use metric_handles::metrics_facade::FacadeBuilder;
use metric_handles::{Counter, ExpositionFormat, Histogram, Registry};
use metric_handles_benches::fixtures::{observations, ITL_BUCKETS};
use metric_handles_benches::runner::{Contended, Runner, SingleThread};
use metric_handles_benches::{facade, recorder, same_shape};
use metrics::{Key, Label, Metadata, Recorder};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusRecorder};

const NAME: &str = "vllm:generation_tokens";
static LABELS: [Label; 2] = [
    Label::from_static_parts("model_name", "llama"),
    Label::from_static_parts("engine", "0"),
];
/// What `counter!(NAME, "model_name" => "llama", "engine" => "0")` builds.
static KEY: Key = Key::from_static_parts(NAME, &LABELS);
static METADATA: Metadata<'static> = Metadata::new(module_path!(), metrics::Level::INFO, None);

struct Counters {
    facade: metric_handles::metrics_facade::FacadeRecorder,
    facade_handle: metrics::Counter,
    cached: Counter,
    exporter: PrometheusRecorder,
    exporter_handle: metrics::Counter,
    metrics_util: &'static recorder::AtomicRecorder,
    _registry: Registry,
}

impl Counters {
    fn new() -> Self {
        let mut registry = Registry::default();
        let facade = FacadeBuilder::new().build(&mut registry);
        let facade_handle = facade.register_counter(&KEY, &METADATA);
        let exporter = PrometheusBuilder::new().build_recorder();
        let exporter_handle = exporter.register_counter(&KEY, &METADATA);
        let metrics_util = recorder::install();
        drop(metrics_util.register_counter(&KEY, &METADATA));
        Counters {
            facade,
            facade_handle,
            cached: Counter::default(),
            exporter,
            exporter_handle,
            metrics_util,
            _registry: registry,
        }
    }

    fn facade_handle(&self, _: usize) {
        black_box(&self.facade_handle).increment(1);
    }
    fn cached(&self, _: usize) {
        black_box(&self.cached).inc();
    }
    fn exporter_handle(&self, _: usize) {
        black_box(&self.exporter_handle).increment(1);
    }
    fn facade_lookup(&self, _: usize) {
        black_box(&self.facade)
            .register_counter(black_box(&KEY), &METADATA)
            .increment(1);
    }
    fn metrics_util_lookup(&self, _: usize) {
        black_box(self.metrics_util)
            .register_counter(black_box(&KEY), &METADATA)
            .increment(1);
    }
    fn exporter_lookup(&self, _: usize) {
        black_box(&self.exporter)
            .register_counter(black_box(&KEY), &METADATA)
            .increment(1);
    }
}

fn counters(c: &mut Criterion) {
    SingleThread::new(c, "facade_counter_1t", &Counters::new()).run_all(|runner| {
        runner.run("facade_handle", Counters::facade_handle);
        runner.run("cached_handle", Counters::cached);
        runner.run("exporter_handle", Counters::exporter_handle);
        runner.run("facade_lookup", Counters::facade_lookup);
        runner.run("metrics_util_lookup", Counters::metrics_util_lookup);
        runner.run("exporter_lookup", Counters::exporter_lookup);
    });
}

struct Histograms {
    values: Vec<f64>,
    facade_handle: metrics::Histogram,
    derived: Histogram,
    exporter_handle: metrics::Histogram,
    _registry: Registry,
    _exporter: PrometheusRecorder,
}

impl Histograms {
    fn new() -> Self {
        let mut registry = Registry::default();
        let facade = FacadeBuilder::new()
            .buckets(&ITL_BUCKETS)
            .expect("valid bounds")
            .build(&mut registry);
        let exporter = PrometheusBuilder::new()
            .set_buckets(&ITL_BUCKETS)
            .expect("valid bounds")
            .build_recorder();
        Histograms {
            values: observations().to_vec(),
            facade_handle: facade.register_histogram(&KEY, &METADATA),
            derived: Histogram::new(ITL_BUCKETS),
            exporter_handle: exporter.register_histogram(&KEY, &METADATA),
            _registry: registry,
            _exporter: exporter,
        }
    }

    fn value(&self, i: usize) -> f64 {
        self.values[i % self.values.len()]
    }
    fn facade_handle(&self, i: usize) {
        black_box(&self.facade_handle).record(self.value(i));
    }
    fn derived(&self, i: usize) {
        black_box(&self.derived).observe(self.value(i));
    }
    fn exporter_handle(&self, i: usize) {
        black_box(&self.exporter_handle).record(self.value(i));
    }
}

fn each_histogram<R: Runner<Histograms>>(runner: &mut R) {
    runner.run("facade_handle", Histograms::facade_handle);
    runner.run("derived", Histograms::derived);
    runner.run("exporter_handle", Histograms::exporter_handle);
}

fn histograms(c: &mut Criterion) {
    SingleThread::new(c, "facade_histogram_1t", &Histograms::new()).run_all(each_histogram);
    Contended::new(c, "facade_histogram", &Histograms::new()).run_all(each_histogram);
}

fn scrape(c: &mut Criterion) {
    const LABEL_SETS: u32 = 64;
    let format = ExpositionFormat::PrometheusText;
    for busy in [false, true] {
        let (ours, our_histograms) = facade::ours(LABEL_SETS);
        let (_exporter, exporter, exporter_histograms) = facade::exporter(LABEL_SETS);
        let derived = same_shape::ours(LABEL_SETS);
        let mut body = Vec::new();
        format.encode_into(&ours, &mut body).expect("encodes");
        let mut derived_body = Vec::new();
        format
            .encode_into(&derived.registry, &mut derived_body)
            .expect("encodes");
        let rendered = exporter.render();
        let name = if busy {
            "facade_scrape_64_text_busy"
        } else {
            "facade_scrape_64_text"
        };
        eprintln!(
            "{name}: ours {} bytes, derived {} bytes, metrics-exporter-prometheus {} bytes",
            body.len(),
            derived_body.len(),
            rendered.len()
        );
        let values = observations();
        let mut round = 0;
        let mut record = |histograms: &mut dyn FnMut(f64)| {
            if busy {
                round += 1;
                histograms(values[round % values.len()]);
            }
        };
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_function("ours", |b| {
            b.iter_batched(
                || record(&mut |v| our_histograms.iter().for_each(|h| h.record(v))),
                |()| {
                    body.clear();
                    format.encode_into(black_box(&ours), &mut body)
                },
                BatchSize::PerIteration,
            )
        });
        group.throughput(Throughput::Bytes(derived_body.len() as u64));
        group.bench_function("derived", |b| {
            b.iter_batched(
                || record(&mut |v| derived.histograms.iter().for_each(|h| h.observe(v))),
                |()| {
                    derived_body.clear();
                    format.encode_into(black_box(&derived.registry), &mut derived_body)
                },
                BatchSize::PerIteration,
            )
        });
        group.throughput(Throughput::Bytes(rendered.len() as u64));
        group.bench_function("metrics_exporter_prometheus", |b| {
            b.iter_batched(
                || record(&mut |v| exporter_histograms.iter().for_each(|h| h.record(v))),
                |()| black_box(&exporter).render(),
                BatchSize::PerIteration,
            )
        });
        group.finish();
    }
}

criterion_group!(benches, counters, histograms, scrape);
criterion_main!(benches);
