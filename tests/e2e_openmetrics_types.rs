//! End to end with a real Prometheus: a registry holding an info family (`vllm:cache_config`
//! and one of its own), a state set and a gauge histogram is served in both text formats and
//! in protobuf, one scrape job each, and Prometheus' query API must show every sample stored
//! as recorded: the info series at 1 under their `_info` name with every label, one state-set
//! sample per state with exactly the current one at 1, and the gauge histogram's buckets,
//! `_gcount` and `_gsum` (`_count` and `_sum` from protobuf, which names no gauge-histogram
//! suffixes). OpenMetrics keeps the types in Prometheus' metadata.
//!
//! Needs `prometheus` and `promtool` (Debian package `prometheus`). Without them the test says
//! SKIPPED and passes, unless `METRIC_HANDLES_REQUIRE_TOOLS=1` (set by `.ci/run`).

mod support;

use std::net::SocketAddr;
use std::time::Duration;

use metric_handles::histogram::GaugeHistogram;
use metric_handles::vllm::cache_config::CacheConfig;
use metric_handles::vllm::{VllmMetrics, VllmMetricsConfig};
use metric_handles::{
    Family, Info, LabelEnum, LabelSet, MetricHandles, NoLabels, Registry, StateSet,
};
use support::demo::TempDir;
use support::exposition_server::{ExpositionServer, OPENMETRICS_PATH, PROTOBUF_PATH, TEXT_PATH};
use support::prometheus::{
    query, start_prometheus_with, target_metadata, tools_or_skip, wait_for, ScrapeJob,
};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Build {
    pub version: String,
    pub commit: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum Phase {
    Starting,
    Serving,
    Draining,
}

#[derive(Debug, MetricHandles)]
#[metric_handles(labels = Build)]
pub struct BuildMetrics {
    /// The build this process runs
    #[metric(name = "e2e_build")]
    pub build: Family<Build, Info>,
}

#[derive(Debug, MetricHandles)]
#[metric_handles(labels = NoLabels)]
pub struct ServerMetrics {
    /// What the server is doing
    #[metric(name = "e2e_phase")]
    pub phase: Family<NoLabels, StateSet<Phase>>,
    /// Waiting requests by prompt length
    #[metric(name = "e2e_waiting_prompt", unit = "tokens", buckets = [128.0, 1024.0])]
    pub waiting: Family<NoLabels, GaugeHistogram>,
}

fn registry() -> Registry {
    let mut registry = Registry::default();
    BuildMetrics::register(&mut registry).resolve(&Build {
        version: "1.2.0".into(),
        commit: "a\"b\\c".into(),
    });
    let server = ServerMetrics::register(&mut registry).resolve(&NoLabels);
    server.phase.set(Phase::Serving);
    for tokens in [100.0, 2000.0, 2000.0] {
        server.waiting.add(tokens);
    }
    server.waiting.remove(100.0);
    let vllm = VllmMetrics::register(&mut registry, VllmMetricsConfig::default());
    vllm.cache_config().set(
        1,
        &CacheConfig {
            num_gpu_blocks: Some(661),
            ..CacheConfig::default()
        },
    );
    registry
}

/// `(label, value)` pairs of a query result's labels, `__name__`, `job` and `instance` left out.
fn own_labels(metric: &serde_json::Value) -> Vec<(String, String)> {
    let mut labels: Vec<(String, String)> = metric
        .as_object()
        .map(|labels| {
            labels
                .iter()
                .filter(|(k, _)| !["__name__", "job", "instance"].contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect()
        })
        .unwrap_or_default();
    labels.sort();
    labels
}

/// Waits for `job`'s stored series named `name` to be `count`, and returns them sorted.
fn stored(
    web: SocketAddr,
    job: &str,
    name: &str,
    count: usize,
) -> Vec<(Vec<(String, String)>, f64)> {
    let promql = format!("{{__name__=\"{name}\",job=\"{job}\"}}");
    let mut series = wait_for(&promql, Duration::from_secs(30), || {
        query(web, &promql).filter(|result| result.len() == count)
    })
    .into_iter()
    .map(|(metric, value)| (own_labels(&metric), value))
    .collect::<Vec<_>>();
    series.sort_by(|a, b| a.0.cmp(&b.0));
    series
}

fn pairs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[test]
fn prometheus_stores_info_state_set_and_gauge_histogram_samples_from_every_format() {
    if !tools_or_skip(
        "prometheus_stores_info_state_set_and_gauge_histogram_samples_from_every_format",
    ) {
        return;
    }
    let server = ExpositionServer::start(registry());
    let dir = TempDir::new("e2e-openmetrics-types");
    let jobs = [
        ("text", TEXT_PATH),
        ("openmetrics", OPENMETRICS_PATH),
        ("protobuf", PROTOBUF_PATH),
    ];
    let scrape_jobs: Vec<ScrapeJob> = jobs
        .iter()
        .map(|&(name, metrics_path)| ScrapeJob {
            name,
            target: server.addr(),
            metrics_path,
        })
        .collect();
    // Prometheus 2 asks for protobuf only with native histograms on.
    let (_prometheus, web) = start_prometheus_with(
        &dir.0,
        &scrape_jobs,
        &["--enable-feature=native-histograms"],
    );

    for (job, _) in jobs {
        let build = stored(web, job, "e2e_build_info", 1);
        assert_eq!(
            build,
            [(pairs(&[("commit", "a\"b\\c"), ("version", "1.2.0")]), 1.0)],
            "{job}"
        );

        let cache = stored(web, job, "vllm:cache_config_info", 1);
        let (labels, value) = &cache[0];
        assert_eq!(*value, 1.0, "{job}");
        for label in [
            ("engine", "1"),
            ("num_gpu_blocks", "661"),
            ("block_size", "16"),
            ("enable_prefix_caching", "True"),
            ("kv_cache_memory_bytes", "None"),
        ] {
            assert!(labels.contains(&pairs(&[label])[0]), "{job}: {labels:?}");
        }
        assert_eq!(labels.len(), 16, "{job}: {labels:?}");

        let phase = stored(web, job, "e2e_phase", 3);
        assert_eq!(
            phase,
            [
                (pairs(&[("e2e_phase", "draining")]), 0.0),
                (pairs(&[("e2e_phase", "serving")]), 1.0),
                (pairs(&[("e2e_phase", "starting")]), 0.0),
            ],
            "{job}"
        );

        // Protobuf carries a gauge histogram as a histogram: Prometheus names its count and sum
        // as a histogram's.
        let (gcount, gsum) = match job {
            "protobuf" => ("_count", "_sum"),
            _ => ("_gcount", "_gsum"),
        };
        let gcount = stored(web, job, &format!("e2e_waiting_prompt_tokens{gcount}"), 1);
        assert_eq!(gcount, [(vec![], 2.0)], "{job}");
        let gsum = stored(web, job, &format!("e2e_waiting_prompt_tokens{gsum}"), 1);
        assert_eq!(gsum, [(vec![], 4000.0)], "{job}");
        let buckets = stored(web, job, "e2e_waiting_prompt_tokens_bucket", 3);
        let by_le: Vec<(String, f64)> = buckets
            .into_iter()
            .map(|(labels, value)| (labels[0].1.clone(), value))
            .collect();
        // The classic text spells a bound as Go does, OpenMetrics with a `.0`.
        let le = |bound: &str| match job {
            "text" => bound.trim_end_matches(".0").to_owned(),
            _ => bound.to_owned(),
        };
        let mut expected = vec![
            (le("1024.0"), 0.0),
            (le("128.0"), 0.0),
            ("+Inf".to_owned(), 2.0),
        ];
        expected.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(by_le, expected, "{job}");
    }

    // OpenMetrics keeps the types; the classic text falls back on gauge and histogram.
    let types = |job: &'static str| {
        wait_for("target metadata", Duration::from_secs(30), || {
            target_metadata(web, job).filter(|m| m.iter().any(|(n, _)| n == "e2e_phase"))
        })
    };
    let openmetrics = types("openmetrics");
    for expected in [
        ("e2e_build", "info"),
        ("e2e_phase", "stateset"),
        ("e2e_waiting_prompt_tokens", "gaugehistogram"),
    ] {
        let expected = (expected.0.to_owned(), expected.1.to_owned());
        assert!(openmetrics.contains(&expected), "{openmetrics:?}");
    }
    let text = types("text");
    for expected in [
        ("e2e_build_info", "gauge"),
        ("e2e_phase", "gauge"),
        ("e2e_waiting_prompt_tokens", "histogram"),
        ("e2e_waiting_prompt_tokens_gcount", "gauge"),
    ] {
        let expected = (expected.0.to_owned(), expected.1.to_owned());
        assert!(text.contains(&expected), "{text:?}");
    }
    // Protobuf carries an info and a state set as gauges, as prometheus-client writes them,
    // and a gauge histogram as a histogram (Prometheus 2.42 stores nothing of a classic
    // `GAUGE_HISTOGRAM` family).
    let protobuf = types("protobuf");
    for expected in [
        ("e2e_build_info", "gauge"),
        ("e2e_phase", "gauge"),
        ("e2e_waiting_prompt_tokens", "histogram"),
    ] {
        let expected = (expected.0.to_owned(), expected.1.to_owned());
        assert!(protobuf.contains(&expected), "{protobuf:?}");
    }
}
