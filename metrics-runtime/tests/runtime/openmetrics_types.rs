//! The OpenMetrics types beyond counter, gauge and histogram (`Info`, `StateSet`,
//! `GaugeHistogram`) as members of a derived struct: typed `info`, `stateset` and
//! `gaugehistogram` in OpenMetrics, Python's `prometheus_client` fallback in the Prometheus
//! text, both parsed by Python's parsers (`scripts/check_exposition.py`) and `promtool`, and
//! the protobuf exposition (feature `protobuf`) decoded.
//!
//! The external tools are skipped with a message when absent, unless
//! `METRIC_HANDLES_REQUIRE_TOOLS=1` (set by `.ci/run`).

use std::path::Path;
use std::process::Command;

use crate::support::exposition::{encode_openmetrics, encode_text};
use crate::support::external_tool::{available_or_skip, promtool_check_metrics, runs};
use metric_handles::histogram::GaugeHistogram;
use metric_handles::{
    Family, Info, LabelEnum, LabelSet, MetricHandles, NoLabels, Registry, StateSet,
};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Build {
    pub version: String,
    pub commit: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum Phase {
    Starting,
    Serving,
    #[label(rename = "draining \"now\"")]
    Draining,
}

#[derive(Debug, MetricHandles)]
#[metric_handles(labels = Build)]
pub struct BuildMetrics {
    /// The build this process runs
    #[metric(name = "om:build")]
    pub build: Family<Build, Info>,
}

#[derive(Debug, MetricHandles)]
#[metric_handles(labels = NoLabels)]
pub struct ServerMetrics {
    /// What the server is doing
    #[metric(name = "om_phase")]
    pub phase: Family<NoLabels, StateSet<Phase>>,
    /// Waiting requests by prompt length
    #[metric(name = "om:waiting_prompt", unit = "tokens", buckets = [128.0, 1024.0, 8192.0])]
    pub waiting: Family<NoLabels, GaugeHistogram>,
}

fn populated_registry() -> Registry {
    let mut registry = Registry::default();
    let builds = BuildMetrics::register(&mut registry);
    builds.resolve(&Build {
        version: "1.2.0".into(),
        commit: "a\"b\\c\r\nd".into(),
    });
    let server = ServerMetrics::register(&mut registry).resolve(&NoLabels);
    server.phase.set(Phase::Draining);
    for tokens in [100.0, 2000.0, 2000.0, 1e6] {
        server.waiting.add(tokens);
    }
    server.waiting.remove(2000.0);
    registry
}

#[test]
fn openmetrics_names_the_types_and_the_prometheus_text_falls_back() {
    let registry = populated_registry();
    let om = encode_openmetrics(&registry);
    for line in [
        "# TYPE om:build info\n",
        "om:build_info{version=\"1.2.0\",commit=\"a\\\"b\\\\c\u{240d}\\nd\"} 1\n",
        "# TYPE om_phase stateset\n",
        "om_phase{om_phase=\"starting\"} 0\nom_phase{om_phase=\"serving\"} 0\nom_phase{om_phase=\"draining \\\"now\\\"\"} 1\n",
        "# TYPE om:waiting_prompt_tokens gaugehistogram\n",
        "om:waiting_prompt_tokens_gsum 1002100.0\nom:waiting_prompt_tokens_gcount 3\n",
        "om:waiting_prompt_tokens_bucket{le=\"8192.0\"} 2\nom:waiting_prompt_tokens_bucket{le=\"+Inf\"} 3\n",
    ] {
        assert!(om.contains(line), "OpenMetrics lacks {line:?}:\n{om}");
    }
    let text = encode_text(&registry);
    for line in [
        "# TYPE om:build_info gauge\n",
        "# TYPE om_phase gauge\n",
        "om_phase{om_phase=\"draining \\\"now\\\"\"} 1\n",
        "# TYPE om:waiting_prompt_tokens histogram\n",
        "om:waiting_prompt_tokens_bucket{le=\"+Inf\"} 3\n# HELP om:waiting_prompt_tokens_gcount",
        "# TYPE om:waiting_prompt_tokens_gcount gauge\nom:waiting_prompt_tokens_gcount 3\n",
        "# TYPE om:waiting_prompt_tokens_gsum gauge\nom:waiting_prompt_tokens_gsum 1002100.0\n",
    ] {
        assert!(
            text.contains(line),
            "Prometheus text lacks {line:?}:\n{text}"
        );
    }
}

#[test]
fn pythons_parsers_read_info_state_set_and_gauge_histogram() {
    if !available_or_skip(
        runs("python3", &["-c", "import prometheus_client"]),
        "pythons_parsers_read_info_state_set_and_gauge_histogram",
        "python3 with prometheus_client",
        "PyPI package prometheus_client",
    ) {
        return;
    }
    let registry = populated_registry();
    let dir = std::env::temp_dir().join(format!(
        "metric-handles-openmetrics-types-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    let text_path = dir.join("metrics.txt");
    let om_path = dir.join("metrics.om.txt");
    let expected_path = dir.join("expected.txt");
    std::fs::write(&text_path, encode_text(&registry)).expect("write");
    std::fs::write(&om_path, encode_openmetrics(&registry)).expect("write");
    std::fs::write(
        &expected_path,
        "om:build_info\nom_phase\nom:waiting_prompt_tokens\nom:waiting_prompt_tokens_gcount\nom:waiting_prompt_tokens_gsum\n",
    )
    .expect("write");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/check_exposition.py");
    let output = Command::new("python3")
        .arg(script)
        .args([&text_path, &om_path, &expected_path])
        .output()
        .expect("run python3");
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Five families in the Prometheus text: the info, the state set, and the gauge
    // histogram's buckets, `_gcount` and `_gsum`.
    assert!(stdout.contains("OK: 5 families"), "{stdout}");
}

#[test]
fn promtool_accepts_info_state_set_and_gauge_histogram() {
    if !available_or_skip(
        runs("promtool", &["--version"]),
        "promtool_accepts_info_state_set_and_gauge_histogram",
        "promtool",
        "Debian package prometheus",
    ) {
        return;
    }
    let findings = promtool_check_metrics(&encode_text(&populated_registry()));
    // The `:` in recording-rule style names is the only lint it may raise.
    let other: Vec<&String> = findings
        .iter()
        .filter(|l| !l.contains("should not contain ':'"))
        .collect();
    assert!(other.is_empty(), "promtool: {findings:?}");
}

#[cfg(feature = "protobuf")]
#[test]
fn the_protobuf_exposition_carries_them_as_prometheus_data_model_types() {
    use metric_handles::prometheus_client::encoding::prometheus_protobuf::prometheus_data_model::{
        MetricFamily, MetricType,
    };
    use metric_handles::ExpositionFormat;
    use prost::Message;

    let registry = populated_registry();
    let mut body = Vec::new();
    ExpositionFormat::PrometheusProtobuf
        .encode_into(&registry, &mut body)
        .expect("encodes");
    let mut rest = body.as_slice();
    let mut families = Vec::new();
    while !rest.is_empty() {
        families.push(MetricFamily::decode_length_delimited(&mut rest).expect("a MetricFamily"));
    }
    let family = |name: &str| {
        families
            .iter()
            .find(|family| family.name == name)
            .unwrap_or_else(|| panic!("no family {name} in {families:?}"))
    };
    let labels = |metric: &metric_handles::prometheus_client::encoding::prometheus_protobuf::prometheus_data_model::Metric| {
        metric
            .label
            .iter()
            .map(|pair| (pair.name.clone(), pair.value.clone()))
            .collect::<Vec<_>>()
    };

    let build = family("om:build_info");
    assert_eq!(build.r#type, MetricType::Gauge as i32);
    assert_eq!(build.metric.len(), 1);
    assert_eq!(build.metric[0].gauge.as_ref().map(|g| g.value), Some(1.0));
    assert_eq!(
        labels(&build.metric[0]),
        [
            ("version".to_owned(), "1.2.0".to_owned()),
            ("commit".to_owned(), "a\"b\\c\u{240d}\nd".to_owned()),
        ]
    );

    let phase = family("om_phase");
    assert_eq!(phase.r#type, MetricType::Gauge as i32);
    let states: Vec<(Vec<(String, String)>, f64)> = phase
        .metric
        .iter()
        .map(|m| (labels(m), m.gauge.as_ref().map_or(f64::NAN, |g| g.value)))
        .collect();
    let state = |value: &str, set: f64| (vec![("om_phase".to_owned(), value.to_owned())], set);
    assert_eq!(
        states,
        [
            state("starting", 0.0),
            state("serving", 0.0),
            state("draining \"now\"", 1.0)
        ]
    );

    // A gauge histogram is typed as a histogram (Prometheus 2.42 drops a classic
    // `GAUGE_HISTOGRAM` from protobuf), with its buckets in the `histogram` field and no
    // start time.
    let waiting = family("om:waiting_prompt_tokens");
    assert_eq!(waiting.r#type, MetricType::Histogram as i32);
    let histogram = waiting.metric[0].histogram.as_ref().expect("a histogram");
    assert_eq!(histogram.sample_count, 3);
    assert_eq!(histogram.sample_sum, 1_002_100.0);
    let cumulative: Vec<u64> = histogram
        .bucket
        .iter()
        .map(|b| b.cumulative_count)
        .collect();
    assert_eq!(cumulative, [1, 1, 2, 3]);
    assert_eq!(histogram.start_timestamp, None);
}

/// The crate's protobuf writer writes a gauge histogram's family as prometheus-client's encoder
/// writes the same handle registered in its own registry (the path it took before the writer
/// knew gauge histograms).
#[cfg(feature = "protobuf")]
#[test]
fn a_gauge_histogram_in_protobuf_is_what_prometheus_client_writes_for_it() {
    use metric_handles::prometheus_client::encoding::prometheus_protobuf::{
        encode, prometheus_data_model::MetricFamily,
    };
    use metric_handles::prometheus_client::registry::{Registry as PcRegistry, Unit};
    use metric_handles::ExpositionFormat;
    use prost::Message;

    let mut registry = Registry::default();
    let server = ServerMetrics::register(&mut registry).resolve(&NoLabels);
    for tokens in [100.0, 2000.0, 5e4, 5e4] {
        server.waiting.add(tokens);
    }
    server.waiting.remove(5e4);
    let mut body = Vec::new();
    ExpositionFormat::PrometheusProtobuf
        .encode_into(&registry, &mut body)
        .expect("encodes");
    let mut rest = body.as_slice();
    let mut ours = None;
    while !rest.is_empty() {
        let family = MetricFamily::decode_length_delimited(&mut rest).expect("a MetricFamily");
        if family.name == "om:waiting_prompt_tokens" {
            ours = Some(family);
        }
    }
    let mut pc = PcRegistry::default();
    pc.register_with_unit(
        "om:waiting_prompt",
        "Waiting requests by prompt length",
        Unit::Other("tokens".into()),
        server.waiting.clone(),
    );
    let theirs = encode(&pc).expect("encodes").pop();
    assert_eq!(ours, theirs);
    let histogram = ours.and_then(|f| f.metric.into_iter().next()?.histogram);
    let histogram = histogram.expect("a histogram");
    assert_eq!(
        (histogram.sample_count, histogram.sample_sum),
        (3, 52_100.0)
    );
}

/// Threads setting states while another scrapes: every scrape shows exactly one state at 1,
/// and a gauge histogram's buckets stay cumulative with `_gcount` equal to `+Inf`, whatever
/// the interleaving (no timing in the assertions: each scrape is checked on its own).
#[test]
fn every_scrape_shows_exactly_one_state_while_threads_set_them() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    let mut registry = Registry::default();
    let server = ServerMetrics::register(&mut registry).resolve(&NoLabels);
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..3)
        .map(|thread| {
            let (server, stop) = (server.clone(), Arc::clone(&stop));
            std::thread::spawn(move || {
                let phases = [Phase::Starting, Phase::Serving, Phase::Draining];
                let mut i = thread;
                while !stop.load(Ordering::Relaxed) {
                    server.phase.set(phases[i % 3]);
                    let tokens = (i % 10_000) as f64;
                    server.waiting.add(tokens);
                    server.waiting.remove(tokens);
                    i += 1;
                }
            })
        })
        .collect();
    for _ in 0..200 {
        let text = encode_openmetrics(&registry);
        let set: Vec<&str> = text
            .lines()
            .filter(|line| line.starts_with("om_phase{") && line.ends_with("} 1"))
            .collect();
        assert_eq!(set.len(), 1, "{text}");
        let buckets: Vec<u64> = text
            .lines()
            .filter(|line| line.starts_with("om:waiting_prompt_tokens_bucket"))
            .map(|line| {
                line.rsplit(' ')
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("a count")
            })
            .collect();
        assert!(buckets.windows(2).all(|w| w[0] <= w[1]), "{text}");
        let gcount = format!(
            "om:waiting_prompt_tokens_gcount {}\n",
            buckets[buckets.len() - 1]
        );
        assert!(text.contains(&gcount), "{text}");
    }
    stop.store(true, Ordering::Relaxed);
    for writer in writers {
        writer.join().expect("writer");
    }
    let text = encode_openmetrics(&registry);
    assert!(
        text.contains("om:waiting_prompt_tokens_gcount 0\n"),
        "{text}"
    );
}
