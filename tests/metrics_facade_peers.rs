//! The facade's recorder beside what `metrics` users install today: one program (a real
//! emitter from crates.io, `metrics-process`, and a library's own counters, gauge and
//! histogram) recorded once through metrics-exporter-prometheus and once through ours, both
//! expositions read by Python's prometheus_client, compared family by family and series by
//! series. The differences are the ones docs/guide.md lists:
//!
//! * a counter whose name lacks `_total` is written with it by us (OpenMetrics requires it;
//!   metrics-exporter-prometheus writes the bare name);
//! * we write a HELP line for every family (`.` when undescribed) and end help with `.`;
//! * our recorder adds its own family, `metric_handles_facade_refused_registrations`.

use std::collections::{BTreeMap, BTreeSet};

use metric_handles::metrics_facade::{FacadeBuilder, DEFAULT_BUCKETS};
use metric_handles::{ExpositionFormat, Registry};
use metrics_exporter_prometheus::PrometheusBuilder;

mod support;

use support::external_tool::{available_or_skip, promtool_check_metrics, python, runs};

/// The program: a real emitter and a library's own metrics, through whichever recorder is
/// current.
fn program(process: &metrics_process::Collector) {
    process.describe();
    process.collect();
    metrics::describe_counter!("http_requests_total", "Requests served");
    for (route, status, n) in [("/a", "200", 3), ("/a", "500", 1), ("/b", "200", 2)] {
        metrics::counter!("http_requests_total", "route" => route, "status" => status).increment(n);
    }
    metrics::counter!("cache_evictions", "tier" => "memory").increment(5);
    metrics::gauge!("pool_connections", "pool" => "db").set(4.0);
    metrics::gauge!("pool_connections", "pool" => "db").increment(2.0);
    for value in [0.003, 0.04, 0.2, 1.5, 12.0] {
        metrics::histogram!("request_duration_seconds", "route" => "/a").record(value);
    }
}

/// A sample's name and label set.
type SeriesKey = (String, BTreeSet<(String, String)>);

/// One family as Python's prometheus_client reads it: its type and, by sample name and label
/// set, each value.
#[derive(Debug, Default)]
struct Family {
    kind: String,
    samples: BTreeMap<SeriesKey, f64>,
}

const READ: &str = r#"
import sys
from prometheus_client.parser import text_string_to_metric_families
for family in text_string_to_metric_families(sys.stdin.read()):
    print("F", family.name, family.type, sep="\t")
    for s in family.samples:
        labels = ";".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
        print("S", family.name, s.name, labels, repr(float(s.value)), sep="\t")
"#;

/// Every family of the text exposition `text`, by name, as Python's parser reads it.
fn read(text: &str) -> BTreeMap<String, Family> {
    let stdout = python(&[READ], text.as_bytes())
        .unwrap_or_else(|stderr| panic!("prometheus_client rejected:\n{stderr}\n{text}"));
    let mut families: BTreeMap<String, Family> = BTreeMap::new();
    for line in stdout.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields.as_slice() {
            ["F", name, kind] => {
                families.entry((*name).to_owned()).or_default().kind = (*kind).to_owned()
            }
            ["S", family, sample, labels, value] => {
                let labels = labels
                    .split(';')
                    .filter(|pair| !pair.is_empty())
                    .map(|pair| {
                        let (k, v) = pair.split_once('=').expect("k=v");
                        (k.to_owned(), v.to_owned())
                    })
                    .collect();
                let value: f64 = value.parse().expect("a float");
                let family = families.entry((*family).to_owned()).or_default();
                family.samples.insert(((*sample).to_owned(), labels), value);
            }
            _ => panic!("unexpected line {line:?}"),
        }
    }
    families
}

/// The sample name metrics-exporter-prometheus writes for our `name` in a family of `kind`:
/// the same, but for a counter whose name it writes without `_total`.
fn theirs_for(family: &str, kind: &str, name: &str, theirs: &Family) -> String {
    let bare = name.strip_suffix("_total").unwrap_or(name);
    let bare_is_theirs = theirs.samples.keys().any(|(sample, _)| sample == bare);
    if kind == "counter" && bare == family && bare_is_theirs {
        bare.to_owned()
    } else {
        name.to_owned()
    }
}

/// Values that change between the two runs of the program (a clock, the process's memory).
fn varies(sample: &str) -> bool {
    [
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "process_virtual_memory_bytes",
        "process_threads",
        "process_open_fds",
    ]
    .contains(&sample)
}

#[test]
fn a_real_emitter_and_a_library_match_what_metrics_exporter_prometheus_writes() {
    let test = "a_real_emitter_and_a_library_match_what_metrics_exporter_prometheus_writes";
    if !available_or_skip(
        runs("python3", &["-c", "import prometheus_client"]),
        test,
        "python3 with prometheus_client",
        "pip install prometheus-client",
    ) {
        return;
    }
    let process = metrics_process::Collector::default();

    let peer = PrometheusBuilder::new()
        .set_buckets(&DEFAULT_BUCKETS)
        .expect("valid buckets")
        .build_recorder();
    let peer_handle = peer.handle();
    metrics::with_local_recorder(&peer, || program(&process));
    let theirs = read(&peer_handle.render());

    let mut registry = Registry::default();
    let ours_recorder = FacadeBuilder::new().build(&mut registry);
    metrics::with_local_recorder(&ours_recorder, || program(&process));
    let text = ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    let ours = read(&text);

    let our_own: BTreeSet<&str> = ["metric_handles_facade_refused_registrations"].into();
    let names = |families: &BTreeMap<String, Family>| -> BTreeSet<String> {
        families
            .keys()
            .filter(|name| !our_own.contains(name.as_str()))
            .cloned()
            .collect()
    };
    assert_eq!(names(&ours), names(&theirs), "the same families");
    assert!(
        ours.keys().any(|name| name.starts_with("process_")),
        "metrics-process recorded nothing: {ours:?}"
    );
    for (name, their_family) in &theirs {
        let our_family = &ours[name];
        assert_eq!(our_family.kind, their_family.kind, "{name}: the same type");
        let ours_as_theirs: BTreeMap<_, f64> = our_family
            .samples
            .iter()
            .map(|((sample, labels), value)| {
                let sample = theirs_for(name, &our_family.kind, sample, their_family);
                ((sample, labels.clone()), *value)
            })
            .collect();
        let keys = |samples: &BTreeMap<SeriesKey, f64>| samples.keys().cloned().collect::<Vec<_>>();
        assert_eq!(
            keys(&ours_as_theirs),
            keys(&their_family.samples),
            "{name}: the same series"
        );
        for (key, value) in &their_family.samples {
            if !varies(&key.0) {
                assert_eq!(ours_as_theirs[key], *value, "{name}: {key:?}");
            }
        }
    }
    assert_eq!(
        ours["http_requests"].samples[&(
            "http_requests_total".to_owned(),
            [("route", "/a"), ("status", "200")]
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .into()
        )],
        3.0
    );

    if available_or_skip(
        runs("promtool", &["--version"]),
        test,
        "promtool",
        "apt-get install prometheus",
    ) {
        assert_eq!(promtool_check_metrics(&text), Vec::<String>::new());
    }
}
