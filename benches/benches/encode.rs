//! Scrape cost and what a scrape costs recording.
//!
//! * `encode_same_shape_{64,1024}_{openmetrics,text}`: the same exposition shape
//!   ([`same_shape`]) encoded by this crate (`ExpositionFormat::encode_into`, reusing the
//!   buffer) and by prometheus-client's text encoders on its own families of the same shape
//!   and values (reusing the string), in OpenMetrics and in the Prometheus text format 0.0.4.
//!   Each id's throughput is its exposition's size, so the report compares time per byte.
//! * `encode_same_shape_{64,1024}_openmetrics_busy`: the same in OpenMetrics,
//!   with one observation recorded into every histogram series before each scrape, on both
//!   sides, outside the timed part (through handles held for the purpose). The groups above
//!   scrape series that stay as they are between scrapes, which a scrape of ours can skip
//!   reading; here every histogram has new observations to read.
//! * `encode_same_shape_{64,1024}_protobuf`: the same shapes in the Prometheus protobuf
//!   format, ours against our OpenMetrics text of the same registry and against
//!   prometheus-client's protobuf encoder over its families.
//! * `encode_native_64_protobuf` and `encode_native_64_protobuf_busy`: the shape at 64 label
//!   sets with native buckets beside the classic ones in every histogram, in protobuf (the one
//!   format that carries them): ours against prometheus-client's protobuf encoder over its
//!   `new_classic_and_native` histograms, first with series idle between scrapes, then with
//!   one observation recorded into every histogram series before each scrape (outside the
//!   timed part, on both sides).
//! * `scrape_while_recording`: request lifecycles recorded on 2 threads (an engine each) into
//!   the 64-engine vLLM registry, alone and while a third thread scrapes that registry in a
//!   loop. The figure is the recording threads' own CPU time per lifecycle (the slower
//!   thread's CPU clock, not the wall clock): on a 2-core machine three busy threads share two
//!   cores, and the wall clock would measure that sharing, not what the scrape does to
//!   recording (cache lines, locks).

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use metric_handles::ExpositionFormat;
use metric_handles_benches::cpu::thread_cpu_ns;
use metric_handles_benches::fixtures::observations;
use metric_handles_benches::same_shape;
use metric_handles_benches::vllm_fixtures::{record_engines, recorders, request};

fn encode_same_shape(c: &mut Criterion) {
    for label_sets in [64u32, 1024] {
        let ours = same_shape::ours(label_sets).registry;
        let baseline = same_shape::prometheus_client(label_sets).registry;
        for (format, id) in [
            (ExpositionFormat::OpenMetrics, "openmetrics"),
            (ExpositionFormat::PrometheusText, "text"),
        ] {
            let encode_baseline = |text: &mut String| match format {
                ExpositionFormat::OpenMetrics => {
                    prometheus_client::encoding::text::encode(text, &baseline)
                }
                _ => prometheus_client::encoding::prometheus_text::encode(text, &baseline),
            };
            let mut body = Vec::new();
            format.encode_into(&ours, &mut body).expect("encodes");
            let mut text = String::new();
            encode_baseline(&mut text).expect("encodes");
            eprintln!(
                "encode_same_shape_{label_sets}_{id}: ours {} bytes, prometheus-client {} bytes",
                body.len(),
                text.len()
            );
            let mut group = c.benchmark_group(format!("encode_same_shape_{label_sets}_{id}"));
            group.throughput(Throughput::Bytes(body.len() as u64));
            group.bench_function("ours", |b| {
                b.iter(|| {
                    body.clear();
                    format.encode_into(black_box(&ours), &mut body)
                })
            });
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_function("prometheus_client", |b| {
                b.iter(|| {
                    text.clear();
                    encode_baseline(&mut text)
                })
            });
            group.finish();
        }
    }
}

/// [`encode_same_shape`] at 64 and 1,024 label sets in OpenMetrics, every histogram series
/// recorded into before each scrape (see the module documentation).
fn encode_same_shape_busy(c: &mut Criterion) {
    for label_sets in [64, 1024] {
        encode_same_shape_busy_at(c, label_sets);
    }
}

fn encode_same_shape_busy_at(c: &mut Criterion, label_sets: u32) {
    let ours = same_shape::ours(label_sets);
    let baseline = same_shape::prometheus_client(label_sets);
    let values = observations();
    let mut body = Vec::new();
    ExpositionFormat::OpenMetrics
        .encode_into(&ours.registry, &mut body)
        .expect("encodes");
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &baseline.registry).expect("encodes");
    let mut group = c.benchmark_group(format!("encode_same_shape_{label_sets}_openmetrics_busy"));
    group.throughput(Throughput::Bytes(body.len() as u64));
    let mut round = 0;
    group.bench_function("ours", |b| {
        b.iter_batched(
            || {
                round += 1;
                let value = values[round % values.len()];
                ours.histograms.iter().for_each(|h| h.observe(value));
            },
            |()| {
                body.clear();
                ExpositionFormat::OpenMetrics.encode_into(black_box(&ours.registry), &mut body)
            },
            BatchSize::PerIteration,
        )
    });
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("prometheus_client", |b| {
        b.iter_batched(
            || {
                round += 1;
                let value = values[round % values.len()];
                baseline.histograms.iter().for_each(|h| h.observe(value));
            },
            |()| {
                text.clear();
                prometheus_client::encoding::text::encode(&mut text, black_box(&baseline.registry))
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

/// The same shapes in the Prometheus protobuf format: ours (`encode_into`, reusing the
/// buffer), our OpenMetrics text of the same registry (the target: protobuf no slower), and
/// prometheus-client's protobuf encoder (`encode_to_vec`, its one call that writes the bytes)
/// over its own families of the same shape and values.
fn encode_same_shape_protobuf(c: &mut Criterion) {
    use prometheus_client::encoding::prometheus_protobuf;

    for label_sets in [64u32, 1024] {
        let ours = same_shape::ours(label_sets).registry;
        let baseline = same_shape::prometheus_client(label_sets).registry;
        let mut body = Vec::new();
        ExpositionFormat::PrometheusProtobuf
            .encode_into(&ours, &mut body)
            .expect("encodes");
        let theirs = prometheus_protobuf::encode_to_vec(&baseline).expect("encodes");
        eprintln!(
            "encode_same_shape_{label_sets}_protobuf: ours {} bytes, prometheus-client {} bytes",
            body.len(),
            theirs.len()
        );
        let mut group = c.benchmark_group(format!("encode_same_shape_{label_sets}_protobuf"));
        for (id, format) in [
            ("ours", ExpositionFormat::PrometheusProtobuf),
            ("ours_openmetrics", ExpositionFormat::OpenMetrics),
        ] {
            group.bench_function(id, |b| {
                b.iter(|| {
                    body.clear();
                    format.encode_into(black_box(&ours), &mut body)
                })
            });
        }
        group.bench_function("prometheus_client", |b| {
            b.iter(|| prometheus_protobuf::encode_to_vec(black_box(&baseline)))
        });
        group.finish();
    }
}

/// [`same_shape::ours_native`] and [`same_shape::prometheus_client_native`] at 64 label sets
/// in protobuf, idle and busy (see the module documentation).
fn encode_native_protobuf(c: &mut Criterion) {
    use prometheus_client::encoding::prometheus_protobuf;

    let ours = same_shape::ours_native(64);
    let baseline = same_shape::prometheus_client_native(64);
    let values = observations();
    let mut body = Vec::new();
    ExpositionFormat::PrometheusProtobuf
        .encode_into(&ours.registry, &mut body)
        .expect("encodes");
    let theirs = prometheus_protobuf::encode_to_vec(&baseline.registry).expect("encodes");
    eprintln!(
        "encode_native_64_protobuf: ours {} bytes, prometheus-client {} bytes",
        body.len(),
        theirs.len()
    );
    let mut round = 0;
    let mut next_value = || {
        round += 1;
        values[round % values.len()]
    };
    for (group, busy) in [
        ("encode_native_64_protobuf", false),
        ("encode_native_64_protobuf_busy", true),
    ] {
        let mut group = c.benchmark_group(group);
        group.bench_function("ours", |b| {
            b.iter_batched(
                || {
                    if busy {
                        let value = next_value();
                        ours.histograms.iter().for_each(|h| h.observe(value));
                    }
                },
                |()| {
                    body.clear();
                    ExpositionFormat::PrometheusProtobuf
                        .encode_into(black_box(&ours.registry), &mut body)
                },
                BatchSize::PerIteration,
            )
        });
        group.bench_function("prometheus_client", |b| {
            b.iter_batched(
                || {
                    if busy {
                        let value = next_value();
                        baseline.histograms.iter().for_each(|h| h.observe(value));
                    }
                },
                |()| prometheus_protobuf::encode_to_vec(black_box(&baseline.registry)),
                BatchSize::PerIteration,
            )
        });
        group.finish();
    }
}

fn scrape_while_recording(c: &mut Criterion) {
    const ENGINES: u32 = 64;
    const RECORDERS: usize = 2;
    let (registry, ours, _, _) = recorders();
    record_engines(&ours, ENGINES);
    let request = request();
    // `iters` lifecycles on each recording thread; the slowest thread's CPU time.
    let record = |iters: u64| {
        let barrier = Barrier::new(RECORDERS);
        std::thread::scope(|scope| {
            let threads: Vec<_> = (0..RECORDERS)
                .map(|thread| {
                    let (barrier, ours, request) = (&barrier, &ours, &request);
                    scope.spawn(move || {
                        barrier.wait();
                        let start = thread_cpu_ns();
                        for _ in 0..iters {
                            let mut tracker = ours.requests().track(thread as u32, request.params);
                            for (batch, received, output) in &request.outputs {
                                tracker.observe_output(*batch, *received, black_box(output));
                            }
                        }
                        thread_cpu_ns().saturating_sub(start)
                    })
                })
                .collect();
            let slowest = threads
                .into_iter()
                .map(|thread| thread.join().unwrap_or(0))
                .max()
                .unwrap_or(0);
            Duration::from_nanos(slowest)
        })
    };
    let mut group = c.benchmark_group("scrape_while_recording");
    group.bench_function("recording_alone", |b| b.iter_custom(record));
    group.bench_function("with_scraper", |b| {
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let mut body = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    body.clear();
                    let _ = ExpositionFormat::OpenMetrics.encode_into(&registry, &mut body);
                }
            });
            b.iter_custom(record);
            stop.store(true, Ordering::Relaxed);
        });
    });
    group.finish();
}

criterion_group!(
    benches,
    encode_same_shape,
    encode_same_shape_busy,
    encode_same_shape_protobuf,
    encode_native_protobuf,
    scrape_while_recording
);
criterion_main!(benches);
