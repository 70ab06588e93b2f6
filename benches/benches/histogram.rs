//! Histogram observe with vLLM's inter-token-latency buckets: ours (lock-free) against
//! prometheus-client's (a mutex per observation), the `prometheus` crate's and `measured`'s,
//! single-threaded and with `BENCH_THREADS` threads observing into the same histogram.
//!
//! Every implementation observes the same cycle of values spread over all buckets.
//!
//! The `native_histogram` groups compare native (sparse exponential) buckets: ours, lock-free,
//! against prometheus-client's `Histogram::new_native` and `new_classic_and_native` (a mutex
//! per observation), at the bucket factor 1.1 (schema 3) with a limit of 160 buckets.
//!
//! The `sharing` groups isolate what threads observing one series cost each other: ours, every
//! thread into one histogram (`one_series`) against each thread into a histogram of its own
//! (`apart`), classic and native, in the same run. A machine's load slows both alike; what
//! one series costs beyond `apart` is cache lines the threads share.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use metric_handles_benches::contended::{threads, time_contended};
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

/// Native buckets at factor 1.1, 160 at most, ours and prometheus-client's.
struct NativeHistograms {
    values: Vec<f64>,
    ours_native: metric_handles::Histogram,
    ours_both: metric_handles::Histogram,
    pc_native: prometheus_client::metrics::histogram::Histogram,
    pc_both: prometheus_client::metrics::histogram::Histogram,
}

impl NativeHistograms {
    fn new() -> Self {
        use prometheus_client::metrics::histogram::{Histogram, NativeHistogramConfig};
        let ours = metric_handles::histogram::NativeConfig::from_factor(1.1).max_buckets(160);
        let theirs = NativeHistogramConfig::new(1.1).max_buckets(160);
        NativeHistograms {
            values: observations(),
            ours_native: metric_handles::Histogram::new_native(ours),
            ours_both: metric_handles::Histogram::new_classic_and_native(ITL_BUCKETS, ours),
            pc_native: Histogram::new_native(theirs),
            pc_both: Histogram::new_classic_and_native(ITL_BUCKETS, theirs),
        }
    }

    fn value(&self, i: usize) -> f64 {
        self.values[i & (OBSERVATIONS - 1)]
    }

    fn ours_native(&self, i: usize) {
        black_box(&self.ours_native).observe(self.value(i));
    }
    fn ours_both(&self, i: usize) {
        black_box(&self.ours_both).observe(self.value(i));
    }
    fn pc_native(&self, i: usize) {
        black_box(&self.pc_native).observe(self.value(i));
    }
    fn pc_both(&self, i: usize) {
        black_box(&self.pc_both).observe(self.value(i));
    }
}

fn each_native<R: Runner<NativeHistograms>>(runner: &mut R) {
    runner.run("ours_native", NativeHistograms::ours_native);
    runner.run("pc_native", NativeHistograms::pc_native);
    runner.run("ours_classic_and_native", NativeHistograms::ours_both);
    runner.run("pc_classic_and_native", NativeHistograms::pc_both);
}

fn native_single_thread(c: &mut Criterion) {
    SingleThread::new(c, "native_histogram_1t", &NativeHistograms::new()).run_all(each_native);
}

fn native_contended(c: &mut Criterion) {
    Contended::new(c, "native_histogram", &NativeHistograms::new()).run_all(each_native);
}

/// `threads` threads observing into one histogram made by `make`, then each into its own.
fn one_series_and_apart(
    c: &mut Criterion,
    group: &str,
    make: impl Fn() -> metric_handles::Histogram,
) {
    let threads = threads();
    let values = observations();
    let shared = [make()];
    let apart: Vec<metric_handles::Histogram> = (0..threads).map(|_| make()).collect();
    let mut group = c.benchmark_group(format!("{group}_{threads}t"));
    // Thread `t` observes into `series[t % series.len()]`.
    for (id, series) in [("one_series", &shared[..]), ("apart", &apart[..])] {
        group.bench_function(id, |b| {
            b.iter_custom(|iters| {
                time_contended(threads, iters, |thread, iters| {
                    let Some(histogram) = series.get(thread % series.len()) else {
                        return;
                    };
                    for i in 0..iters as usize {
                        black_box(histogram).observe(values[i & (OBSERVATIONS - 1)]);
                    }
                })
            })
        });
    }
    group.finish();
}

fn sharing(c: &mut Criterion) {
    one_series_and_apart(c, "classic_sharing", || {
        metric_handles::Histogram::new(ITL_BUCKETS)
    });
    one_series_and_apart(c, "native_sharing", || {
        let config = metric_handles::histogram::NativeConfig::from_factor(1.1).max_buckets(160);
        metric_handles::Histogram::new_native(config)
    });
}

criterion_group!(
    benches,
    single_thread,
    contended,
    native_single_thread,
    native_contended,
    sharing
);
criterion_main!(benches);
