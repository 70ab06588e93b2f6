//! Exemplars in the text writer's output: byte for byte what prometheus-client's OpenMetrics
//! encoder writes for the same exemplars (its `CounterWithExemplar` and
//! `HistogramWithExemplars`, with the same labels, values and timestamps), and none in the
//! classic text.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use prometheus_client::encoding::text;
use prometheus_client::metrics::exemplar::{CounterWithExemplar, HistogramWithExemplars};
use prometheus_client::metrics::family::Family as PcFamily;
use prometheus_client::registry::Registry as PcRegistry;

use crate::descriptor::{MetricDescriptor, MetricKind};
use crate::family::register::register_family;
use crate::registry::Registry;
use crate::sanitize::help_line;
use crate::{Buckets, Counter, ExpositionFormat, Family, Histogram, LabelSet, RegisterOptions};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
struct Service {
    service: String,
}

type Trace = Vec<(String, String)>;

const BOUNDS: &[f64] = &[0.005, 0.25, 1.0];
const KEYS: &[&str] = &["service"];

fn descriptor(name: &'static str, kind: MetricKind) -> MetricDescriptor {
    MetricDescriptor::new(name, name, kind, "", "Help")
        .common_labels(KEYS)
        .buckets(Buckets::Explicit(BOUNDS))
}

/// 1700000000.25 seconds after the epoch.
fn at(offset_ms: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(1_700_000_000_250 + offset_ms)
}

fn trace(id: &str) -> Trace {
    vec![("trace_id".to_owned(), id.to_owned())]
}

/// Both registries, recorded alike: a counter with an exemplar on one series and none on
/// another, and a histogram with exemplars in two buckets (the second written twice, so the
/// later must win) and an escaped label value.
fn recorded() -> (Registry, PcRegistry) {
    let mut ours = Registry::default();
    let mut reference = PcRegistry::default();
    let api = Service {
        service: "api".into(),
    };
    let web = Service {
        service: "web".into(),
    };

    let counter: Family<Service, Counter> = register_family(
        &mut ours,
        &descriptor("requests", MetricKind::Counter),
        &RegisterOptions::default(),
    );
    let pc_counter: PcFamily<Service, CounterWithExemplar<Trace>> = PcFamily::default();
    reference.register(
        "requests",
        help_line("Help").into_owned(),
        pc_counter.clone(),
    );
    counter
        .get_or_create(&api)
        .inc_by_with_exemplar_at(3, &[("trace_id", "3a2f")], at(0))
        .expect("a valid exemplar");
    pc_counter
        .get_or_create(&api)
        .inc_by(3, Some(trace("3a2f")), Some(at(0)));
    counter.get_or_create(&web).inc_by(2);
    pc_counter.get_or_create(&web).inc_by(2, None, None);

    let latency: Family<Service, Histogram> = register_family(
        &mut ours,
        &descriptor("latency", MetricKind::Histogram),
        &RegisterOptions::default(),
    );
    let pc_latency: PcFamily<Service, HistogramWithExemplars<Trace>> =
        PcFamily::new_with_constructor(|| HistogramWithExemplars::new(BOUNDS.iter().copied()));
    reference.register(
        "latency",
        help_line("Help").into_owned(),
        pc_latency.clone(),
    );
    let recorded: [(f64, &str, u64); 4] = [
        (0.1, "first", 1),
        (0.002, "small", 2),
        (0.2, "a\"b\\c\nd", 3),
        (7.5, "slow", 4),
    ];
    for (value, id, ms) in recorded {
        latency
            .get_or_create(&api)
            .observe_with_exemplar_at(value, &[("trace_id", id)], at(ms))
            .expect("a valid exemplar");
        pc_latency
            .get_or_create(&api)
            .observe(value, Some(trace(id)), Some(at(ms)));
    }
    (ours, reference)
}

#[test]
fn openmetrics_exemplars_are_prometheus_clients_byte_for_byte() {
    let (ours, reference) = recorded();
    let written = ExpositionFormat::OpenMetrics
        .encode(&ours)
        .expect("encodes");
    let mut expected = String::new();
    text::encode(&mut expected, &reference).expect("encodes");
    // prometheus-client's family writes its series in hash order; every line is the same.
    assert_eq!(sorted_lines(&written), sorted_lines(&expected));
    // The recorded exemplars are there, the later one of a bucket in place of the earlier.
    assert!(
        written.contains(
            "requests_total{service=\"api\"} 3 # {trace_id=\"3a2f\"} 3.0 1700000000.25\n"
        ),
        "{written}"
    );
    assert!(
        written.contains(
            "latency_bucket{le=\"0.25\",service=\"api\"} 3 # {trace_id=\"a\\\"b\\\\c\\nd\"} 0.2 1700000000.253\n"
        ),
        "{written}"
    );
    assert!(!written.contains("first"), "{written}");
    assert!(
        written.contains("requests_total{service=\"web\"} 2\n"),
        "{written}"
    );
}

#[test]
fn the_classic_text_carries_no_exemplar() {
    let (ours, _) = recorded();
    let written = ExpositionFormat::PrometheusText
        .encode(&ours)
        .expect("encodes");
    assert!(!written.contains(" # {"), "{written}");
    assert!(
        written.contains("requests_total{service=\"api\"} 3\n"),
        "{written}"
    );
}

fn sorted_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines
}

#[test]
fn a_counter_registered_on_its_own_carries_its_exemplar_through_prometheus_client() {
    let mut ours = Registry::default();
    let counter: Counter = Counter::default();
    ours.register("plain", "Help", counter.clone());
    counter
        .inc_by_with_exemplar_at(2, &[("trace_id", "9f")], at(0))
        .expect("a valid exemplar");
    let written = ExpositionFormat::OpenMetrics
        .encode(&ours)
        .expect("encodes");
    assert!(
        written.contains("plain_total 2 # {trace_id=\"9f\"} 2.0 1700000000.25\n"),
        "{written}"
    );
    let classic = ExpositionFormat::PrometheusText
        .encode(&ours)
        .expect("encodes");
    assert!(classic.contains("plain_total 2\n"), "{classic}");
}
