//! Micro-benchmarks behind the runtime's layout choices:
//!
//! * `bucket_search_N`: the histogram's branch-free linear count (its `observe`) and slot
//!   lookup table (its merges of request-local batches) against a binary search and an
//!   early-exit scan, for vLLM's bucket lists of 5, 13, 19 and 22 bounds and a 64-bound list
//!   (where the runtime switches to binary search).
//! * `separate_counters_Tt` / `separate_histograms_Tt`: `T` threads each recording into *its
//!   own* series (one engine per thread), series created one after the other as `resolve`
//!   creates them. Any slowdown against padded atomics is false sharing of cache lines.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

use criterion::{criterion_group, criterion_main, Criterion};
use metric_handles::__private::{new_family, BucketLookup};
use metric_handles::member::SeriesSpec;
use metric_handles::{Counter, Family};
use metric_handles_benches::contended::{threads, time_contended};
use metric_handles_benches::fixtures::{
    observations, observations_for, ITL_BUCKETS, OBSERVATIONS, VLLM_BUCKET_LISTS,
};
use metric_handles_benches::labels::EngineLabels;
use metric_handles_benches::search;

const MASK: usize = OBSERVATIONS - 1;

fn bucket_search(c: &mut Criterion) {
    let long: Vec<f64> = (0..64).map(|i| 1.25f64.powi(i)).collect();
    let lists = VLLM_BUCKET_LISTS.iter().copied().chain([long.as_slice()]);
    for bounds in lists {
        let values = observations_for(bounds);
        let mut group = c.benchmark_group(format!("bucket_search_{}", bounds.len()));
        macro_rules! candidate {
            ($id:literal, $search:path) => {
                group.bench_function($id, |b| {
                    let mut i = 0usize;
                    b.iter(|| {
                        i = i.wrapping_add(1);
                        $search(black_box(bounds), values[i & MASK])
                    })
                });
            };
        }
        candidate!("linear_count", search::linear_count);
        candidate!("binary", search::binary);
        candidate!("linear_early_exit", search::linear_early_exit);
        // The histogram's search for merged batches (it leaves NaN to its caller).
        if let Some(lookup) = BucketLookup::new(bounds) {
            group.bench_function("slot_lookup", |b| {
                let mut i = 0usize;
                b.iter(|| {
                    i = i.wrapping_add(1);
                    black_box(&lookup).index(values[i & MASK])
                })
            });
        }
        group.finish();
    }
}

/// An atomic alone on its cache-line pair (128 bytes: adjacent-line prefetchers fetch pairs).
#[repr(align(128))]
#[derive(Default)]
struct Padded(AtomicU64);

fn separate_counters(c: &mut Criterion) {
    let threads = threads();
    let adjacent: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
    let padded: Vec<Padded> = (0..threads).map(|_| Padded::default()).collect();
    let family: Family<EngineLabels, Counter> = new_family(SeriesSpec::new());
    let cached: Vec<Counter> = (0..threads as u32)
        .map(|engine| family.get_or_create(&EngineLabels::engine(engine)))
        .collect();
    let mut group = c.benchmark_group(format!("separate_counters_{threads}t"));
    macro_rules! candidate {
        ($id:literal, $series:expr, $inc:expr) => {
            group.bench_function($id, |b| {
                b.iter_custom(|iters| {
                    time_contended(threads, iters, |thread, iters| {
                        let series = &$series[thread];
                        for _ in 0..iters {
                            $inc(black_box(series));
                        }
                    })
                })
            });
        };
    }
    candidate!("raw_adjacent", adjacent, |a: &AtomicU64| a
        .fetch_add(1, Ordering::Relaxed));
    candidate!("raw_padded", padded, |a: &Padded| a
        .0
        .fetch_add(1, Ordering::Relaxed));
    candidate!("cached_handle", cached, |c: &Counter| c.inc());
    group.finish();
}

fn separate_histograms(c: &mut Criterion) {
    let threads = threads();
    let values = observations();
    let ours: Vec<metric_handles::Histogram> = (0..threads)
        .map(|_| metric_handles::Histogram::new(ITL_BUCKETS))
        .collect();
    let pc: Vec<prometheus_client::metrics::histogram::Histogram> = (0..threads)
        .map(|_| prometheus_client::metrics::histogram::Histogram::new(ITL_BUCKETS))
        .collect();
    let mut group = c.benchmark_group(format!("separate_histograms_{threads}t"));
    macro_rules! candidate {
        ($id:literal, $series:expr) => {
            group.bench_function($id, |b| {
                b.iter_custom(|iters| {
                    time_contended(threads, iters, |thread, iters| {
                        let series = &$series[thread];
                        for i in 0..iters as usize {
                            black_box(series).observe(values[i & MASK]);
                        }
                    })
                })
            });
        };
    }
    candidate!("ours", ours);
    candidate!("pc_histogram", pc);
    group.finish();
}

criterion_group!(
    benches,
    bucket_search,
    separate_counters,
    separate_histograms
);
criterion_main!(benches);
