//! The OTLP exporter (feature `otlp`):
//!
//! * `otlp_record_with_export`: recording into 640 histogram series of the
//!   [`same_shape`] registry at 64 label sets, alone and while the exporter pushes that
//!   registry every second to a collector on 127.0.0.1 (a sink answering 200). The figure is
//!   the recording thread's own CPU time per observation (its CPU clock), so the exporter's
//!   thread sharing a core is not what is timed, only what it does to recording.
//! * `otlp_encode_vllm_64`: one OTLP request of the 64-engine vLLM registry
//!   (`OtlpEncoder::encode_into`) beside the Prometheus protobuf scrape of the same registry.
//! * `otlp_encode_same_shape_64`: the [`same_shape`] workload at 64 label sets: our OTLP
//!   request, beside our protobuf scrape, beside the OpenTelemetry SDK's collect and
//!   `opentelemetry-otlp`'s encode of the same data (`force_flush` into an HTTP client that
//!   keeps the body: no network on either side).
//!
//! Each prints the bytes of what it encodes.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use metric_handles::otlp::{OtlpConfig, OtlpEncoder};
use metric_handles::ExpositionFormat;
use metric_handles_benches::cpu::thread_cpu_ns;
use metric_handles_benches::fixtures::observations;
use metric_handles_benches::otlp_sdk::{sdk, sink};
use metric_handles_benches::same_shape;
use metric_handles_benches::vllm_fixtures::{record_engines, recorders};

fn record_with_export(c: &mut Criterion) {
    let shape = same_shape::ours(64);
    let registry = Arc::new(shape.registry);
    let histograms = shape.histograms;
    let values = observations();
    let mask = values.len() - 1;
    let mut group = c.benchmark_group("otlp_record_with_export");
    group.measurement_time(Duration::from_secs(8));
    let mut record = |b: &mut criterion::Bencher| {
        b.iter_custom(|iters| {
            let start = thread_cpu_ns();
            for i in 0..iters as usize {
                histograms[i % histograms.len()].observe(black_box(values[i & mask]));
            }
            Duration::from_nanos(thread_cpu_ns() - start)
        })
    };
    group.bench_function("alone", &mut record);
    let exporter = OtlpConfig::from_vars(|_| None)
        .endpoint(sink())
        .interval(Duration::from_secs(1))
        .start(Arc::clone(&registry))
        .expect("the exporter starts");
    group.bench_function("exporting_every_second", &mut record);
    drop(exporter);
    group.finish();
}

fn encode_vllm_64(c: &mut Criterion) {
    let (registry, ours, _, _) = recorders();
    record_engines(&ours, 64);
    let mut encoder = OtlpEncoder::new(&OtlpConfig::from_vars(|_| None));
    let (mut otlp, mut protobuf) = (Vec::new(), Vec::new());
    encoder.encode_into(&registry, &mut otlp).expect("encodes");
    ExpositionFormat::PrometheusProtobuf
        .encode_into(&registry, &mut protobuf)
        .expect("encodes");
    eprintln!(
        "otlp_encode_vllm_64: OTLP request {} bytes, protobuf scrape {} bytes",
        otlp.len(),
        protobuf.len()
    );
    let mut group = c.benchmark_group("otlp_encode_vllm_64");
    group.bench_function("otlp", |b| {
        b.iter(|| {
            otlp.clear();
            encoder.encode_into(black_box(&registry), &mut otlp)
        })
    });
    group.bench_function("protobuf_scrape", |b| {
        b.iter(|| {
            protobuf.clear();
            ExpositionFormat::PrometheusProtobuf.encode_into(black_box(&registry), &mut protobuf)
        })
    });
    group.finish();
}

fn encode_same_shape_64(c: &mut Criterion) {
    let ours = same_shape::ours(64).registry;
    let theirs = sdk(64, false);
    let mut encoder = OtlpEncoder::new(&OtlpConfig::from_vars(|_| None));
    let (mut otlp, mut protobuf) = (Vec::new(), Vec::new());
    encoder.encode_into(&ours, &mut otlp).expect("encodes");
    ExpositionFormat::PrometheusProtobuf
        .encode_into(&ours, &mut protobuf)
        .expect("encodes");
    theirs.provider.force_flush().expect("exports");
    let sdk_bytes = theirs.capture.bodies().last().map_or(0, |b| b.len());
    eprintln!(
        "otlp_encode_same_shape_64: OTLP request {} bytes, protobuf scrape {} bytes, \
         opentelemetry-otlp request {sdk_bytes} bytes",
        otlp.len(),
        protobuf.len()
    );
    let mut group = c.benchmark_group("otlp_encode_same_shape_64");
    group.throughput(Throughput::Elements(1));
    group.bench_function("otlp", |b| {
        b.iter(|| {
            otlp.clear();
            encoder.encode_into(black_box(&ours), &mut otlp)
        })
    });
    group.bench_function("protobuf_scrape", |b| {
        b.iter(|| {
            protobuf.clear();
            ExpositionFormat::PrometheusProtobuf.encode_into(black_box(&ours), &mut protobuf)
        })
    });
    group.bench_function("opentelemetry_otlp", |b| {
        b.iter(|| theirs.provider.force_flush())
    });
    group.finish();
}

criterion_group!(
    benches,
    record_with_export,
    encode_vllm_64,
    encode_same_shape_64
);
criterion_main!(benches);
