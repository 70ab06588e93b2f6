//! The vLLM recorders against the per-record-lookup baseline (how vLLM recorded before it
//! cached handles): a whole request lifecycle (on 1 thread, and on `BENCH_THREADS` threads
//! recording into the same engine), one `SchedulerStats` record (on 1 thread, and on
//! `BENCH_THREADS` threads with an engine each, below and past the engine table's lock-free
//! slots), and encoding the registry for 1, 8 and 64 engines, in text and in protobuf.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use metric_handles::vllm::request::{FinishReason, RequestLifecycle};
use metric_handles::vllm::scheduler::SchedulerStats;
use metric_handles::Registry;
use metric_handles_benches::baseline::LookupTracker;
use metric_handles_benches::contended::{threads, time_contended};
use metric_handles_benches::vllm_fixtures::{recorders, request, scheduler_stats};
use prometheus_client::registry::Registry as BaselineRegistry;

fn request_lifecycle(c: &mut Criterion) {
    let (_r1, ours, _r2, baseline) = recorders();
    let request = request();
    let mut group = c.benchmark_group("request_lifecycle");
    group.bench_function("ours", |b| {
        b.iter(|| {
            let mut tracker = ours.requests().track(0, request.params);
            for (batch, received, output) in &request.outputs {
                tracker.observe_output(*batch, *received, black_box(output));
            }
            debug_assert!(tracker.is_finished());
        })
    });
    // The floor: the lifecycle arithmetic both recorders share, recording nothing.
    group.bench_function("arithmetic_only", |b| {
        b.iter(|| {
            let mut lifecycle = RequestLifecycle::new(request.params);
            for (batch, received, output) in &request.outputs {
                black_box(lifecycle.observe_output(*batch, *received, black_box(output)));
                if let Some(reason) = output.finish_reason {
                    black_box(lifecycle.finish(reason, *received));
                }
            }
        })
    });
    group.bench_function("lookup_baseline", |b| {
        b.iter(|| {
            let mut tracker = LookupTracker::new(&baseline, 0, request.params);
            for (batch, received, output) in &request.outputs {
                tracker.observe_output(*batch, *received, black_box(output));
            }
        })
    });
    group.finish();
}

/// `BENCH_THREADS` threads each running whole request lifecycles on the same engine at once:
/// every thread records into the same series (the frontend's tasks share an engine's handles).
fn request_lifecycle_contended(c: &mut Criterion) {
    let (_r1, ours, _r2, baseline) = recorders();
    let request = request();
    let threads = threads();
    let mut group = c.benchmark_group(format!("request_lifecycle_{threads}t"));
    group.bench_function("ours", |b| {
        b.iter_custom(|iters| {
            time_contended(threads, iters, |_, iters| {
                for _ in 0..iters {
                    let mut tracker = ours.requests().track(0, request.params);
                    for (batch, received, output) in &request.outputs {
                        tracker.observe_output(*batch, *received, black_box(output));
                    }
                }
            })
        })
    });
    group.bench_function("lookup_baseline", |b| {
        b.iter_custom(|iters| {
            time_contended(threads, iters, |_, iters| {
                for _ in 0..iters {
                    let mut tracker = LookupTracker::new(&baseline, 0, request.params);
                    for (batch, received, output) in &request.outputs {
                        tracker.observe_output(*batch, *received, black_box(output));
                    }
                }
            })
        })
    });
    group.finish();
}

fn scheduler(c: &mut Criterion) {
    let (_r1, ours, _r2, baseline) = recorders();
    let stats = scheduler_stats();
    let mut group = c.benchmark_group("scheduler_stats");
    group.bench_function("ours", |b| {
        b.iter(|| ours.scheduler().record(0, black_box(&stats)))
    });
    group.bench_function("lookup_baseline", |b| {
        b.iter(|| baseline.record_scheduler_stats(0, black_box(&stats)))
    });
    group.finish();
}

/// `BENCH_THREADS` threads each recording light `SchedulerStats` steps into an engine of its
/// own: engines 0, 1, ... (the table's lock-free slots) against engines 300, 301, ... (past
/// them). The series are the threads' own, so what the two share is the engine lookup.
fn scheduler_contended(c: &mut Criterion) {
    let (_registry, ours, _r2, _baseline) = recorders();
    let stats = SchedulerStats {
        num_running_reqs: 4,
        ..Default::default()
    };
    let threads = threads();
    let mut group = c.benchmark_group(format!("scheduler_stats_{threads}t"));
    for (id, first_engine) in [("slot_engines", 0u32), ("engines_past_slots", 300)] {
        let engines = first_engine..first_engine + threads as u32;
        for engine in engines.clone() {
            ours.scheduler().add_engine(engine);
        }
        group.bench_function(id, |b| {
            b.iter_custom(|iters| {
                time_contended(threads, iters, |thread, iters| {
                    let engine = first_engine + thread as u32;
                    for _ in 0..iters {
                        ours.scheduler()
                            .record(black_box(engine), black_box(&stats));
                    }
                })
            })
        });
    }
    group.finish();
}

/// Our registry and the baseline's after `engines` engines have each recorded one scheduler
/// step and one finished request (for each finish reason in the baseline, whose families only
/// hold the label sets that were recorded; ours exports every enum value from the start).
fn loaded_registries(engines: u32) -> (Registry, BaselineRegistry) {
    let (ours_registry, ours, baseline_registry, baseline) = recorders();
    let stats = scheduler_stats();
    let request = request();
    for engine in 0..engines {
        ours.scheduler().record(engine, &stats);
        baseline.record_scheduler_stats(engine, &stats);
        let mut tracker = ours.requests().track(engine, request.params);
        let mut lookup = LookupTracker::new(&baseline, engine, request.params);
        for (batch, received, output) in &request.outputs {
            tracker.observe_output(*batch, *received, output);
            lookup.observe_output(*batch, *received, output);
        }
        for reason in [FinishReason::Stop, FinishReason::Abort, FinishReason::Error] {
            let mut extra = LookupTracker::new(&baseline, engine, request.params);
            extra.observe_output(0.0, 0.0, &Default::default());
            extra.finish(reason, 1.0);
        }
    }
    (ours_registry, baseline_registry)
}

/// Scrape cost as engines are added, both in OpenMetrics text (prometheus-client's format).
fn encode(c: &mut Criterion) {
    for engines in [1u32, 8, 64] {
        let (ours_registry, baseline_registry) = loaded_registries(engines);
        let mut group = c.benchmark_group(format!("encode_{engines}_engines"));
        group.bench_function("ours", |b| {
            b.iter(|| metric_handles::ExpositionFormat::OpenMetrics.encode(&ours_registry))
        });
        group.bench_function("pc_families", |b| {
            b.iter(|| {
                let mut text = String::new();
                prometheus_client::encoding::text::encode(&mut text, &baseline_registry)
                    .map(|()| text)
            })
        });
        group.finish();
    }
}

/// The 64-engine scrape in the Prometheus protobuf format, against OpenMetrics text of the same
/// registry (the baseline of the ratio): ours (the protobuf writer over this crate's families,
/// the messages written straight into the caller's buffer), and
/// prometheus-client's `encode_to_vec` over the baseline's prometheus-client families with
/// the same series (fewer: the baseline's families hold only the label sets recorded). Each
/// appends to a buffer kept across iterations; the handler (last) makes a new body per scrape
/// and gzips it. The body sizes are printed once.
fn protobuf(c: &mut Criterion) {
    use std::sync::Arc;

    use metric_handles::serve::{MetricsHandler, ScrapeRequest};
    use metric_handles::ExpositionFormat;
    use prometheus_client::encoding::prometheus_protobuf;

    let (ours_registry, baseline_registry) = loaded_registries(64);
    let mut body = Vec::new();
    for format in [
        ExpositionFormat::OpenMetrics,
        ExpositionFormat::PrometheusProtobuf,
    ] {
        body.clear();
        let bytes = format
            .encode_into(&ours_registry, &mut body)
            .map(|()| body.len());
        eprintln!("protobuf_64_engines: {format:?} {bytes:?} bytes");
    }
    let pc_bytes = prometheus_protobuf::encode_to_vec(&baseline_registry).map(|b| b.len());
    eprintln!("protobuf_64_engines: prometheus-client families, protobuf {pc_bytes:?} bytes");
    let mut group = c.benchmark_group("protobuf_64_engines");
    for (name, format) in [
        ("openmetrics_text", ExpositionFormat::OpenMetrics),
        ("ours", ExpositionFormat::PrometheusProtobuf),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                body.clear();
                format.encode_into(black_box(&ours_registry), &mut body)
            })
        });
    }
    group.bench_function("pc_families_encode_to_vec", |b| {
        b.iter(|| prometheus_protobuf::encode_to_vec(black_box(&baseline_registry)))
    });
    // The handler answering Prometheus with native histograms (protobuf first), gzip level 1.
    let handler = MetricsHandler::new(Arc::new(ours_registry));
    let scrape = ScrapeRequest {
        accept: Some(
            "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;\
             encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,*/*;q=0.1",
        ),
        accept_encoding: Some("gzip"),
        ..ScrapeRequest::get()
    };
    let gzipped = handler.respond(&scrape).body().len();
    eprintln!("protobuf_64_engines: protobuf, gzip level 1: {gzipped} bytes");
    group.bench_function("ours_handler_gzip_1", |b| {
        b.iter(|| handler.respond(black_box(&scrape)))
    });
    group.finish();
}

/// The 64-engine scrape served by the `/metrics` handler: a bare OpenMetrics encode, the
/// handler answering identity (the encode, on a thread of its own, plus the negotiation and
/// the answer), and gzip at levels 1, 6 and 9 (the body sizes are printed once).
fn serve(c: &mut Criterion) {
    use std::sync::Arc;

    use metric_handles::serve::{HandlerOptions, MetricsHandler, ScrapeRequest};
    use metric_handles::ExpositionFormat;

    let (registry, ours, _, _) = recorders();
    let stats = scheduler_stats();
    let request = request();
    for engine in 0..64 {
        ours.scheduler().record(engine, &stats);
        let mut tracker = ours.requests().track(engine, request.params);
        for (batch, received, output) in &request.outputs {
            tracker.observe_output(*batch, *received, output);
        }
    }
    let registry = Arc::new(registry);
    const ACCEPT: &str = "application/openmetrics-text;version=1.0.0,*/*;q=0.1";
    let accept = Some(ACCEPT);
    let scrape = |accept_encoding| ScrapeRequest {
        accept,
        accept_encoding,
        ..ScrapeRequest::get()
    };
    let identity_bytes = ExpositionFormat::OpenMetrics
        .encode(&registry)
        .map_or(0, |t| t.len());
    eprintln!("serve_64_engines: identity {identity_bytes} bytes");
    let mut group = c.benchmark_group("serve_64_engines");
    group.bench_function("bare_encode", |b| {
        b.iter(|| ExpositionFormat::OpenMetrics.encode(black_box(&registry)))
    });
    let identity = MetricsHandler::new(Arc::clone(&registry));
    group.bench_function("handler_identity", |b| {
        b.iter(|| identity.respond(black_box(&scrape(None))))
    });
    // With a timeout, as Prometheus scrapes: the encode runs on a thread of its own.
    group.bench_function("handler_identity_timeout", |b| {
        b.iter(|| {
            identity.respond(black_box(&ScrapeRequest {
                scrape_timeout: Some("10"),
                ..scrape(None)
            }))
        })
    });
    // The tower service on a 2-thread tokio runtime, as axum calls it: the encode on the
    // blocking pool, whose threads are kept.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .expect("a tokio runtime");
    let service = identity.service();
    group.bench_function("service_identity_timeout", |b| {
        b.iter(|| {
            let request = http::Request::get("/metrics")
                .header("accept", ACCEPT)
                .header("x-prometheus-scrape-timeout-seconds", "10")
                .body(())
                .expect("a request");
            let mut service = service.clone();
            runtime.block_on(tower_service::Service::call(&mut service, request))
        })
    });
    for level in [1, 6, 9] {
        let options = HandlerOptions {
            gzip_level: level,
            ..HandlerOptions::default()
        };
        let handler = MetricsHandler::with_options(Arc::clone(&registry), options);
        let bytes = handler.respond(&scrape(Some("gzip"))).body().len();
        eprintln!("serve_64_engines: gzip level {level}: {bytes} bytes");
        group.bench_function(format!("handler_gzip_{level}"), |b| {
            b.iter(|| handler.respond(black_box(&scrape(Some("gzip")))))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    request_lifecycle,
    request_lifecycle_contended,
    scheduler,
    scheduler_contended,
    encode,
    protobuf,
    serve
);
criterion_main!(benches);
