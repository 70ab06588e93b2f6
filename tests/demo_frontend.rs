//! The `frontend` example: exact counts with every rate at 0, counters that match the
//! simulated workload otherwise, determinism per seed, engine churn, and the HTTP server.

mod support;

use std::time::Duration;

use support::demo::{
    http_get, http_request, parse_exposition, print_metrics, read_report, serve_frontend, Sample,
    Samples, TempDir, ZERO_RATES,
};

const OPENMETRICS: &str =
    "application/openmetrics-text; version=1.0.0; charset=utf-8; escaping=underscores";
const PROMETHEUS_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";

fn run(args: &[&str]) -> Vec<Sample> {
    let out = print_metrics(args);
    parse_exposition(&String::from_utf8(out.stdout).expect("UTF-8 exposition"))
}

fn with_report(args: &[&str]) -> (Vec<Sample>, serde_json::Value) {
    let dir = TempDir::new("demo-report");
    let path = dir.0.join("report.json");
    let path_str = path.to_str().expect("UTF-8 path");
    let mut all = args.to_vec();
    all.extend(["--report", path_str]);
    let samples = run(&all);
    (samples, read_report(&path))
}

/// The issue's acceptance command, every rate at 0: 2 engines, 10 requests of 12 prompt tokens
/// and exactly 10 generated tokens each, one at a time.
#[test]
fn print_metrics_counts_match_the_workload_exactly() {
    let mut args = vec![
        "--engines=2",
        "--requests=10",
        "--concurrency=1",
        "--prompt-tokens=12",
        "--max-tokens=10",
        "--speed=50",
    ];
    args.extend_from_slice(ZERO_RATES);
    let s = run(&args);
    let sum = |name: &str| s.sum(name, &[]);

    assert_eq!(
        s.label_values("vllm:generation_tokens_total", "engine"),
        ["0", "1"]
    );
    assert_eq!(sum("vllm:prompt_tokens_total"), 120.0);
    assert_eq!(sum("vllm:generation_tokens_total"), 100.0);
    for engine in ["0", "1"] {
        // Ties between idle engines rotate: 5 requests each.
        assert_eq!(
            s.sum("vllm:prompt_tokens_total", &[("engine", engine)]),
            60.0
        );
        assert_eq!(
            s.sum("vllm:generation_tokens_total", &[("engine", engine)]),
            50.0
        );
    }
    let success = |reason| s.sum("vllm:request_success_total", &[("finished_reason", reason)]);
    assert_eq!(success("length"), 10.0);
    for reason in ["stop", "abort", "error", "repetition"] {
        assert_eq!(success(reason), 0.0, "finished_reason={reason}");
    }
    assert_eq!(sum("vllm:time_to_first_token_seconds_count"), 10.0);
    // One inter-token sample per output after the first: 9 per request.
    assert_eq!(sum("vllm:inter_token_latency_seconds_count"), 90.0);
    assert_eq!(sum("vllm:e2e_request_latency_seconds_count"), 10.0);
    assert_eq!(
        sum("vllm:request_time_per_output_token_seconds_count"),
        10.0
    );
    assert_eq!(sum("vllm:request_queue_time_seconds_count"), 10.0);
    assert_eq!(sum("vllm:request_prompt_tokens_sum"), 120.0);
    assert_eq!(sum("vllm:request_generation_tokens_sum"), 100.0);
    assert_eq!(sum("vllm:request_max_num_generation_tokens_sum"), 100.0);
    assert_eq!(sum("vllm:request_params_max_tokens_sum"), 100.0);
    assert_eq!(sum("vllm:request_params_n_sum"), 10.0);
    assert_eq!(sum("vllm:request_prefill_kv_computed_tokens_sum"), 120.0);
    assert_eq!(sum("vllm:num_preemptions_total"), 0.0);
    assert_eq!(sum("vllm:prompt_tokens_cached_total"), 0.0);
    let by_source = |source| s.sum("vllm:prompt_tokens_by_source_total", &[("source", source)]);
    assert_eq!(by_source("local_compute"), 120.0);
    assert_eq!(by_source("local_cache_hit"), 0.0);
    assert_eq!(by_source("external_kv_transfer"), 0.0);
    assert_eq!(sum("vllm:prefix_cache_queries_total"), 120.0);
    assert_eq!(sum("vllm:prefix_cache_hits_total"), 0.0);
    // One engine step per token, one request per step: 100 batches carrying the 12 computed
    // prompt tokens once and one new token each.
    assert_eq!(sum("vllm:iteration_tokens_total_count"), 100.0);
    assert_eq!(sum("vllm:iteration_tokens_total_sum"), 220.0);
    // The run is over: nothing running, waiting or holding KV blocks.
    assert_eq!(sum("vllm:num_requests_running"), 0.0);
    assert_eq!(sum("vllm:num_requests_waiting"), 0.0);
    assert_eq!(sum("vllm:kv_cache_usage_perc"), 0.0);
    for hist in [
        "vllm:time_to_first_token_seconds",
        "vllm:inter_token_latency_seconds",
        "vllm:iteration_tokens_total",
    ] {
        assert_eq!(
            s.sum(&format!("{hist}_bucket"), &[("le", "+Inf")]),
            sum(&format!("{hist}_count")),
            "{hist}: +Inf bucket == count"
        );
    }
}

/// Every behaviour on (aborts, errors, early stops, preemptions, prefix hits, speculative
/// decoding), several clients at once: the exported counters equal what the clients saw.
#[test]
fn counters_match_the_simulator_report_with_every_behaviour_on() {
    let (s, report) = with_report(&[
        "--engines=3",
        "--requests=120",
        "--concurrency=6",
        "--prompt-tokens=8..300",
        "--max-tokens=4..60",
        "--abort-rate=0.2",
        "--error-rate=0.05",
        "--preemption-rate=0.05",
        "--stop-rate=0.03",
        "--prefix-cache-hit-rate=0.5",
        "--spec-decode-tokens=3",
        "--churn-interval=0",
        "--speed=100",
        "--seed=7",
    ]);
    let total = &report["total"];
    assert_eq!(total["requests"], 120);
    for reason in ["stop", "length", "abort", "error"] {
        assert!(
            total["finished"][reason].as_u64() > Some(0),
            "the workload should produce `{reason}` finishes: {total}"
        );
    }
    for key in ["preemptions", "prompt_tokens_cached"] {
        assert!(
            total[key].as_u64() > Some(0),
            "{key} should be > 0: {total}"
        );
    }
    let engines = report["engines"].as_object().expect("engines");
    assert_eq!(engines.len(), 3);
    for (engine, want) in engines {
        let got = |name: &str| s.sum(name, &[("engine", engine)]);
        let n = |key: &str| want[key].as_u64().expect("count") as f64;
        assert_eq!(got("vllm:generation_tokens_total"), n("generation_tokens"));
        assert_eq!(got("vllm:prompt_tokens_total"), n("prompt_tokens"));
        assert_eq!(
            got("vllm:prompt_tokens_cached_total"),
            n("prompt_tokens_cached")
        );
        assert_eq!(got("vllm:num_preemptions_total"), n("preemptions"));
        assert_eq!(
            got("vllm:time_to_first_token_seconds_count"),
            n("first_tokens")
        );
        assert_eq!(
            got("vllm:inter_token_latency_seconds_count"),
            n("later_token_outputs")
        );
        assert_eq!(got("vllm:e2e_request_latency_seconds_count"), n("requests"));
        assert_eq!(
            got("vllm:request_generation_tokens_sum"),
            n("generation_tokens")
        );
        for (reason, count) in want["finished"].as_object().expect("finished") {
            assert_eq!(
                s.sum(
                    "vllm:request_success_total",
                    &[("engine", engine), ("finished_reason", reason)]
                ),
                count.as_u64().expect("count") as f64,
                "engine {engine}, finished_reason={reason}"
            );
        }
    }
    // Speculative decoding: several tokens per output, per-position counts that add up.
    let spec = |name: &str| s.sum(name, &[]);
    let accepted = spec("vllm:spec_decode_num_accepted_tokens_total");
    assert!(accepted > 0.0);
    assert_eq!(
        spec("vllm:spec_decode_num_accepted_tokens_per_pos_total"),
        accepted
    );
    assert_eq!(
        spec("vllm:spec_decode_num_draft_tokens_total"),
        3.0 * spec("vllm:spec_decode_num_drafts_total")
    );
    let outputs_with_tokens = total["first_tokens"].as_u64().expect("n")
        + total["later_token_outputs"].as_u64().expect("n");
    assert!(total["generation_tokens"].as_u64().expect("n") > outputs_with_tokens);
    for position in ["0", "1", "2"] {
        let per_pos = s.sum(
            "vllm:spec_decode_num_accepted_tokens_per_pos_total",
            &[("position", position)],
        );
        assert!(per_pos > 0.0, "position {position}");
    }
}

fn counter_samples(samples: &[Sample], request_side_only: bool) -> Vec<Sample> {
    // Counters recorded by the request trackers: what the clients saw, whatever the engines'
    // timing. Scheduler-side counts also depend on when an engine notices a client's abort.
    const REQUEST_SIDE: &[&str] = &[
        "vllm:generation_tokens_total",
        "vllm:prompt_tokens_total",
        "vllm:prompt_tokens_cached_total",
        "vllm:prompt_tokens_by_source_total",
        "vllm:request_success_total",
        "vllm:num_preemptions_total",
        "vllm:time_to_first_token_seconds_count",
        "vllm:inter_token_latency_seconds_count",
        "vllm:request_generation_tokens_sum",
    ];
    let mut picked: Vec<Sample> = samples
        .iter()
        .filter(|s| {
            if request_side_only {
                REQUEST_SIDE.contains(&s.name.as_str())
            } else {
                // The process's own figures (CPU time) are the machine's, not the workload's.
                !s.name.starts_with("process_")
                    && (s.name.ends_with("_total") || s.name.ends_with("_count"))
            }
        })
        .cloned()
        .collect();
    // Series order within a family is not part of the format.
    picked.sort_by(|a, b| (&a.name, &a.labels).cmp(&(&b.name, &b.labels)));
    picked
}

/// The same seed at `--concurrency 1` gives the same counts; another seed does not.
#[test]
fn counts_are_deterministic_per_seed_at_concurrency_1() {
    let base = [
        "--engines=2",
        "--requests=40",
        "--concurrency=1",
        "--prompt-tokens=8..200",
        "--max-tokens=4..40",
        "--preemption-rate=0.05",
        "--stop-rate=0.03",
        "--error-rate=0.05",
        // Churn and sleep cycles follow the wall clock: which engine a request lands on would
        // depend on the machine's speed.
        "--churn-interval=0",
        "--sleep-interval=0",
        "--speed=100",
    ];
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        with_report(&args)
    };
    // Client aborts on: everything the clients and the trackers count is reproducible.
    let (a, report_a) = with(&["--seed=11", "--abort-rate=0.2"]);
    let (b, report_b) = with(&["--seed=11", "--abort-rate=0.2"]);
    assert_eq!(report_a, report_b);
    assert_eq!(counter_samples(&a, true), counter_samples(&b, true));
    assert!(report_a["total"]["finished"]["abort"].as_u64() > Some(0));
    let (c, report_c) = with(&["--seed=12", "--abort-rate=0.2"]);
    assert_ne!(report_a, report_c);
    assert_ne!(counter_samples(&a, true), counter_samples(&c, true));
    // Without aborts, the engines' own counters (iteration tokens, prefix cache, spec decode,
    // KV evictions) are reproducible too.
    let (d, _) = with(&["--seed=11", "--abort-rate=0"]);
    let (e, _) = with(&["--seed=11", "--abort-rate=0"]);
    assert!(d
        .iter()
        .any(|s| s.name == "vllm:spec_decode_num_drafts_total"));
    assert_eq!(counter_samples(&d, false), counter_samples(&e, false));
}

/// Engines join and leave mid-run: a departed engine's series are gone, the others' counters
/// still match what their clients saw.
#[test]
fn engines_that_leave_take_their_series_with_them() {
    let (s, report) = with_report(&[
        "--engines=2",
        "--requests=300",
        "--concurrency=8",
        "--prompt-tokens=16..128",
        "--max-tokens=8..32",
        "--churn-interval=0.5",
        "--speed=20",
    ]);
    let engines = report["engines"].as_object().expect("engines");
    let removed: Vec<&String> = engines
        .iter()
        .filter(|(_, e)| e["removed"] == true)
        .map(|(k, _)| k)
        .collect();
    assert!(
        !removed.is_empty(),
        "no engine left during the run: {report}"
    );
    let exported = s.label_values("vllm:generation_tokens_total", "engine");
    for engine in &removed {
        assert!(
            !s.iter().any(|x| x.labels.get("engine") == Some(*engine)),
            "engine {engine} left but still has series"
        );
    }
    for (engine, want) in engines.iter().filter(|(_, e)| e["removed"] == false) {
        assert!(exported.contains(engine), "engine {engine} is missing");
        assert_eq!(
            s.sum("vllm:generation_tokens_total", &[("engine", engine)]),
            want["generation_tokens"].as_u64().expect("n") as f64
        );
    }
    let requests: u64 = engines
        .values()
        .map(|e| e["requests"].as_u64().expect("n"))
        .sum();
    assert_eq!(requests, 300);
}

#[test]
fn metrics_endpoint_negotiates_the_format_and_other_paths_are_404() {
    let (_guard, addr, _stdout) = serve_frontend(&["--speed=10", "--requests=0"]);
    // Live values: tokens are being generated.
    let mut generated = 0.0;
    for _ in 0..100 {
        let r = http_get(addr, "/metrics", None).expect("GET /metrics");
        generated = parse_exposition(&r.body)
            .iter()
            .filter(|s| s.name == "vllm:generation_tokens_total")
            .map(|s| s.value)
            .sum();
        if generated > 0.0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(generated > 0.0, "no tokens generated within 10 s");

    let text = http_get(addr, "/metrics", None).expect("GET /metrics");
    assert_eq!(text.status, 200);
    assert_eq!(text.header("content-type"), Some(PROMETHEUS_TEXT));
    assert!(text
        .body
        .contains("# TYPE vllm:generation_tokens_total counter"));
    assert!(!text.body.contains("# EOF"));

    let prometheus_accept =
        "application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.3,*/*;q=0.2";
    for accept in ["application/openmetrics-text", prometheus_accept] {
        let om = http_get(addr, "/metrics", Some(accept)).expect("GET /metrics");
        assert_eq!(om.status, 200);
        assert_eq!(
            om.header("content-type"),
            Some(OPENMETRICS),
            "Accept: {accept}"
        );
        assert!(om.body.ends_with("# EOF\n"));
        assert!(om.body.contains("# TYPE vllm:generation_tokens counter"));
    }
    let plain = http_get(addr, "/metrics", Some("text/plain")).expect("GET /metrics");
    assert_eq!(plain.header("content-type"), Some(PROMETHEUS_TEXT));

    // What Prometheus 2.42 sends with every scrape: its Accept header, gzip (compression is
    // its default) and its timeout. The library's handler answers gzip-compressed OpenMetrics.
    let prometheus_2_42 = [
        (
            "Accept",
            "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
        ),
        ("Accept-Encoding", "gzip"),
        ("X-Prometheus-Scrape-Timeout-Seconds", "10"),
    ];
    let gzipped = http_request(addr, "GET", "/metrics", &prometheus_2_42).expect("GET /metrics");
    assert_eq!(gzipped.status, 200);
    assert_eq!(gzipped.header("content-encoding"), Some("gzip"));
    assert_eq!(gzipped.header("vary"), Some("Accept, Accept-Encoding"));
    assert_eq!(gzipped.header("content-type"), Some(OPENMETRICS));
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(gzipped.body.as_slice()),
        &mut text,
    )
    .expect("a gzip body");
    assert!(text.ends_with("# EOF\n"));
    assert!(text.contains("# TYPE vllm:generation_tokens counter"));
    assert!(text.contains(r#"metric_handles_metric_handler_requests_total{code="200"}"#));
    let refused = http_request(
        addr,
        "GET",
        "/metrics",
        &[("Accept-Encoding", "identity;q=0")],
    )
    .expect("GET /metrics");
    assert_eq!(refused.status, 406);
    let head = http_request(addr, "HEAD", "/metrics", &[]).expect("HEAD /metrics");
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(head.header("content-type"), Some(PROMETHEUS_TEXT));

    for path in ["/nope", "/", "/metrics/extra"] {
        let r = http_get(addr, path, None).expect("GET");
        assert_eq!(r.status, 404, "GET {path}");
    }
}

#[test]
fn help_lists_every_option_and_bad_input_is_rejected() {
    let out = std::process::Command::new(support::demo::frontend_binary())
        .arg("--help")
        .output()
        .expect("run --help");
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for option in [
        "--engines",
        "--requests",
        "--concurrency",
        "--prompt-tokens",
        "--max-tokens",
        "--seed",
        "--listen",
        "--print-metrics",
        "--speed",
        "--abort-rate",
        "--preemption-rate",
        "--prefix-cache-hit-rate",
        "--spec-decode-tokens",
        "--spec-acceptance-rate",
        "--churn-interval",
        "--show-hidden-metrics-for-version",
        "--report",
    ] {
        assert!(help.contains(option), "--help does not mention {option}");
    }
    for bad in [
        &["--print-metrics"][..],
        &["--abort-rate=2"],
        &["--speed=0"],
        &["--kv-blocks=1", "--max-tokens=500"],
    ] {
        let out = std::process::Command::new(support::demo::frontend_binary())
            .args(bad)
            .output()
            .expect("run frontend");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{bad:?} should be a usage error"
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains("error"));
    }
}

/// Cached prompt tokens by the tier that supplied them: the engine's own prefix cache
/// (`device`), a peer instance (`p2p`, NIXL), the store (`external_unspecified`, Mooncake) and
/// the offloading connector's host memory and disk. Without aborts, errors or preemptions every
/// count is exact: the tiers add up to the cached tokens the requests report, the connector
/// tiers to the connectors' hits, and the bytes the connectors moved to those tokens' KV.
#[test]
fn cached_tokens_are_counted_by_the_tier_that_supplied_them() {
    let s = run(&[
        "--engines=2",
        "--requests=160",
        "--concurrency=4",
        "--prompt-tokens=64..400",
        "--max-tokens=2..6",
        "--speed=100",
        "--prefix-cache-hit-rate=0.8",
        "--abort-rate=0",
        "--preemption-rate=0",
        "--error-rate=0",
        "--stop-rate=0",
        "--churn-interval=0",
        "--sleep-interval=0",
    ]);
    let sum = |name: &str| s.sum(name, &[]);
    assert_eq!(sum("vllm:num_preemptions_total"), 0.0, "no preemptions");
    let tier = |source| {
        s.sum(
            "vllm:prompt_tokens_cached_by_source_total",
            &[("source", source)],
        )
    };
    for source in ["device", "host", "p2p", "disk", "external_unspecified"] {
        assert!(tier(source) > 0.0, "no cached tokens from {source}");
    }
    let local = sum("vllm:prefix_cache_hits_total");
    let external = sum("vllm:external_prefix_cache_hits_total");
    assert_eq!(tier("device"), local);
    assert_eq!(
        tier("host") + tier("p2p") + tier("disk") + tier("external_unspecified"),
        external
    );
    assert_eq!(local + external, sum("vllm:prompt_tokens_cached_total"));
    let by_source = |source| s.sum("vllm:prompt_tokens_by_source_total", &[("source", source)]);
    assert_eq!(by_source("local_cache_hit"), local);
    assert_eq!(by_source("external_kv_transfer"), external);
    assert_eq!(
        by_source("local_compute"),
        sum("vllm:prompt_tokens_total") - local - external
    );
    // The connectors are asked for every prompt token the engine's own cache did not hold.
    assert_eq!(
        sum("vllm:external_prefix_cache_queries_total"),
        sum("vllm:prompt_tokens_total") - local
    );
    // 128 KiB of KV per token: what the peer sent and the store loaded.
    const KV_BYTES_PER_TOKEN: f64 = 131_072.0;
    assert_eq!(
        sum("vllm:nixl_bytes_transferred_sum"),
        tier("p2p") * KV_BYTES_PER_TOKEN
    );
    assert_eq!(
        s.sum(
            "vllm:mooncake_store_operation_bytes_total",
            &[("operation", "load_get")]
        ),
        tier("external_unspecified") * KV_BYTES_PER_TOKEN
    );
}

/// The families an exposition declares, and those of them without a sample.
fn families_without_samples(text: &str) -> (Vec<String>, Vec<String>) {
    let families: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    let samples = parse_exposition(text);
    let empty = families
        .iter()
        .filter(|f| {
            !samples.iter().any(|s| {
                s.name == **f
                    || s.name
                        .strip_prefix(f.as_str())
                        .is_some_and(|rest| rest.starts_with('_'))
            })
        })
        .cloned()
        .collect();
    (families, empty)
}

/// vLLM's Rust frontend's 61 families, its Python server's `vllm:cache_config_info`, the
/// `/metrics` handler's own 3 (`metric_handles_metric_handler_*`) and the process collector's
/// [`PROCESS_FAMILIES`].
const FAMILIES: usize = 65 + PROCESS_FAMILIES.len();

/// The `process_*` families the demo exports, as vLLM's Python server does (on Linux, where
/// `/proc` has every figure).
const PROCESS_FAMILIES: [&str; 7] = [
    "process_cpu_seconds_total",
    "process_open_fds",
    "process_max_fds",
    "process_virtual_memory_bytes",
    "process_resident_memory_bytes",
    "process_start_time_seconds",
    "process_threads",
];

/// A default workload (every behaviour on: connectors, LoRA adapters, sleep cycles, engine
/// churn, HTTP clients) leaves samples in every family the exposition declares ([`FAMILIES`])
/// but one: `vllm:lora_requests_info` shows the adapters of the requests in flight, and at
/// the end of the run none are. vLLM's Rust frontend removes the series then too
/// (`LoraInfoExporter::update` in `rust/src/engine-core-client/src/metrics.rs`), with no
/// empty-label sample and no `max_lora` label (its Python frontend keeps both); the next test
/// sees the family while requests are in flight.
#[test]
fn a_default_workload_fills_every_family() {
    let out = print_metrics(&[
        "--requests=150",
        "--speed=100",
        "--sleep-interval=3",
        "--churn-interval=5",
    ]);
    let text = String::from_utf8(out.stdout).expect("UTF-8 exposition");
    let (families, empty) = families_without_samples(&text);
    assert_eq!(families.len(), FAMILIES, "{families:?}");
    assert_eq!(empty, ["vllm:lora_requests_info"]);
    let samples = parse_exposition(&text);
    for family in PROCESS_FAMILIES {
        assert!(samples.sum(family, &[]) > 0.0, "{family} missing or zero");
    }
    for family in [
        "vllm:nixl_xfer_time_seconds_count",
        "vllm:mooncake_store_operation_total",
        "vllm:sleep_mode_operation_duration_seconds_count",
        "http_requests_total",
    ] {
        assert!(samples.sum(family, &[]) > 0.0, "{family} recorded nothing");
    }
}

/// A default served run, scraped while its clients send requests: once sleep cycles and
/// churn have happened, one scrape shows samples in all 65 families, LoRA info included.
#[test]
fn a_served_run_shows_every_family_while_requests_are_in_flight() {
    let (_server, addr, _lines) = serve_frontend(&[
        "--requests=100000",
        "--speed=100",
        "--sleep-interval=3",
        "--churn-interval=5",
    ]);
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut last = Vec::new();
    while std::time::Instant::now() < deadline {
        let text = http_get(addr, "/metrics", None).expect("scrape").body;
        let (families, empty) = families_without_samples(&text);
        assert_eq!(families.len(), FAMILIES, "{families:?}");
        if empty.is_empty() {
            let lora = parse_exposition(&text)
                .into_iter()
                .find(|s| s.name == "vllm:lora_requests_info")
                .expect("a LoRA info sample");
            let keys: Vec<&str> = lora.labels.keys().map(String::as_str).collect();
            assert_eq!(keys, ["running_lora_adapters", "waiting_lora_adapters"]);
            // The value is the unix time of the last change: after this test was written.
            assert!(lora.value > 1.7e9, "{}", lora.value);
            return;
        }
        last = empty;
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("families still without samples after 60 s: {last:?}");
}

/// A streaming client that disconnects mid-stream: the server aborts the request (the engine
/// frees it, `request_success{finished_reason="abort"}` counts it) and the HTTP layer counted
/// the request once, with the status it answered.
#[test]
fn a_client_that_disconnects_mid_stream_aborts_its_request() {
    use std::io::{Read, Write};
    let mut args = vec!["--engines=1", "--concurrency=0", "--requests=0"];
    args.extend_from_slice(ZERO_RATES);
    let (_guard, addr, _stdout) = serve_frontend(&args);
    let body = r#"{"model":"meta-llama/Llama-3.1-8B-Instruct","prompt":"a b c","max_tokens":5000,"stream":true}"#;
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        stream,
        "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let mut received = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&received).contains("\"text\":\" t") {
        let n = stream.read(&mut chunk).expect("a first token");
        assert!(n > 0, "the server closed the stream early");
        received.extend_from_slice(&chunk[..n]);
    }
    assert!(String::from_utf8_lossy(&received).starts_with("HTTP/1.1 200"));
    drop(stream);

    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let s = parse_exposition(&http_get(addr, "/metrics", None).expect("scrape").body);
        let aborted = s.sum(
            "vllm:request_success_total",
            &[("finished_reason", "abort")],
        );
        if aborted == 1.0 {
            assert_eq!(s.sum("vllm:request_success_total", &[]), 1.0);
            assert_eq!(
                s.sum(
                    "http_requests_total",
                    &[("handler", "/v1/completions"), ("status", "2xx")]
                ),
                1.0
            );
            let generated = s.sum("vllm:generation_tokens_total", &[]);
            assert!((1.0..5000.0).contains(&generated), "{generated} tokens");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the disconnected request was not aborted"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
