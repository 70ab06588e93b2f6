//! Recording one inter-token latency per token, the hottest record of a serving frontend:
//! our request-local view (`Histogram::local`, merged every 32 observations) against our
//! shared handle (`Histogram::observe`), prometheus-client's histogram, vLLM's batched ITL
//! recording (a local accumulator merged under a lock every 32 tokens) and the `prometheus`
//! crate's `LocalHistogram` flushed at the same interval. Single-threaded, and with
//! `BENCH_THREADS` threads, each a request of its own, recording into the same histogram.
//!
//! Every implementation observes the same cycle of values spread over all buckets, and every
//! batched one merges every 32 observations, inside the timed loop (`src/itl.rs`).

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use metric_handles_benches::contended::{threads, time_contended};
use metric_handles_benches::itl::{Histograms, IDS};

fn each(group: &mut BenchmarkGroup<'_, WallTime>, histograms: &Histograms, threads: usize) {
    for id in IDS {
        group.bench_function(id, |b| {
            b.iter_custom(|iters| {
                if threads == 1 {
                    let start = std::time::Instant::now();
                    histograms.record(id, iters);
                    start.elapsed()
                } else {
                    time_contended(threads, iters, |_, iters| histograms.record(id, iters))
                }
            })
        });
    }
}

fn single_thread(c: &mut Criterion) {
    let histograms = Histograms::new();
    let mut group = c.benchmark_group("itl_record_1t");
    each(&mut group, &histograms, 1);
    group.finish();
}

fn contended(c: &mut Criterion) {
    let histograms = Histograms::new();
    let threads = threads();
    let mut group = c.benchmark_group(format!("itl_record_{threads}t"));
    each(&mut group, &histograms, threads);
    group.finish();
}

criterion_group!(benches, single_thread, contended);
criterion_main!(benches);
