//! End to end with native histograms and exemplars: the demo frontend runs with
//! `--native-histograms --exemplars`, the official Python `openai` client keeps it busy, and
//! two real Prometheus servers scrape it, both storing exemplars: one with native histograms
//! on (it asks for protobuf and stores the request-latency histograms as native histograms),
//! one without (it asks for OpenMetrics text and stores the classic `_bucket` series). PromQL's
//! native functions must return data from the first, its quantile must agree with the classic
//! estimate of the second within one classic bucket, and the exemplars both stored (from
//! protobuf and from OpenMetrics) must carry the completion ids the client received as their
//! trace ids.
//!
//! Needs `prometheus` (Debian package `prometheus`) and Python 3 with the `openai` package.
//! Without them the test says SKIPPED and passes, unless `METRIC_HANDLES_REQUIRE_TOOLS=1`
//! (set by `.ci/run`).

mod support;

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use support::demo::{http_get, parse_exposition, serve_frontend, url_encode, TempDir, ZERO_RATES};
use support::openai_or_skip;
use support::prometheus::{
    api_data, query, query_at, start_prometheus_with, tools_or_skip, wait_for, ScrapeJob,
};

const LOAD_SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/openai_load.py");
/// How long the client keeps the demo busy: long enough for both servers to start and scrape
/// a few times while requests finish.
const LOAD_SECONDS: u64 = 15;

/// The `le` bounds of `family`'s classic buckets in a text scrape, `+Inf` included, ascending.
fn classic_bounds(exposition: &str, family: &str) -> Vec<f64> {
    let bucket = format!("{family}_bucket");
    let bounds: BTreeSet<u64> = parse_exposition(exposition)
        .iter()
        .filter(|s| s.name == bucket)
        .map(|s| {
            let le = &s.labels["le"];
            let bound = if le == "+Inf" {
                f64::INFINITY
            } else {
                le.parse::<f64>().expect("a numeric le")
            };
            bound.to_bits()
        })
        .collect();
    // Non-negative floats order as their bits do.
    bounds.into_iter().map(f64::from_bits).collect()
}

/// The trace ids of the exemplars `prometheus` stored for `selector` in the last 10 minutes.
fn exemplar_trace_ids(prometheus: SocketAddr, selector: &str, now: f64) -> Vec<String> {
    let path = format!(
        "/api/v1/query_exemplars?query={}&start={:.3}&end={:.3}",
        url_encode(selector),
        now - 600.0,
        now + 1.0
    );
    let Some(data) = api_data(prometheus, &path) else {
        return Vec::new();
    };
    data.as_array()
        .into_iter()
        .flatten()
        .flat_map(|series| series["exemplars"].as_array().into_iter().flatten())
        .map(|exemplar| {
            exemplar["labels"]["trace_id"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

/// The first sample's value of an instant query at `time`, if finite.
fn finite_at(prometheus: SocketAddr, promql: &str, time: f64) -> Option<f64> {
    query_at(prometheus, promql, time)?
        .first()
        .map(|(_, v)| *v)
        .filter(|v| v.is_finite())
}

#[test]
fn prometheus_queries_the_demos_native_histograms_and_its_exemplars() {
    const TEST: &str = "prometheus_queries_the_demos_native_histograms_and_its_exemplars";
    if !tools_or_skip(TEST) || !openai_or_skip(TEST) {
        return;
    }
    let mut args = vec![
        "--native-histograms",
        "--exemplars",
        "--engines=1",
        "--concurrency=0",
        "--requests=0",
        "--speed=1",
    ];
    args.extend_from_slice(ZERO_RATES);
    let (_frontend, target, _stdout) = serve_frontend(&args);
    let job = |name| ScrapeJob {
        name,
        target,
        metrics_path: "/metrics",
    };
    let native_dir = TempDir::new("e2e-native");
    let (_native_server, native) = start_prometheus_with(
        &native_dir.0,
        &[job("native")],
        &["--enable-feature=native-histograms,exemplar-storage"],
    );
    let classic_dir = TempDir::new("e2e-classic");
    let (_classic_server, classic) = start_prometheus_with(
        &classic_dir.0,
        &[job("classic")],
        &["--enable-feature=exemplar-storage"],
    );

    let load = Command::new("python3")
        .arg(LOAD_SCRIPT)
        .arg(format!("http://{target}"))
        .args([LOAD_SECONDS, 4, 64].map(|n| n.to_string()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run python3");
    let output = load.wait_with_output().expect("the openai client ends");
    assert!(
        output.status.success(),
        "the openai client failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let client: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("the script prints JSON");
    assert_eq!(client["errors"], serde_json::json!([]), "{client}");
    let ids: BTreeSet<&str> = client["ids"]
        .as_array()
        .expect("ids")
        .iter()
        .map(|id| id.as_str().expect("an id"))
        .collect();
    let completed = ids.len();
    assert!(
        completed >= 8,
        "only {completed} completions in {LOAD_SECONDS} s"
    );

    // Both servers have scraped the finished load once it is in the demo's counters; then
    // ask both about the same instant.
    let counted = |prometheus, query_name: &str| {
        wait_for(
            &format!("{query_name} to count every completion"),
            Duration::from_secs(30),
            || {
                query(prometheus, query_name)
                    .and_then(|r| r.first().map(|(_, v)| *v))
                    .filter(|v| *v == completed as f64)
            },
        )
    };
    counted(
        native,
        "sum(histogram_count(vllm:e2e_request_latency_seconds))",
    );
    counted(classic, "sum(vllm:e2e_request_latency_seconds_count)");
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs_f64();

    // Native series: PromQL's native-histogram functions read them.
    let ttft_rate = finite_at(
        native,
        "sum(histogram_count(rate(vllm:time_to_first_token_seconds[1m])))",
        now,
    )
    .expect("a native TTFT rate");
    assert!(ttft_rate > 0.0, "TTFT rate {ttft_rate}");
    let native_p90 = finite_at(
        native,
        "histogram_quantile(0.9, sum(rate(vllm:e2e_request_latency_seconds[1m])))",
        now,
    )
    .expect("a native e2e p90");
    // The native server stored no classic buckets for a histogram with native ones.
    assert_eq!(
        query(native, "vllm:e2e_request_latency_seconds_bucket").map(|r| r.len()),
        Some(0)
    );

    // The classic server, scraping text, has the `_bucket` series and estimates from them.
    let classic_p90 = finite_at(
        classic,
        "histogram_quantile(0.9, sum by (le) (rate(vllm:e2e_request_latency_seconds_bucket[1m])))",
        now,
    )
    .expect("a classic e2e p90");
    let text = http_get(target, "/metrics", Some("text/plain;version=0.0.4")).expect("scrape");
    let bounds = classic_bounds(&text.body, "vllm:e2e_request_latency_seconds");
    assert!(bounds.len() > 2, "{bounds:?}");
    let upper = bounds
        .iter()
        .position(|b| *b >= classic_p90)
        .expect("+Inf bounds every estimate");
    let lower = if upper == 0 { 0.0 } else { bounds[upper - 1] };
    let width = bounds[upper] - lower;
    eprintln!(
        "{completed} completions; native TTFT rate {ttft_rate:.3}/s; e2e p90 native \
         {native_p90:.4} s, classic {classic_p90:.4} s in bucket ({lower}, {}]",
        bounds[upper]
    );
    assert!(
        (native_p90 - classic_p90).abs() <= width,
        "native p90 {native_p90} is more than one classic bucket ({lower}, {}] from the classic \
         estimate {classic_p90}",
        bounds[upper]
    );

    // Exemplars, from protobuf (the native server: a native histogram's exemplars are stored
    // under its own name) and from OpenMetrics (the classic one: under `_bucket`): every
    // stored trace id is a completion the client received (it was the only client), and each
    // family the demo attaches them to has some.
    let families = [
        "vllm:time_to_first_token_seconds",
        "vllm:e2e_request_latency_seconds",
        "vllm:inter_token_latency_seconds",
    ];
    let mut checks: Vec<(&str, SocketAddr, String)> = Vec::new();
    for family in families {
        checks.push(("protobuf", native, family.to_owned()));
        checks.push(("OpenMetrics", classic, format!("{family}_bucket")));
    }
    for (format, server) in [("protobuf", native), ("OpenMetrics", classic)] {
        checks.push((format, server, "vllm:generation_tokens_total".to_owned()));
    }
    for (format, server, selector) in checks {
        let traces = exemplar_trace_ids(server, &selector, now);
        assert!(
            !traces.is_empty(),
            "no exemplar stored for {selector} scraped over {format}"
        );
        let unknown: Vec<&String> = traces
            .iter()
            .filter(|t| !ids.contains(t.as_str()))
            .collect();
        assert!(
            unknown.is_empty(),
            "{selector} over {format}: trace ids no client request had: {unknown:?}"
        );
    }
}
