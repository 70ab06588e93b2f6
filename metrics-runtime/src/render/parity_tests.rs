//! The text writer against prometheus-client's encoders: one registry tree with every member
//! kind, encoded by [`ExpositionFormat::encode`], and the same families (the very same
//! handles) registered in a prometheus-client registry of the same shape, encoded by its text
//! encoders and sanitised as every scrape was before the text writer. Both text formats,
//! label values and help text with control characters and escapes, a foreign metric between
//! two families, a collector, an included registry, and sub-registries with a prefix and
//! const labels.

use std::sync::atomic::AtomicU64;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{prometheus_text, text, DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::Counter as PcCounter;
use prometheus_client::metrics::gauge::Gauge as PcGauge;
use prometheus_client::metrics::info::Info as PcInfo;
use prometheus_client::registry::Registry as PcRegistry;

use crate::axis::grid::Position;
use crate::axis::ByLabels;
use crate::descriptor::{LabelAxis, MetricDescriptor, MetricKind};
use crate::family::register::register_family;
use crate::histogram::GaugeHistogram;
use crate::registry::Registry;
use crate::sanitize::sanitize;
use crate::{
    Buckets, ByLabel, ByPosition, Counter, Dynamic, ExpositionFormat, Family, Gauge, Histogram,
    Info, LabelEnum, LabelSet, RegisterOptions, StateSet,
};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
struct Service {
    service: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
struct Tenant {
    tenant: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
enum Operation {
    Read,
    #[label(rename = "wri\"te\\\r")]
    Write,
}

const KEYS: &[&str] = &["service"];
const BOUNDS: &[f64] = &[0.005, 0.25, 1.0, 2.5, 1e7];
const HELP: &str = "Say \"hi\" to C:\\temp\u{7}";

fn descriptor(name: &'static str, kind: MetricKind) -> MetricDescriptor {
    MetricDescriptor::new(name, name, kind, "", HELP)
        .common_labels(KEYS)
        .buckets(Buckets::Explicit(BOUNDS))
}

/// A label value with every character the encoders treat specially.
const AWKWARD: &str = "a\"b\\c\nd\re\u{0}f\u{7f}é";

fn services() -> [Service; 2] {
    [
        Service {
            service: "api".into(),
        },
        Service {
            service: AWKWARD.into(),
        },
    ]
}

/// Registers `family` in ours (through `register_family`) and the same handle in the
/// reference, under the same name, help and unit.
struct Both<'a> {
    ours: &'a mut Registry,
    reference: &'a mut PcRegistry,
}

impl Both<'_> {
    fn family<L, M>(&mut self, descriptor: MetricDescriptor) -> Family<L, M>
    where
        L: LabelSet,
        M: crate::member::FamilyMember,
    {
        let family: Family<L, M> =
            register_family(self.ours, &descriptor, &RegisterOptions::default());
        let help = crate::sanitize::help_line(descriptor.help).into_owned();
        match descriptor.unit {
            Some(unit) => self.reference.register_with_unit(
                descriptor.name,
                help,
                crate::registry::unit_from_str(unit),
                family.clone(),
            ),
            None => self
                .reference
                .register(descriptor.name, help, family.clone()),
        }
        family
    }
}

#[derive(Debug)]
struct OneCounter;

impl Collector for OneCounter {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let counter: PcCounter = PcCounter::default();
        counter.inc_by(3);
        let metric = encoder.encode_descriptor(
            "collected",
            "From a \"collector\"",
            None,
            counter.metric_type(),
        )?;
        counter.encode(metric)
    }
}

/// Registers every member kind at one level (ours and reference alike) and records into
/// them; `more` adds series past the limits, so overflow series appear.
fn populate(both: &mut Both<'_>) {
    let [api, awkward] = services();
    let counter: Family<Service, Counter> =
        both.family(descriptor("requests", MetricKind::Counter));
    let float_counter: Family<Service, Counter<f64, AtomicU64>> =
        both.family(descriptor("busy", MetricKind::Counter).unit("seconds"));
    // A foreign metric between two families of this crate.
    let foreign: PcGauge = PcGauge::default();
    foreign.set(-4);
    both.ours
        .register("foreign_gauge", "Not \"ours\"", foreign.clone());
    both.reference
        .register("foreign_gauge", "Not \"ours\"", foreign);
    let gauge: Family<Service, Gauge> = both.family(descriptor("in_flight", MetricKind::Gauge));
    let unsigned: Family<Service, Gauge<u64, AtomicU64>> =
        both.family(descriptor("queued", MetricKind::Gauge));
    let float_gauge: Family<Service, Gauge<f64, AtomicU64>> =
        both.family(descriptor("ratio", MetricKind::Gauge));
    let histogram: Family<Service, Histogram> =
        both.family(descriptor("latency", MetricKind::Histogram).unit("seconds"));
    let by_label: Family<Service, ByLabel<Operation, Counter>> = both.family(
        descriptor("operations", MetricKind::Counter).axis(LabelAxis::Enum {
            key: "operation",
            values: Operation::VALUES,
        }),
    );
    let by_position: Family<Service, ByPosition<Histogram>> = both.family(
        descriptor("draft", MetricKind::Histogram)
            .axis(LabelAxis::Position {
                key: "position",
                count: 2,
            })
            .max_series(2),
    );
    const GRID: &[LabelAxis] = &[
        LabelAxis::Enum {
            key: "operation",
            values: Operation::VALUES,
        },
        LabelAxis::Position {
            key: "slot",
            count: 2,
        },
    ];
    let grid: Family<Service, ByLabels<(Operation, Position), Gauge>> = both.family(
        descriptor("cells", MetricKind::Gauge)
            .axis(LabelAxis::Grid { axes: GRID })
            // 2 x 2 pre-resolved cells, one position beyond them, then the overflow series.
            .max_series(5),
    );
    let dynamic: Family<Service, Dynamic<Tenant, Counter>> = both.family(
        descriptor("tenants", MetricKind::Counter)
            .axis(LabelAxis::Dynamic { keys: &["tenant"] })
            .max_series(2),
    );
    // prometheus-client's own counter as a member.
    let pc_counter: Family<Service, PcCounter> =
        both.family(descriptor("legacy", MetricKind::Counter));
    // One label set, then the overflow series.
    let limited: Family<Service, Counter> =
        both.family(descriptor("limited", MetricKind::Counter).max_label_sets(1));

    for (i, service) in [&api, &awkward].into_iter().enumerate() {
        let i = i as u64 + 1;
        counter.get_or_create(service).inc_by(i * 10);
        float_counter.get_or_create(service).inc_by(0.1 * i as f64);
        gauge.get_or_create(service).set(-(i as i64));
        unsigned.get_or_create(service).set(u64::MAX - i);
        float_gauge
            .get_or_create(service)
            .set([f64::NAN, f64::INFINITY][i as usize - 1]);
        let h = histogram.get_or_create(service);
        for value in [0.001, 0.3, 2.0, 1e9, f64::INFINITY] {
            h.observe(value * i as f64);
        }
        let ops = by_label.get_or_create(service);
        ops.get(Operation::Write).inc_by(i);
        let draft = by_position.get_or_create(service);
        draft.get_or_create(1).observe(0.5);
        // Beyond the pre-resolved positions, out of order, then past the limit.
        for position in [9, 4, 7] {
            draft.get_or_create(position).observe(1.5);
        }
        let cells = grid.get_or_create(service);
        cells.get_or_create((Operation::Read, 1)).set(7);
        cells.get_or_create((Operation::Write, 5)).set(8);
        cells.get_or_create((Operation::Write, 6)).set(9);
        let tenants = dynamic.get_or_create(service);
        for tenant in ["x", AWKWARD, "y", "z"] {
            tenants
                .get_or_create(&Tenant {
                    tenant: tenant.into(),
                })
                .inc();
        }
        pc_counter.get_or_create(service).inc_by(i);
        limited.get_or_create(service).inc();
    }
}

fn reference_text(reference: &PcRegistry, format: ExpositionFormat) -> String {
    let mut text = String::new();
    match format {
        ExpositionFormat::OpenMetrics => text::encode(&mut text, reference).unwrap(),
        _ => prometheus_text::encode(&mut text, reference).unwrap(),
    }
    sanitize(text, format == ExpositionFormat::OpenMetrics)
}

#[test]
fn the_text_writer_writes_what_prometheus_client_s_encoders_wrote() {
    let mut ours = Registry::default();
    let mut reference = PcRegistry::default();
    populate(&mut Both {
        ours: &mut ours,
        reference: &mut reference,
    });
    ours.register_collector(Box::new(OneCounter));
    reference.register_collector(Box::new(OneCounter));
    let mut included = PcRegistry::with_prefix("lib");
    included.register("things", "Things", PcGauge::<i64>::default());
    ours.include(included);
    // An included registry comes after the level's collectors, before its sub-registries.
    reference.sub_registry_with_prefix("lib").register(
        "things",
        "Things",
        PcGauge::<i64>::default(),
    );
    let label = ("zone".into(), "eu\r\"1\"".into());
    populate(&mut Both {
        ours: ours
            .sub_registry_with_prefix("sub")
            .sub_registry_with_label(label.clone()),
        reference: reference
            .sub_registry_with_prefix("sub")
            .sub_registry_with_label(label),
    });

    for format in [
        ExpositionFormat::OpenMetrics,
        ExpositionFormat::PrometheusText,
    ] {
        let ours_text = format.encode(&ours).unwrap();
        assert_eq!(ours_text, reference_text(&reference, format), "{format:?}");
        for needle in [
            "\u{240d}",
            "\\\"",
            "otel_metric_overflow=\"true\"",
            "slot=\"5\"",
        ] {
            assert!(ours_text.contains(needle), "{format:?} lacks {needle:?}");
        }
    }
}

/// The three OpenMetrics types this crate has beyond prometheus-client's counter, gauge and
/// histogram, registered at the top level and under a prefix with a const label.
struct OpenMetricsTypes {
    info: Family<Service, Info>,
    state: Family<Service, StateSet<Operation>>,
    queue: Family<Service, GaugeHistogram>,
}

fn register_openmetrics_types(registry: &mut Registry) -> OpenMetricsTypes {
    let options = RegisterOptions::default();
    OpenMetricsTypes {
        info: register_family(registry, &descriptor("build", MetricKind::Info), &options),
        state: register_family(
            registry,
            &descriptor("mode", MetricKind::StateSet),
            &options,
        ),
        queue: register_family(
            registry,
            &descriptor("queued", MetricKind::GaugeHistogram).unit("seconds"),
            &options,
        ),
    }
}

#[test]
fn an_info_family_is_written_as_prometheus_client_s_info() {
    // prometheus-client's `Info` is one series: one registry pair per label set.
    for service in services() {
        let mut ours = Registry::default();
        let mut reference = PcRegistry::default();
        let families = register_openmetrics_types(ours.sub_registry_with_prefix("sub"));
        families.info.get_or_create(&service);
        let labels = vec![("service".to_owned(), service.service.clone())];
        let help = crate::sanitize::help_line(HELP).into_owned();
        reference
            .sub_registry_with_prefix("sub")
            .register("build", help, PcInfo::new(labels));
        for format in [
            ExpositionFormat::OpenMetrics,
            ExpositionFormat::PrometheusText,
        ] {
            let info_lines: String = format
                .encode(&ours)
                .unwrap()
                .split_inclusive('\n')
                .filter(|line| line.contains("build"))
                .collect();
            let expected: String = reference_text(&reference, format)
                .split_inclusive('\n')
                .filter(|line| !line.starts_with("# EOF"))
                .collect();
            assert_eq!(info_lines, expected, "{format:?}");
        }
    }
}

#[test]
fn a_state_set_is_a_gauge_family_to_prometheus_client_s_encoders_and_a_stateset_to_openmetrics() {
    let mut ours = Registry::default();
    let mut reference = PcRegistry::default();
    let label = ("zone".into(), "eu".into());
    let families = register_openmetrics_types(
        ours.sub_registry_with_prefix("sub")
            .sub_registry_with_label(label.clone()),
    );
    let help = crate::sanitize::help_line(HELP).into_owned();
    reference
        .sub_registry_with_prefix("sub")
        .sub_registry_with_label(label)
        .register("mode", help, families.state.clone());
    let [api, awkward] = services();
    families.state.get_or_create(&api).set(Operation::Write);
    families.state.get_or_create(&awkward);

    let mode_lines = |text: &str| -> String {
        text.split_inclusive('\n')
            .filter(|line| line.contains("mode"))
            .collect()
    };
    let classic = ExpositionFormat::PrometheusText.encode(&ours).unwrap();
    let expected = reference_text(&reference, ExpositionFormat::PrometheusText);
    assert_eq!(mode_lines(&classic), expected);
    assert!(classic
        .contains("sub_mode{zone=\"eu\",service=\"api\",sub_mode=\"wri\\\"te\\\\\u{240d}\"} 1\n"));
    assert!(classic.contains("sub_mode{zone=\"eu\",service=\"api\",sub_mode=\"read\"} 0\n"));
    // OpenMetrics: the same samples under `# TYPE sub_mode stateset`.
    let openmetrics = ExpositionFormat::OpenMetrics.encode(&ours).unwrap();
    let expected = reference_text(&reference, ExpositionFormat::OpenMetrics)
        .replace("# TYPE sub_mode gauge", "# TYPE sub_mode stateset");
    assert_eq!(mode_lines(&openmetrics), mode_lines(&expected));
}

#[test]
fn a_gauge_histogram_writes_gcount_and_gsum_in_openmetrics_and_python_s_fallback_in_text() {
    let mut ours = Registry::default();
    let families = register_openmetrics_types(&mut ours);
    let [api, awkward] = services();
    let queue = families.queue.get_or_create(&api);
    for value in [0.001, 0.3, 0.3, 2.0, 1e9] {
        queue.add(value);
    }
    queue.remove(0.3);
    families.queue.get_or_create(&awkward);

    let openmetrics = ExpositionFormat::OpenMetrics.encode(&ours).unwrap();
    let expected_openmetrics = [
        "# HELP queued_seconds Say \\\"hi\\\" to C:\\\\temp\u{2407}.",
        "# TYPE queued_seconds gaugehistogram",
        "# UNIT queued_seconds seconds",
        "queued_seconds_gsum{service=\"api\"} 1000000002.301",
        "queued_seconds_gcount{service=\"api\"} 4",
        "queued_seconds_bucket{le=\"0.005\",service=\"api\"} 1",
        "queued_seconds_bucket{le=\"0.25\",service=\"api\"} 1",
        "queued_seconds_bucket{le=\"1.0\",service=\"api\"} 2",
        "queued_seconds_bucket{le=\"2.5\",service=\"api\"} 3",
        "queued_seconds_bucket{le=\"10000000.0\",service=\"api\"} 3",
        "queued_seconds_bucket{le=\"+Inf\",service=\"api\"} 4",
    ]
    .join("\n");
    assert!(openmetrics.contains(&expected_openmetrics), "{openmetrics}");
    let classic = ExpositionFormat::PrometheusText.encode(&ours).unwrap();
    let awkward_labels = "service=\"a\\\"b\\\\c\\nd\u{240d}e\u{2400}f\u{2421}é\"";
    let expected_classic = [
        "# HELP queued_seconds Say \"hi\" to C:\\\\temp\u{2407}.".to_owned(),
        "# TYPE queued_seconds histogram".into(),
        "queued_seconds_bucket{service=\"api\",le=\"0.005\"} 1".into(),
        "queued_seconds_bucket{service=\"api\",le=\"0.25\"} 1".into(),
        "queued_seconds_bucket{service=\"api\",le=\"1\"} 2".into(),
        "queued_seconds_bucket{service=\"api\",le=\"2.5\"} 3".into(),
        "queued_seconds_bucket{service=\"api\",le=\"1e+07\"} 3".into(),
        "queued_seconds_bucket{service=\"api\",le=\"+Inf\"} 4".into(),
        format!("queued_seconds_bucket{{{awkward_labels},le=\"0.005\"}} 0"),
    ]
    .join("\n");
    assert!(classic.contains(&expected_classic), "{classic}");
    let expected_parts = [
        format!("queued_seconds_bucket{{{awkward_labels},le=\"+Inf\"}} 0"),
        "# HELP queued_seconds_gcount Say \"hi\" to C:\\\\temp\u{2407}.".into(),
        "# TYPE queued_seconds_gcount gauge".into(),
        "queued_seconds_gcount{service=\"api\"} 4".into(),
        format!("queued_seconds_gcount{{{awkward_labels}}} 0"),
        "# HELP queued_seconds_gsum Say \"hi\" to C:\\\\temp\u{2407}.".into(),
        "# TYPE queued_seconds_gsum gauge".into(),
        "queued_seconds_gsum{service=\"api\"} 1000000002.301".into(),
        format!("queued_seconds_gsum{{{awkward_labels}}} 0"),
    ]
    .join("\n");
    assert!(classic.contains(&expected_parts), "{classic}");
}
