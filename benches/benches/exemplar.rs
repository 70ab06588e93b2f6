//! Recording with an exemplar against recording without, on one thread: a histogram
//! `observe` beside `observe_with_exemplar` (the exemplar stamped with the caller's time, and
//! stamped now), with the trace id as a slice checked on every record and as `EncodedLabels`
//! checked once; a counter `inc` beside `inc_with_exemplar`. And the pieces on their own: the
//! label check, and reading the clock.

use std::hint::black_box;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use criterion::{criterion_group, criterion_main, Criterion};
use metric_handles::exemplar::{EncodedLabels, ExemplarLabels};
use metric_handles::{Counter, Histogram};

/// Observed values, cycled: they fall in different buckets.
const VALUES: [f64; 8] = [0.0002, 0.0009, 0.003, 0.02, 0.07, 0.4, 1.3, 5.0];

const TRACE: &[(&str, &str)] = &[("trace_id", "3a2f90c9f80b894f3a2f90c9f80b894f")];

fn histogram(c: &mut Criterion) {
    let bounds = metric_handles::buckets::exponential(0.0001, 2.0, 16);
    let histogram = Histogram::new(bounds.iter().copied());
    let at = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let checked = EncodedLabels::try_from_pairs(TRACE).expect("a valid trace id");
    let mut group = c.benchmark_group("exemplar_1t");
    let mut i = 0;
    group.bench_function("observe", |b| {
        b.iter(|| {
            i = (i + 1) % VALUES.len();
            black_box(&histogram).observe(black_box(VALUES[i]));
        });
    });
    group.bench_function("observe_with_exemplar_at", |b| {
        b.iter(|| {
            i = (i + 1) % VALUES.len();
            let _ = black_box(&histogram).observe_with_exemplar_at(
                black_box(VALUES[i]),
                black_box(TRACE),
                at,
            );
        });
    });
    group.bench_function("observe_with_checked_exemplar_at", |b| {
        b.iter(|| {
            i = (i + 1) % VALUES.len();
            let _ = black_box(&histogram).observe_with_exemplar_at(
                black_box(VALUES[i]),
                black_box(&checked),
                at,
            );
        });
    });
    group.bench_function("observe_with_exemplar_stamped_now", |b| {
        b.iter(|| {
            i = (i + 1) % VALUES.len();
            let _ =
                black_box(&histogram).observe_with_exemplar(black_box(VALUES[i]), black_box(TRACE));
        });
    });
    group.bench_function("clock_read", |b| {
        b.iter(|| black_box(SystemTime::now()));
    });
    group.bench_function("labels_only", |b| {
        b.iter(|| {
            let mut out = EncodedLabels::new();
            let _ = black_box(TRACE).encode_exemplar_labels(&mut out);
            black_box(&out);
        });
    });
    group.finish();
}

fn counter(c: &mut Criterion) {
    let counter: Counter = Counter::default();
    let at = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let mut group = c.benchmark_group("exemplar_counter_1t");
    group.bench_function("inc", |b| {
        b.iter(|| black_box(&counter).inc());
    });
    group.bench_function("inc_with_exemplar_at", |b| {
        b.iter(|| {
            let _ = black_box(&counter).inc_by_with_exemplar_at(1, black_box(TRACE), at);
        });
    });
    group.bench_function("inc_with_exemplar_stamped_now", |b| {
        b.iter(|| {
            let _ = black_box(&counter).inc_with_exemplar(black_box(TRACE));
        });
    });
    group.finish();
}

criterion_group!(benches, histogram, counter);
criterion_main!(benches);
