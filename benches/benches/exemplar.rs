//! An observation with an exemplar against the observation alone: a histogram `observe` plus
//! a write into the bucket's exemplar slot (with the caller's timestamp, and stamped now), on
//! one thread. The bucket index is found here with a binary search over the bounds; once the
//! histogram records exemplars itself it reuses the index its observe already found.

use std::hint::black_box;
use std::time::{Duration, UNIX_EPOCH};

use criterion::{criterion_group, criterion_main, Criterion};
use metric_handles::{ExemplarLabels, ExemplarSlots, Histogram};

/// Observed values, cycled: they fall in different buckets.
const VALUES: [f64; 8] = [0.0002, 0.0009, 0.003, 0.02, 0.07, 0.4, 1.3, 5.0];

fn exemplar(c: &mut Criterion) {
    let bounds = metric_handles::buckets::exponential(0.0001, 2.0, 16);
    let histogram = Histogram::new(bounds.iter().copied());
    let slots = ExemplarSlots::new(bounds.len() + 1);
    let at = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let trace: &[(&str, &str)] = &[("trace_id", "3a2f90c9f80b894f3a2f90c9f80b894f")];
    let bucket = |value: f64| bounds.partition_point(|&bound| bound < value);
    let mut group = c.benchmark_group("exemplar_1t");
    let mut i = 0;
    group.bench_function("observe", |b| {
        b.iter(|| {
            i = (i + 1) % VALUES.len();
            black_box(&histogram).observe(black_box(VALUES[i]));
        });
    });
    group.bench_function("observe_with_exemplar", |b| {
        b.iter(|| {
            i = (i + 1) % VALUES.len();
            let value = black_box(VALUES[i]);
            black_box(&histogram).observe(value);
            let _ = black_box(&slots).record(bucket(value), &trace, value, Some(at));
        });
    });
    group.bench_function("observe_with_exemplar_stamped_now", |b| {
        b.iter(|| {
            i = (i + 1) % VALUES.len();
            let value = black_box(VALUES[i]);
            black_box(&histogram).observe(value);
            let _ = black_box(&slots).record(bucket(value), &trace, value, None);
        });
    });
    group.bench_function("exemplar_only", |b| {
        b.iter(|| {
            i = (i + 1) % VALUES.len();
            let value = black_box(VALUES[i]);
            let _ = black_box(&slots).record(bucket(value), &trace, value, Some(at));
        });
    });
    group.bench_function("labels_only", |b| {
        b.iter(|| {
            let mut out = metric_handles::EncodedLabels::new();
            let _ = black_box(&trace).encode_exemplar_labels(&mut out);
            black_box(&out);
        });
    });
    group.finish();
}

criterion_group!(benches, exemplar);
criterion_main!(benches);
