//! A steady scrape into a reused buffer allocates nothing: every family of this crate is
//! written from bytes rendered at registration and when its series were created, and a
//! histogram is read into a buffer the thread keeps. Exemplars are read into a buffer on the
//! stack.

use std::sync::atomic::AtomicU64;

use crate::counting::allocations_during;
use metric_handles::__private::register_family;
use metric_handles::axis::{ByLabels, Position};
use metric_handles::descriptor::{LabelAxis, MetricDescriptor, MetricKind};
use metric_handles::histogram::GaugeHistogram;
use metric_handles::{
    Buckets, ByLabel, ByPosition, Counter, Dynamic, ExpositionFormat, Family, Gauge, Histogram,
    Info, LabelEnum, LabelSet, RegisterOptions, Registry, StateSet,
};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
struct Engine {
    model_name: String,
    engine: u32,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
struct Tenant {
    tenant: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
enum Reason {
    Stop,
    Length,
}

const KEYS: &[&str] = &["model_name", "engine"];
const GRID: &[LabelAxis] = &[
    LabelAxis::Enum {
        key: "reason",
        values: Reason::VALUES,
    },
    LabelAxis::Position {
        key: "slot",
        count: 2,
    },
];

fn family<M: metric_handles::member::FamilyMember>(
    registry: &mut Registry,
    descriptor: MetricDescriptor,
) -> Family<Engine, M> {
    let descriptor = descriptor
        .common_labels(KEYS)
        .buckets(Buckets::Explicit(&[0.1, 1.0, 10.0]));
    register_family(registry, &descriptor, &RegisterOptions::default())
}

/// Every member kind, with series recorded into, on two levels of a tree (the second with a
/// prefix and a const label).
fn registry() -> Registry {
    let mut root = Registry::default();
    populate(&mut root);
    populate(
        root.sub_registry_with_prefix("sub")
            .sub_registry_with_label(("zone".into(), "eu\r".into())),
    );
    root
}

/// One family of each member kind in `registry`, recorded into for four label sets (past the
/// label-set limit of one family and the series limit of the dynamic axis).
fn populate(registry: &mut Registry) {
    {
        let d = |name, kind| MetricDescriptor::new(name, name, kind, "", "Help \"text\"");
        let counter: Family<Engine, Counter> = family(registry, d("c", MetricKind::Counter));
        let float: Family<Engine, Counter<f64, AtomicU64>> =
            family(registry, d("f", MetricKind::Counter).unit("seconds"));
        let gauge: Family<Engine, Gauge<f64, AtomicU64>> =
            family(registry, d("g", MetricKind::Gauge));
        let histogram: Family<Engine, Histogram> = family(registry, d("h", MetricKind::Histogram));
        let reasons: Family<Engine, ByLabel<Reason, Counter>> = family(
            registry,
            d("r", MetricKind::Counter).axis(LabelAxis::Enum {
                key: "reason",
                values: Reason::VALUES,
            }),
        );
        let positions: Family<Engine, ByPosition<Histogram>> = family(
            registry,
            d("p", MetricKind::Histogram).axis(LabelAxis::Position {
                key: "position",
                count: 2,
            }),
        );
        let grid: Family<Engine, ByLabels<(Reason, Position), Gauge>> = family(
            registry,
            d("grid", MetricKind::Gauge).axis(LabelAxis::Grid { axes: GRID }),
        );
        let tenants: Family<Engine, Dynamic<Tenant, Counter>> = family(
            registry,
            d("t", MetricKind::Counter)
                .axis(LabelAxis::Dynamic { keys: &["tenant"] })
                .max_series(1),
        );
        let limited: Family<Engine, Counter> =
            family(registry, d("l", MetricKind::Counter).max_label_sets(2));
        let waiting: Family<Engine, GaugeHistogram> =
            family(registry, d("gh", MetricKind::GaugeHistogram));
        let build: Family<Engine, Info> = family(registry, d("build", MetricKind::Info));
        let phase: Family<Engine, StateSet<Reason>> =
            family(registry, d("phase", MetricKind::StateSet));
        for engine in 0..4 {
            let labels = Engine {
                model_name: "meta-llama/Llama-3.1-8B-Instruct".into(),
                engine,
            };
            // Exemplars on the first engine's counters and histogram: OpenMetrics writes them.
            let trace: &[(&str, &str)] = &[("trace_id", "3a2f\"90")];
            if engine == 0 {
                let _ = counter.get_or_create(&labels).inc_with_exemplar(trace);
                let _ = histogram
                    .get_or_create(&labels)
                    .observe_with_exemplar(0.5, trace);
                let _ = reasons
                    .get_or_create(&labels)
                    .get(Reason::Length)
                    .inc_with_exemplar(trace);
            } else {
                counter.get_or_create(&labels).inc();
                histogram.get_or_create(&labels).observe(0.5);
                reasons.get_or_create(&labels).get(Reason::Length).inc();
            }
            float.get_or_create(&labels).inc_by(0.25);
            waiting.get_or_create(&labels).add(2.0);
            build.get_or_create(&labels);
            phase.get_or_create(&labels).set(Reason::Length);
            gauge.get_or_create(&labels).set(1.5);
            let draft = positions.get_or_create(&labels);
            draft.get_or_create(1).observe(2.0);
            draft.get_or_create(5).observe(2.0);
            grid.get_or_create(&labels)
                .get_or_create((Reason::Stop, 1))
                .set(3);
            let tenants = tenants.get_or_create(&labels);
            for tenant in ["a", "b"] {
                tenants
                    .get_or_create(&Tenant {
                        tenant: tenant.into(),
                    })
                    .inc();
            }
            limited.get_or_create(&labels).inc();
        }
    }
}

#[test]
fn a_steady_scrape_into_a_reused_buffer_allocates_nothing() {
    let registry = registry();
    for format in [
        ExpositionFormat::OpenMetrics,
        ExpositionFormat::PrometheusText,
    ] {
        let mut body = Vec::new();
        // The first scrape grows the buffer and the thread's histogram buffer.
        format.encode_into(&registry, &mut body).unwrap();
        let first = body.clone();
        assert!(first.len() > 2_000, "{format:?}: {} bytes", first.len());
        let exemplars = String::from_utf8_lossy(&first)
            .matches(" # {trace_id=\"3a2f\\\"90\"}")
            .count();
        let expected = match format {
            // Per level: the counter, the histogram's bucket, the enum axis's counter.
            ExpositionFormat::OpenMetrics => 6,
            _ => 0,
        };
        assert_eq!(exemplars, expected, "{format:?}");
        let allocations = allocations_during(|| {
            for _ in 0..20 {
                body.clear();
                format.encode_into(&registry, &mut body).unwrap();
            }
        });
        assert_eq!(allocations, 0, "{format:?}");
        assert_eq!(body, first, "{format:?}");
    }
}

#[test]
fn a_foreign_metric_is_encoded_by_prometheus_client_which_allocates() {
    // The counter above is only trusted if it sees the allocations of the fallback path.
    let mut registry = registry();
    registry.register(
        "foreign",
        "A prometheus-client gauge",
        metric_handles::prometheus_client::metrics::gauge::Gauge::<i64>::default(),
    );
    let mut body = Vec::new();
    ExpositionFormat::OpenMetrics
        .encode_into(&registry, &mut body)
        .unwrap();
    let allocations = allocations_during(|| {
        body.clear();
        ExpositionFormat::OpenMetrics
            .encode_into(&registry, &mut body)
            .unwrap();
    });
    assert!(allocations > 0);
}

/// The protobuf format is written by the same writer from the same series: a steady scrape of
/// this crate's families into a reused buffer allocates nothing either.
#[cfg(feature = "protobuf")]
#[test]
fn a_steady_protobuf_scrape_into_a_reused_buffer_allocates_nothing() {
    let registry = registry();
    let format = ExpositionFormat::PrometheusProtobuf;
    let mut body = Vec::new();
    format.encode_into(&registry, &mut body).unwrap();
    let first = body.clone();
    assert!(first.len() > 1_000, "{} bytes", first.len());
    let allocations = allocations_during(|| {
        for _ in 0..20 {
            body.clear();
            format.encode_into(&registry, &mut body).unwrap();
        }
    });
    assert_eq!(allocations, 0);
    assert_eq!(body, first);
}
