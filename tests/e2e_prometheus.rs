//! End to end with a real Prometheus: the demo frontend serves `/metrics`, a Prometheus server
//! scrapes it every second, and its query API must show the live metrics and counter values
//! equal to what the simulated clients saw. `promtool check metrics` lints the exposition.
//! A registry with hostile label values and help text (line breaks of every kind, backslashes,
//! quotes, tabs) is served in both formats and scraped too: Prometheus must store each value
//! exactly as recorded, or as the crate documents it rewrites it.
//!
//! Needs `prometheus` and `promtool` (Debian package `prometheus`). Without them the test says
//! SKIPPED and passes, unless `METRIC_HANDLES_REQUIRE_TOOLS=1` (set by `.ci/run`).

mod support;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use metric_handles::descriptor::{MetricDescriptor, MetricKind};
use metric_handles::Registry;
use metric_handles::{
    Counter, Dynamic, ExpositionFormat, Family, LabelSet, MetricHandles, NoLabels, RegisterOptions,
};
use support::demo::{http_get, read_report, serve_frontend, url_encode, TempDir};
use support::exposition_server::{ExpositionServer, OPENMETRICS_PATH, PROTOBUF_PATH, TEXT_PATH};
use support::external_tool;
use support::prometheus::{
    api_data, query, start_prometheus, start_prometheus_with, tools_or_skip, wait_for, ScrapeJob,
};

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
    let (_prometheus, web) = start_prometheus(
        &dir.0,
        &[ScrapeJob {
            name: "frontend",
            target,
            metrics_path: "/metrics",
        }],
    );
    let log = || std::fs::read_to_string(dir.0.join("prometheus.log")).unwrap_or_default();

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

    // Scraped through the library's handler, which Prometheus asks for gzip (its default):
    // the handler counts what it answered, and Prometheus stored that count.
    let served = wait_for("the handler's own count", Duration::from_secs(30), || {
        query(
            web,
            "metric_handles_metric_handler_requests_total{job=\"frontend\",code=\"200\"}",
        )
        .and_then(|r| r.first().map(|(_, v)| *v))
        .filter(|v| *v >= 1.0)
    });
    assert!(served >= 1.0);
    let errors = query(web, "sum(metric_handles_metric_handler_errors_total)").expect("errors");
    assert_eq!(errors.first().map(|(_, v)| *v), Some(0.0));

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

/// The labels of the hostile series: `case` names the character under test, `value` carries it.
#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
struct HostileLabels {
    case: String,
    value: String,
}

/// A dynamic axis, carrying the same value again.
#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
struct DynamicLabel {
    extra: String,
}

#[derive(Debug, MetricHandles)]
#[metric_handles(labels = HostileLabels)]
struct HostileMetrics {
    /// Hostile values in the label set, path C:\dir\, "quoted"
    #[metric(name = "hostile:labels")]
    labels: Family<HostileLabels, Counter>,
    /// Hostile values in a dynamic axis too; a literal \n is no line break
    #[metric(name = "hostile:dynamic")]
    dynamic: Family<HostileLabels, Dynamic<DynamicLabel, Counter>>,
}

/// `(case, value recorded, value Prometheus must store)`. The stored value is the recorded one
/// but for the documented rewrite (docs/reliability.md, "Limits, rejections and escaping"):
/// each C0 control character except the line feed, and DEL, is written as its Unicode control
/// picture (`\r` as U+240D, a tab as U+2409). Everything else must arrive byte for byte.
const HOSTILE_VALUES: &[(&str, &str, &str)] = &[
    ("crlf", "a\r\nb", "a\u{240d}\nb"),
    ("cr", "a\rb", "a\u{240d}b"),
    ("lf", "a\nb", "a\nb"),
    ("nel", "a\u{85}b", "a\u{85}b"),
    ("line_separator", "a\u{2028}b", "a\u{2028}b"),
    ("backslash", "C:\\dir\\", "C:\\dir\\"),
    ("quote", "say \"hi\"", "say \"hi\""),
    ("tab", "a\tb", "a\u{2409}b"),
    (
        "all",
        "\\\"\r\n\r\u{85}\u{2028}\t\\n",
        "\\\"\u{240d}\n\u{240d}\u{85}\u{2028}\u{2409}\\n",
    ),
];

/// [`HOSTILE_VALUES`] and one more case: every C0 control character and DEL, recorded and as
/// documented (the line feed kept, each other one its control picture, DEL `\u{2421}`).
fn hostile_values() -> Vec<(&'static str, String, String)> {
    let controls = (0u8..0x20).chain([0x7f]).map(char::from);
    let recorded: String = controls.clone().collect();
    let stored: String = controls
        .map(|c| match c {
            '\n' => '\n',
            '\u{7f}' => '\u{2421}',
            c => char::from_u32(0x2400 + u32::from(c)).expect("a control picture"),
        })
        .collect();
    HOSTILE_VALUES
        .iter()
        .map(|&(case, recorded, stored)| (case, recorded.to_owned(), stored.to_owned()))
        .chain([("every_control_character", recorded, stored)])
        .collect()
}

/// Help text only known at run time: every line break, a backslash, quotes, a tab, NEL, LS.
const RUNTIME_HELP: &str =
    "First line\r\nsecond\rthird\nfourth \\ back \"q\" \t tab \u{85} nel \u{2028} ls";

/// `(family, help Prometheus must store)`: line breaks and tabs in run-time help become spaces
/// at registration, and the exposition adds the final `.`; backslashes and quotes arrive as
/// they were written.
const HOSTILE_HELP: &[(&str, &str)] = &[
    (
        "hostile:dynamic",
        "Hostile values in a dynamic axis too; a literal \\n is no line break.",
    ),
    (
        "hostile:labels",
        "Hostile values in the label set, path C:\\dir\\, \"quoted\".",
    ),
    (
        "hostile:runtime_help",
        "First line second third fourth \\ back \"q\"   tab \u{85} nel \u{2028} ls.",
    ),
];

/// Series value of the case at `index` in `hostile:labels` (and `+ 100` in `hostile:dynamic`),
/// so a value arriving on the wrong series shows.
fn hostile_count(index: usize) -> u64 {
    index as u64 + 1
}

fn hostile_registry() -> Registry {
    let mut registry = Registry::default();
    let metrics = HostileMetrics::register(&mut registry);
    for (index, (case, value, _)) in hostile_values().into_iter().enumerate() {
        let handles = metrics.resolve(&HostileLabels {
            case: case.to_owned(),
            value: value.clone(),
        });
        handles.labels.inc_by(hostile_count(index));
        handles
            .dynamic
            .get_or_create(&DynamicLabel { extra: value })
            .inc_by(hostile_count(index) + 100);
    }
    static RUNTIME: MetricDescriptor = MetricDescriptor {
        name: "hostile:runtime_help",
        field: "runtime_help",
        kind: MetricKind::Counter,
        value_type: "u64",
        help: RUNTIME_HELP,
        computed: None,
        unit: None,
        common_labels: &[],
        axis: None,
        buckets: None,
        native: None,
        max_series: 1,
        max_label_sets: 1,
        aliases: &[],
    };
    let runtime: Family<NoLabels, Counter> = metric_handles::__private::register_family(
        &mut registry,
        &RUNTIME,
        &RegisterOptions::new(),
    );
    runtime.get_or_create(&NoLabels).inc();
    registry
}

/// A series as the test compares it: every label (Prometheus' `job` and `instance` included)
/// and the value.
type Series = (BTreeMap<String, String>, f64);

/// What Prometheus must store for the hostile registry scraped as `job` from `target`.
fn expected_hostile_series(job: &str, target: SocketAddr) -> Vec<Series> {
    let labels = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .chain(&[("job", job), ("instance", &target.to_string())])
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    };
    let mut series = vec![(labels(&[("__name__", "hostile:runtime_help_total")]), 1.0)];
    for (index, (case, _, stored)) in hostile_values().iter().enumerate() {
        let count = hostile_count(index) as f64;
        series.push((
            labels(&[
                ("__name__", "hostile:labels_total"),
                ("case", case),
                ("value", stored),
            ]),
            count,
        ));
        series.push((
            labels(&[
                ("__name__", "hostile:dynamic_total"),
                ("case", case),
                ("value", stored),
                ("extra", stored),
            ]),
            count + 100.0,
        ));
    }
    sorted_series(series)
}

fn sorted_series(mut series: Vec<Series>) -> Vec<Series> {
    series.sort_by(|a, b| a.0.cmp(&b.0));
    series
}

/// Parses a JSON object of string values (a series' labels) into a map.
fn string_map(json: &serde_json::Value) -> BTreeMap<String, String> {
    json.as_object()
        .expect("a JSON object")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().expect("a string").to_owned()))
        .collect()
}

/// The active target of `job` once it has been scraped (its health no longer `unknown`).
fn scraped_target(prometheus: SocketAddr, job: &str) -> Option<serde_json::Value> {
    api_data(prometheus, "/api/v1/targets?state=active")?["activeTargets"]
        .as_array()?
        .iter()
        .find(|t| t["labels"]["job"] == job && t["health"] != "unknown")
        .cloned()
}

/// `(family, type, help)` of the `hostile:` families as the target of `job` last reported them.
/// `/api/v1/targets/metadata` rather than `/api/v1/metadata`: the two jobs scrape the same
/// families, and this one says which target each entry came from.
fn hostile_metadata(prometheus: SocketAddr, job: &str) -> Option<Vec<(String, String, String)>> {
    let selector = url_encode(&format!("{{job=\"{job}\"}}"));
    let data = api_data(
        prometheus,
        &format!("/api/v1/targets/metadata?match_target={selector}"),
    )?;
    let mut metadata: Vec<(String, String, String)> = data
        .as_array()?
        .iter()
        .filter(|m| {
            m["metric"]
                .as_str()
                .is_some_and(|n| n.starts_with("hostile:"))
        })
        .map(|m| {
            let field = |key: &str| m[key].as_str().unwrap_or_default().to_owned();
            (field("metric"), field("type"), field("help"))
        })
        .collect();
    metadata.sort();
    (!metadata.is_empty()).then_some(metadata)
}

/// Waits for `job`'s first scrape of the hostile registry served at `target`, then checks it
/// as [`prometheus_stores_hostile_label_values_and_help_text_as_documented`] says: the target
/// up without error, every series stored with its labels and value, each family's help text
/// under its name plus `metadata_suffix`. `log` reads Prometheus's log for the failure message.
fn assert_job_stored_the_hostile_series(
    web: SocketAddr,
    job: &str,
    target: SocketAddr,
    metadata_suffix: &str,
    log: &dyn Fn() -> String,
) {
    let scraped = wait_for(
        &format!("a scrape of job {job}"),
        Duration::from_secs(30),
        || scraped_target(web, job),
    );
    assert_eq!(
        (scraped["health"].as_str(), scraped["lastError"].as_str()),
        (Some("up"), Some("")),
        "job {job}: {scraped:#}\nPrometheus log:\n{}",
        log()
    );
    let stored = wait_for(
        &format!("the series of job {job}"),
        Duration::from_secs(30),
        || {
            query(web, &format!("{{__name__=~\"hostile:.*\",job=\"{job}\"}}"))
                .filter(|series| !series.is_empty())
        },
    );
    let stored = sorted_series(
        stored
            .iter()
            .map(|(labels, value)| (string_map(labels), *value))
            .collect(),
    );
    assert_eq!(
        stored,
        expected_hostile_series(job, target),
        "job {job}: stored series differ from those recorded"
    );
    let expected_help: Vec<(String, String, String)> = HOSTILE_HELP
        .iter()
        .map(|(family, help)| {
            (
                format!("{family}{metadata_suffix}"),
                "counter".to_owned(),
                (*help).to_owned(),
            )
        })
        .collect();
    let metadata = wait_for(
        &format!("the metadata of job {job}"),
        Duration::from_secs(30),
        || hostile_metadata(web, job),
    );
    assert_eq!(metadata, expected_help, "job {job}: help text");
}

/// Escaping end to end: label values and help text with line breaks (`\r\n`, `\r`, `\n`, NEL,
/// LINE SEPARATOR), backslashes, quotes and tabs, served over HTTP in both formats the crate
/// writes, scraped by a real Prometheus (one job per format: each path has a fixed content
/// type). Every series must be stored with its label values exactly as recorded, or as
/// documented where the crate rewrites a control character, with its value; each target up
/// without a scrape error; each family's help text as written.
#[test]
fn prometheus_stores_hostile_label_values_and_help_text_as_documented() {
    if !tools_or_skip("prometheus_stores_hostile_label_values_and_help_text_as_documented") {
        return;
    }
    let server = ExpositionServer::start(hostile_registry());
    let dir = TempDir::new("e2e-prometheus-escaping");
    let jobs = [
        (ExpositionFormat::PrometheusText, "text", TEXT_PATH),
        (
            ExpositionFormat::OpenMetrics,
            "openmetrics",
            OPENMETRICS_PATH,
        ),
    ];
    let scrape_jobs: Vec<ScrapeJob> = jobs
        .iter()
        .map(|&(_, name, metrics_path)| ScrapeJob {
            name,
            target: server.addr(),
            metrics_path,
        })
        .collect();
    let (_prometheus, web) = start_prometheus(&dir.0, &scrape_jobs);
    let log = || std::fs::read_to_string(dir.0.join("prometheus.log")).unwrap_or_default();

    for (format, job, _) in jobs {
        // The classic text declares a counter under its `_total` sample name, OpenMetrics
        // under the family name.
        let suffix = match format {
            ExpositionFormat::OpenMetrics => "",
            _ => "_total",
        };
        assert_job_stored_the_hostile_series(web, job, server.addr(), suffix, &log);
    }

    // Why one path per format: what Prometheus asks for negotiates to OpenMetrics.
    let accept_headers = server.accept_headers();
    assert!(
        !accept_headers.is_empty(),
        "Prometheus sent no Accept header"
    );
    for accept in &accept_headers {
        assert_eq!(
            ExpositionFormat::negotiate(Some(accept)),
            ExpositionFormat::OpenMetrics,
            "Accept: {accept}"
        );
    }
    // Compression is on by default: every scrape asks for gzip, so the demo's `/metrics` (the
    // library's handler, scraped by the first test) answers Prometheus with gzip bodies, as
    // tests/demo_frontend.rs checks for these headers.
    let encodings = server.accept_encoding_headers();
    assert_eq!(encodings.len(), accept_headers.len(), "{encodings:?}");
    assert!(encodings.iter().all(|e| e == "gzip"), "{encodings:?}");
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
struct Phase {
    phase: String,
}

#[derive(MetricHandles)]
#[metric_handles(labels = Phase)]
struct PhaseMetrics {
    /// Time spent in a request phase
    #[metric(name = "e2e_phase_latency", unit = "seconds", buckets = [0.1, 1.0, 10.0])]
    latency: Family<Phase, metric_handles::Histogram>,
}

/// Prometheus 2.42 with `--enable-feature=native-histograms` asks for the protobuf format
/// first (`scrapeAcceptHeaderWithProtobuf`), and a `protobuf` build answers it: Prometheus must
/// store the hostile registry's series scraped over protobuf exactly as it stores them scraped
/// as text (one job per format, same registry), so switching formats keeps every series'
/// identity; a classic histogram's too.
#[test]
fn prometheus_with_native_histograms_stores_over_protobuf_what_it_stores_from_text() {
    if !tools_or_skip(
        "prometheus_with_native_histograms_stores_over_protobuf_what_it_stores_from_text",
    ) {
        return;
    }
    let mut registry = hostile_registry();
    let latency = registry.sub_registry_with_label(("zone".into(), "west".into()));
    let latency = PhaseMetrics::register(latency);
    for (phase, observations) in [("prefill", &[0.05, 0.5, 5.0][..]), ("decode", &[0.2, 50.0])] {
        let handles = latency.resolve(&Phase {
            phase: phase.to_owned(),
        });
        for seconds in observations {
            handles.latency.observe(*seconds);
        }
    }
    let server = ExpositionServer::start(registry);
    let dir = TempDir::new("e2e-prometheus-protobuf");
    // (job, path, the suffix of a counter's name in the metadata)
    let jobs = [
        ("protobuf", PROTOBUF_PATH, "_total"),
        ("text", TEXT_PATH, "_total"),
        ("openmetrics", OPENMETRICS_PATH, ""),
    ];
    let scrape_jobs: Vec<ScrapeJob> = jobs
        .iter()
        .map(|&(name, metrics_path, _)| ScrapeJob {
            name,
            target: server.addr(),
            metrics_path,
        })
        .collect();
    let (_prometheus, web) = start_prometheus_with(
        &dir.0,
        &scrape_jobs,
        &["--enable-feature=native-histograms"],
    );
    let log = || std::fs::read_to_string(dir.0.join("prometheus.log")).unwrap_or_default();
    for (job, _, metadata_suffix) in jobs {
        assert_job_stored_the_hostile_series(web, job, server.addr(), metadata_suffix, &log);
    }
    // A classic histogram (no native buckets) is stored as its `_bucket`, `_count` and `_sum`
    // series, the same from protobuf as from OpenMetrics (what Prometheus scrapes when native
    // histograms are off), `le` values included: Prometheus 2 writes a protobuf bucket's bound
    // as OpenMetrics does (`1.0`), while from text 0.0.4 it keeps `le` as written (`1`), so
    // only those series differ between the text and protobuf jobs.
    let histogram_series = |job: &str| {
        let stored = wait_for(
            &format!("the histogram series of job {job}"),
            Duration::from_secs(30),
            || {
                query(
                    web,
                    &format!("{{__name__=~\"e2e_phase_.*\",job=\"{job}\"}}"),
                )
                .filter(|series| !series.is_empty())
            },
        );
        let without_job = stored.iter().map(|(labels, value)| {
            let mut labels = string_map(labels);
            labels.remove("job");
            (labels, *value)
        });
        sorted_series(without_job.collect())
    };
    let from_protobuf = histogram_series("protobuf");
    assert_eq!(from_protobuf, histogram_series("openmetrics"));
    // 2 phases x (4 buckets, `_count`, `_sum`).
    assert_eq!(from_protobuf.len(), 12, "{from_protobuf:#?}");
    let prefill_inf = from_protobuf.iter().find(|(labels, _)| {
        labels["__name__"] == "e2e_phase_latency_seconds_bucket"
            && labels["phase"] == "prefill"
            && labels["le"] == "+Inf"
            && labels["zone"] == "west"
    });
    assert_eq!(
        prefill_inf.map(|(_, value)| *value),
        Some(3.0),
        "{from_protobuf:#?}"
    );
    let accept_headers = server.accept_headers();
    assert!(
        !accept_headers.is_empty(),
        "Prometheus sent no Accept header"
    );
    for accept in &accept_headers {
        assert_eq!(
            ExpositionFormat::negotiate(Some(accept)),
            ExpositionFormat::PrometheusProtobuf,
            "Accept: {accept}"
        );
    }
}
