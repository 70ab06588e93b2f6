//! Histogram observe with vLLM's inter-token-latency buckets: ours (lock-free) against
//! prometheus-client's (a mutex per observation), the `prometheus` crate's and `measured`'s,
//! single-threaded and with `BENCH_THREADS` threads observing into the same histogram.
//!
//! Every implementation observes the same cycle of values spread over all buckets.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use metric_handles_benches::fixtures::{
    observations, prometheus_itl_histogram, ITL_BUCKETS, OBSERVATIONS,
};
use metric_handles_benches::runner::{Contended, Runner, SingleThread};

struct Histograms {
    values: Vec<f64>,
    ours: metric_handles::Histogram,
    pc: prometheus_client::metrics::histogram::Histogram,
    prom: prometheus::Histogram,
    measured: measured::Histogram<{ ITL_BUCKETS.len() }>,
}

impl Histograms {
    fn new() -> Self {
        let prom = prometheus_itl_histogram();
        Histograms {
            values: observations(),
            ours: metric_handles::Histogram::new(ITL_BUCKETS),
            pc: prometheus_client::metrics::histogram::Histogram::new(ITL_BUCKETS),
            prom,
            measured: measured::Histogram::with_metadata(
                measured::metric::histogram::Thresholds::with_buckets(ITL_BUCKETS),
            ),
        }
    }

    fn value(&self, i: usize) -> f64 {
        // In bounds: `values` has OBSERVATIONS (a power of two) elements.
        self.values[i & (OBSERVATIONS - 1)]
    }

    fn ours(&self, i: usize) {
        black_box(&self.ours).observe(self.value(i));
    }
    fn pc(&self, i: usize) {
        black_box(&self.pc).observe(self.value(i));
    }
    fn prom(&self, i: usize) {
        black_box(&self.prom).observe(self.value(i));
    }
    fn measured(&self, i: usize) {
        black_box(&self.measured).observe(self.value(i));
    }
}

/// One benchmark per implementation; the ids are what `bench-report` reads back.
fn each<R: Runner<Histograms>>(runner: &mut R) {
    runner.run("ours", Histograms::ours);
    runner.run("pc_histogram", Histograms::pc);
    runner.run("prometheus_histogram", Histograms::prom);
    runner.run("measured_histogram", Histograms::measured);
}

fn single_thread(c: &mut Criterion) {
    SingleThread::new(c, "histogram_1t", &Histograms::new()).run_all(each);
}

fn contended(c: &mut Criterion) {
    Contended::new(c, "histogram", &Histograms::new()).run_all(each);
}

criterion_group!(benches, single_thread, contended);
criterion_main!(benches);
