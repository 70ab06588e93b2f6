//! End to end with a real Prometheus: the demo frontend serves `/metrics`, a Prometheus server
//! scrapes it every second, and its query API must show the live metrics and counter values
//! equal to what the simulated clients saw. `promtool check metrics` lints the exposition.
//!
//! Needs `prometheus` and `promtool` (Debian package `prometheus`). Without them the test says
//! SKIPPED and passes, unless `METRIC_HANDLES_REQUIRE_TOOLS=1` (set by `.ci/run`).

mod demo_support;
#[path = "../metrics-runtime/tests/support/external_tool.rs"]
mod external_tool;

use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use demo_support::{http_get, read_report, serve_frontend, url_encode, ChildGuard, TempDir};

/// `true` when the tools are present; otherwise skips (or fails under `.ci/run`).
fn tools_or_skip(test: &str) -> bool {
    let missing: Vec<&str> = ["prometheus", "promtool"]
        .into_iter()
        .filter(|tool| !external_tool::runs(tool, &["--version"]))
        .collect();
    external_tool::available_or_skip(
        missing.is_empty(),
        test,
        &missing.join(" and "),
        "Debian package prometheus",
    )
}

fn free_loopback_port() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local addr")
}

/// Polls `f` every 250 ms until it returns `Some`, at most `timeout`.
fn wait_for<T>(what: &str, timeout: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {timeout:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// One instant query; the result vector as `(labels, value)` pairs (`None` on any failure,
/// so callers can poll).
fn query(prometheus: SocketAddr, promql: &str) -> Option<Vec<(serde_json::Value, f64)>> {
    let path = format!("/api/v1/query?query={}", url_encode(promql));
    let response = http_get(prometheus, &path, None).ok()?;
    if response.status != 200 {
        return None;
    }
    let json: serde_json::Value = serde_json::from_str(&response.body).ok()?;
    if json["status"] != "success" {
        return None;
    }
    json["data"]["result"]
        .as_array()?
        .iter()
        .map(|r| {
            let value = r["value"][1].as_str()?.parse::<f64>().ok()?;
            Some((r["metric"].clone(), value))
        })
        .collect()
}

fn start_prometheus(dir: &Path, target: SocketAddr) -> (ChildGuard, SocketAddr) {
    let config = dir.join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n\
             scrape_configs:\n  - job_name: frontend\n    static_configs:\n      - targets: ['{target}']\n"
        ),
    )
    .expect("write prometheus.yml");
    let web = free_loopback_port();
    let log = std::fs::File::create(dir.join("prometheus.log")).expect("create log file");
    let child = Command::new("prometheus")
        .arg(format!("--config.file={}", config.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.join("data").display()
        ))
        .arg(format!("--web.listen-address={web}"))
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start prometheus");
    (ChildGuard::new("prometheus", child), web)
}

#[test]
fn prometheus_scrapes_the_demo_and_its_counters_match_the_workload() {
    if !tools_or_skip("prometheus_scrapes_the_demo_and_its_counters_match_the_workload") {
        return;
    }
    let dir = TempDir::new("e2e-prometheus");
    let report_path = dir.0.join("report.json");
    // A bounded workload that outlasts Prometheus' start-up and first scrapes (~8 s), then
    // keeps serving its final values.
    let (_frontend, target, _stdout) = serve_frontend(&[
        "--engines=2",
        "--requests=800",
        "--concurrency=16",
        "--prompt-tokens=32..512",
        "--max-tokens=16..128",
        "--churn-interval=0",
        "--speed=2",
        "--log-interval=1",
        // Deprecated names on, so the test also proves an alias reaches Prometheus.
        "--show-hidden-metrics-for-version=0.10",
        "--report",
        report_path.to_str().expect("UTF-8 path"),
    ]);
    let (_prometheus, web) = start_prometheus(&dir.0, target);
    let log = || std::fs::read_to_string(dir.0.join("prometheus.log")).unwrap_or_default();

    wait_for("Prometheus to be ready", Duration::from_secs(30), || {
        http_get(web, "/-/ready", None)
            .ok()
            .filter(|r| r.status == 200)
    });
    wait_for("two scrapes", Duration::from_secs(30), || {
        query(web, "count_over_time(up{job=\"frontend\"}[1m])")
            .filter(|r| r.first().is_some_and(|(_, n)| *n >= 2.0))
    });
    let up = query(web, "up{job=\"frontend\"}").expect("query up");
    assert_eq!(up.len(), 1, "one target: {up:?}");
    assert_eq!(
        up[0].1,
        1.0,
        "the target is down; Prometheus log:\n{}",
        log()
    );

    let running = query(web, "vllm:num_requests_running").expect("query running");
    assert_eq!(running.len(), 2, "one series per engine: {running:?}");
    for (metric, _) in &running {
        assert_eq!(metric["model_name"], "meta-llama/Llama-3.1-8B-Instruct");
    }
    let ttft_p90 = wait_for("a TTFT p90", Duration::from_secs(30), || {
        query(
            web,
            "histogram_quantile(0.9, sum by (le) (rate(vllm:time_to_first_token_seconds_bucket[1m])))",
        )
        .and_then(|r| r.first().map(|(_, v)| *v))
        .filter(|v| v.is_finite())
    });
    assert!(ttft_p90 > 0.0 && ttft_p90 < 60.0, "TTFT p90 = {ttft_p90}");
    let per_engine = query(
        web,
        "histogram_quantile(0.9, rate(vllm:time_to_first_token_seconds_bucket[1m]))",
    )
    .expect("query per-engine TTFT p90");
    assert_eq!(per_engine.len(), 2, "{per_engine:?}");

    // After the workload, Prometheus' latest samples must equal the clients' counts.
    wait_for("the workload to finish", Duration::from_secs(90), || {
        report_path.exists().then_some(())
    });
    let report = read_report(&report_path);
    let total = |key: &str| report["total"][key].as_u64().expect("count") as f64;
    wait_for(
        "a scrape after the workload",
        Duration::from_secs(30),
        || {
            query(web, "sum(vllm:generation_tokens_total)").filter(|r| {
                r.first()
                    .is_some_and(|(_, v)| *v == total("generation_tokens"))
            })
        },
    );
    let sum_of = |promql: &str| -> f64 {
        query(web, promql)
            .and_then(|r| r.first().map(|(_, v)| *v))
            .unwrap_or_else(|| panic!("no data for {promql}"))
    };
    assert_eq!(
        sum_of("sum(vllm:prompt_tokens_total)"),
        total("prompt_tokens")
    );
    assert_eq!(
        sum_of("sum(vllm:num_preemptions_total)"),
        total("preemptions")
    );
    assert_eq!(
        sum_of("sum(vllm:time_to_first_token_seconds_count)"),
        total("first_tokens")
    );
    assert_eq!(sum_of("sum(vllm:e2e_request_latency_seconds_count)"), 800.0);
    let by_reason = query(web, "sum by (finished_reason) (vllm:request_success_total)")
        .expect("query request_success");
    for (metric, value) in &by_reason {
        let reason = metric["finished_reason"].as_str().expect("reason label");
        let want = report["total"]["finished"][reason].as_u64().unwrap_or(0) as f64;
        assert_eq!(*value, want, "finished_reason={reason}");
    }
    assert_eq!(by_reason.iter().map(|(_, v)| v).sum::<f64>(), 800.0);
    // Aliases: the deprecated names are the same series under another name, so
    // Prometheus stores identical values for both, per engine.
    assert_eq!(
        sum_of("sum(vllm:time_per_output_token_seconds_count)"),
        sum_of("sum(vllm:inter_token_latency_seconds_count)")
    );
    let old_usage = query(web, "vllm:gpu_cache_usage_perc").expect("query the alias");
    let new_usage = query(web, "vllm:kv_cache_usage_perc").expect("query kv usage");
    assert_eq!(
        old_usage.len(),
        2,
        "one alias series per engine: {old_usage:?}"
    );
    for (metric, value) in &old_usage {
        let engine = &metric["engine"];
        let current = new_usage
            .iter()
            .find(|(m, _)| &m["engine"] == engine)
            .map(|(_, v)| *v);
        assert_eq!(current, Some(*value), "engine {engine}");
    }
    for (engine, want) in report["engines"].as_object().expect("engines") {
        let got = sum_of(&format!(
            "sum(vllm:generation_tokens_total{{engine=\"{engine}\"}})"
        ));
        assert_eq!(got, want["generation_tokens"].as_u64().expect("n") as f64);
    }
}

/// The lint rules vLLM's metric names are known to trip: the `:` in every name (recording-rule
/// style names, which vLLM uses), and `_total` on `vllm:iteration_tokens_total`, a histogram
/// that vLLM registers under that name (dashboards query it, so it is kept).
fn accepted_lint(line: &str) -> bool {
    line.ends_with("metric names should not contain ':'")
        || line
            == "vllm:iteration_tokens_total non-counter metrics should not have \"_total\" suffix"
}

#[test]
fn promtool_accepts_the_exposition_apart_from_the_colon_rule() {
    if !tools_or_skip("promtool_accepts_the_exposition_apart_from_the_colon_rule") {
        return;
    }
    let (_frontend, target, _stdout) =
        serve_frontend(&["--speed=10", "--requests=0", "--spec-decode-tokens=2"]);
    // Wait until every kind of series has samples (requests finished on both engines).
    let body = wait_for("finished requests", Duration::from_secs(30), || {
        http_get(target, "/metrics", None)
            .ok()
            .map(|r| r.body)
            .filter(|b| b.contains("vllm:request_success_total{") && b.contains("engine=\"1\""))
    });
    let findings = external_tool::promtool_check_metrics(&body);
    assert!(
        findings
            .iter()
            .any(|l| l.contains("should not contain ':'")),
        "promtool should flag the ':' names, so the lint did run: {findings:#?}"
    );
    let other: Vec<&String> = findings.iter().filter(|l| !accepted_lint(l)).collect();
    assert!(other.is_empty(), "promtool found problems: {other:#?}");
}
