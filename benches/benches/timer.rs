//! Timing a span into a histogram: the timer guard against what a hand-written timing does (a
//! clock read at the start, one at the end, and a direct `observe` of the difference).

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use metric_handles::Histogram;

fn timer(c: &mut Criterion) {
    let histogram = Histogram::new(metric_handles::buckets::exponential(0.0001, 2.0, 16));
    let mut group = c.benchmark_group("timer_1t");
    group.bench_function("ours", |b| {
        b.iter(|| drop(black_box(&histogram).start_timer()));
    });
    group.bench_function("clock_and_observe", |b| {
        b.iter(|| {
            let start = Instant::now();
            black_box(&histogram).observe(start.elapsed().as_secs_f64());
        });
    });
    group.finish();
}

criterion_group!(benches, timer);
criterion_main!(benches);
