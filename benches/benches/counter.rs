//! Counter increment: a cached handle against the floor (a raw atomic add) and against every
//! alternative a Rust user would pick, single-threaded and with `BENCH_THREADS` threads
//! recording into the same series.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use metric_handles::__private::new_family;
use metric_handles::member::SeriesSpec;
use metric_handles::{Counter, Family};
use metric_handles_benches::fixtures::MODEL_NAME;
use metric_handles_benches::labels::EngineLabels;
use metric_handles_benches::recorder;
use metric_handles_benches::runner::{Contended, Runner, SingleThread};

const METRIC: &str = "vllm:generation_tokens";

/// Every implementation, set up with one series for engine 0.
struct Counters {
    raw: AtomicU64,
    cached: Counter,
    pc_family: prometheus_client::metrics::family::Family<EngineLabels, Counter>,
    labels: EngineLabels,
    prom_vec: prometheus::IntCounterVec,
    prom_static: prometheus::IntCounter,
    metrics_handle: metrics::Counter,
    model: Arc<str>,
    measured: measured::Counter,
}

impl Counters {
    fn new() -> Self {
        let labels = EngineLabels::engine(0);
        // Ours: the family a derived struct holds, resolved once.
        let family: Family<EngineLabels, Counter> = new_family(SeriesSpec::new());
        let cached = family.get_or_create(&labels);
        let pc_family = prometheus_client::metrics::family::Family::default();
        // Created up front: the benchmark measures the lookup, not the first insert.
        drop(pc_family.get_or_create(&labels));
        let prom_vec = prometheus::IntCounterVec::new(
            prometheus::Opts::new("vllm_generation_tokens", "Generation tokens"),
            &["model_name", "engine"],
        )
        .expect("valid metric name and labels");
        let prom_static = prom_vec.with_label_values(&[MODEL_NAME, "0"]);
        recorder::install();
        let model: Arc<str> = Arc::from(MODEL_NAME);
        let metrics_handle =
            metrics::counter!(METRIC, "model_name" => Arc::clone(&model), "engine" => "0");
        Counters {
            raw: AtomicU64::new(0),
            cached,
            pc_family,
            labels,
            prom_vec,
            prom_static,
            metrics_handle,
            model,
            measured: measured::Counter::new(),
        }
    }

    // One increment per implementation (the iteration number is unused: counters have no
    // input). `black_box` on the receiver stops the compiler from
    // hoisting or merging increments across loop iterations.
    fn raw(&self, _: usize) {
        black_box(&self.raw).fetch_add(1, Ordering::Relaxed);
    }
    fn cached(&self, _: usize) {
        black_box(&self.cached).inc();
    }
    fn pc_get_or_create(&self, _: usize) {
        black_box(&self.pc_family)
            .get_or_create(black_box(&self.labels))
            .inc();
    }
    fn prom_with_label_values(&self, _: usize) {
        black_box(&self.prom_vec)
            .with_label_values(&[black_box(MODEL_NAME), "0"])
            .inc();
    }
    fn prom_static(&self, _: usize) {
        black_box(&self.prom_static).inc();
    }
    fn metrics_handle(&self, _: usize) {
        black_box(&self.metrics_handle).increment(1);
    }
    fn metrics_macro(&self, _: usize) {
        // A runtime model name, as a server has it: an `Arc<str>` clone, no string copy.
        metrics::counter!(METRIC, "model_name" => Arc::clone(black_box(&self.model)), "engine" => "0")
            .increment(1);
    }
    fn measured(&self, _: usize) {
        black_box(&self.measured).inc();
    }
}

/// One benchmark per implementation; the ids are what `bench-report` reads back.
fn each<R: Runner<Counters>>(runner: &mut R) {
    runner.run("raw_atomic", Counters::raw);
    runner.run("cached_handle", Counters::cached);
    runner.run("pc_get_or_create", Counters::pc_get_or_create);
    runner.run(
        "prometheus_with_label_values",
        Counters::prom_with_label_values,
    );
    runner.run("prometheus_static", Counters::prom_static);
    runner.run("metrics_handle", Counters::metrics_handle);
    runner.run("metrics_macro", Counters::metrics_macro);
    runner.run("measured_counter", Counters::measured);
}

fn single_thread(c: &mut Criterion) {
    SingleThread::new(c, "counter_1t", &Counters::new()).run_all(each);
}

fn contended(c: &mut Criterion) {
    Contended::new(c, "counter", &Counters::new()).run_all(each);
}

criterion_group!(benches, single_thread, contended);
criterion_main!(benches);
