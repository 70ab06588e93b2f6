//! The exported metric set against vLLM's list, written here as data independently of the
//! declarations: exact names, types, label keys, enum label values and bucket bounds, and
//! nothing else exported.

use std::collections::BTreeMap;

use crate::support::exposition::encode_openmetrics;
use crate::support::vllm::*;
use metric_handles::descriptor::MetricKind;
use metric_handles::vllm::request::RequestMetrics;
use metric_handles::vllm::scheduler::SchedulerMetrics;

const TTFT: &[f64] = &[
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
    20.0, 40.0, 80.0, 160.0, 640.0, 2560.0,
];
const ITL: &[f64] = &[
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
    40.0, 80.0,
];
const LATENCY: &[f64] = &[
    0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
    480.0, 960.0, 1920.0, 7680.0,
];
const TOKENS: &[f64] = &[
    1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0, 10000.0, 20000.0,
    50000.0, 100000.0, 131072.0,
];
const PARAMS_N: &[f64] = &[1.0, 2.0, 5.0, 10.0, 20.0];
const ITERATION: &[f64] = &[
    1.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0,
];
const KV_RESIDENCY: &[f64] = &[
    0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0,
    120.0, 300.0, 600.0, 1200.0, 1800.0,
];

/// The connector histograms' bounds in vLLM's Rust frontend (`rust/src/metrics/src/scheduler.rs`,
/// which registers the families the Rust frontend exports).
const MOONCAKE_OPERATION_TIME: &[f64] = &[
    0.001, 0.005, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0,
];
const NIXL_XFER_TIME: &[f64] = &[
    0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 5.0,
];
const NIXL_POST_TIME: &[f64] = &[
    0.001, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 5.0,
];

enum Kind {
    Counter,
    Gauge,
    Histogram(&'static [f64]),
}

/// One family of the spec: its name, kind, and the extra label key with every value it is
/// exported with.
struct Expected {
    name: &'static str,
    kind: Kind,
    axis: Option<(&'static str, &'static [&'static str])>,
}

fn counter(name: &'static str) -> Expected {
    Expected {
        name,
        kind: Kind::Counter,
        axis: None,
    }
}

fn gauge(name: &'static str) -> Expected {
    Expected {
        name,
        kind: Kind::Gauge,
        axis: None,
    }
}

fn histogram(name: &'static str, bounds: &'static [f64]) -> Expected {
    Expected {
        name,
        kind: Kind::Histogram(bounds),
        axis: None,
    }
}

impl Expected {
    /// The family with one more label, `key`, exported with each of `values` from the start.
    fn by(self, key: &'static str, values: &'static [&'static str]) -> Self {
        Self {
            axis: Some((key, values)),
            ..self
        }
    }
}

const PREEMPTIONS: &[f64] = &[1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 20.0];

const REASONS: &[&str] = &["stop", "length", "abort", "error", "repetition"];
const SOURCES: &[&str] = &["local_compute", "local_cache_hit", "external_kv_transfer"];
const WAITING: &[&str] = &["capacity", "deferred"];
const CACHE_TIERS: &[&str] = &["device", "host", "p2p", "disk", "external_unspecified"];

fn scheduler_spec() -> Vec<Expected> {
    vec![
        gauge("vllm:num_requests_running"),
        gauge("vllm:num_requests_waiting"),
        gauge("vllm:num_requests_waiting_by_reason").by("reason", WAITING),
        gauge("vllm:kv_cache_usage_perc"),
        counter("vllm:prefix_cache_queries"),
        counter("vllm:prefix_cache_hits"),
        counter("vllm:external_prefix_cache_queries"),
        counter("vllm:external_prefix_cache_hits"),
        counter("vllm:prompt_tokens_cached_by_source").by("source", CACHE_TIERS),
        counter("vllm:spec_decode_num_drafts"),
        counter("vllm:spec_decode_num_draft_tokens"),
        counter("vllm:spec_decode_num_accepted_tokens"),
        counter("vllm:spec_decode_num_accepted_tokens_per_pos").by("position", &["0", "1", "2"]),
        counter("vllm:estimated_flops_per_gpu"),
        counter("vllm:estimated_read_bytes_per_gpu"),
        counter("vllm:estimated_write_bytes_per_gpu"),
        histogram("vllm:kv_block_lifetime_seconds", KV_RESIDENCY),
        histogram("vllm:kv_block_idle_before_evict_seconds", KV_RESIDENCY),
        histogram("vllm:kv_block_reuse_gap_seconds", KV_RESIDENCY),
        histogram("vllm:iteration_tokens_total", ITERATION),
    ]
}

fn request_spec() -> Vec<Expected> {
    vec![
        counter("vllm:request_success").by("finished_reason", REASONS),
        histogram("vllm:request_prompt_tokens", TOKENS),
        histogram("vllm:request_generation_tokens", TOKENS),
        histogram("vllm:request_max_num_generation_tokens", TOKENS),
        histogram("vllm:request_params_max_tokens", TOKENS),
        histogram("vllm:request_params_n", PARAMS_N),
        histogram("vllm:request_prefill_kv_computed_tokens", TOKENS),
        histogram("vllm:e2e_request_latency_seconds", LATENCY),
        histogram("vllm:request_queue_time_seconds", LATENCY),
        histogram("vllm:request_prefill_time_seconds", LATENCY),
        histogram("vllm:request_decode_time_seconds", LATENCY),
        histogram("vllm:request_inference_time_seconds", LATENCY),
        histogram("vllm:request_time_per_output_token_seconds", ITL),
        histogram("vllm:time_to_first_token_seconds", TTFT),
        histogram("vllm:inter_token_latency_seconds", ITL),
        counter("vllm:num_preemptions"),
        counter("vllm:prompt_tokens"),
        counter("vllm:prompt_tokens_by_source").by("source", SOURCES),
        counter("vllm:prompt_tokens_cached"),
        counter("vllm:generation_tokens"),
        histogram("vllm:request_num_preemptions", PREEMPTIONS),
    ]
}

/// The families without the per-engine shape above, registered by `VllmMetrics` too: (exposed
/// name in `# TYPE`, type). Their samples and buckets are checked in `full_set.rs`.
const OTHER_FAMILIES: &[(&str, &str)] = &[
    ("vllm:nixl_xfer_time_seconds", "histogram"),
    ("vllm:nixl_post_time_seconds", "histogram"),
    ("vllm:nixl_bytes_transferred", "histogram"),
    ("vllm:nixl_num_descriptors", "histogram"),
    ("vllm:nixl_num_failed_transfers", "counter"),
    ("vllm:nixl_num_failed_notifications", "counter"),
    ("vllm:nixl_num_kv_expired_reqs", "counter"),
    ("vllm:mooncake_store_operation_time_seconds", "histogram"),
    ("vllm:mooncake_store_operation", "counter"),
    ("vllm:mooncake_store_operation_keys", "counter"),
    ("vllm:mooncake_store_operation_bytes", "counter"),
    ("vllm:mooncake_store_operation_failed_keys", "counter"),
    ("vllm:engine_sleep_resource_state", "gauge"),
    ("vllm:engine_fully_awake", "gauge"),
    ("vllm:sleep_mode_operation_duration_seconds", "histogram"),
    ("vllm:sleep_mode_operations_in_flight", "gauge"),
    ("vllm:lora_requests_info", "gauge"),
    // vLLM's Python server's; the Prometheus text names it `vllm:cache_config_info`.
    ("vllm:cache_config", "info"),
];

/// `# TYPE` lines of the OpenMetrics exposition: name → type.
fn types(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .map(|l| {
            let (name, ty) = l.split_once(' ').expect("name and type");
            (name.to_owned(), ty.to_owned())
        })
        .collect()
}

#[test]
fn the_exposition_holds_exactly_the_spec_metrics() {
    let (registry, metrics) = setup(with_spec_tokens(3));
    metrics.scheduler().add_engine(0);
    let openmetrics = encode_openmetrics(&registry);
    let s = scrape(&registry);

    let spec: Vec<Expected> = scheduler_spec().into_iter().chain(request_spec()).collect();
    assert_eq!(spec.len(), 41);
    let expected_types: BTreeMap<String, String> = spec
        .iter()
        .map(|Expected { name, kind, .. }| {
            let ty = match kind {
                Kind::Counter => "counter",
                Kind::Gauge => "gauge",
                Kind::Histogram(_) => "histogram",
            };
            ((*name).to_owned(), ty.to_owned())
        })
        .chain(
            OTHER_FAMILIES
                .iter()
                .map(|(name, ty)| ((*name).to_owned(), (*ty).to_owned())),
        )
        .collect();
    // With the three HTTP families `HttpMetrics` registers: vLLM's Rust frontend's 61, and
    // the Python server's `vllm:cache_config_info`.
    assert_eq!(expected_types.len() + 3, 62);
    assert_eq!(types(&openmetrics), expected_types, "names and types");

    for Expected { name, kind, axis } in &spec {
        let sample = match kind {
            Kind::Counter => format!("{name}_total"),
            Kind::Gauge => (*name).to_owned(),
            Kind::Histogram(_) => format!("{name}_bucket"),
        };
        let found = s.find(&sample, &[]);
        assert!(!found.is_empty(), "{sample} has no sample");
        let mut axis_values = Vec::new();
        let mut les = Vec::new();
        for (labels, _) in &found {
            let keys: Vec<&str> = labels.iter().map(|(k, _)| k.as_str()).collect();
            let mut expected_keys = vec!["model_name", "engine"];
            if let Some((key, _)) = axis {
                expected_keys.push(key);
            }
            if matches!(kind, Kind::Histogram(_)) {
                expected_keys.push("le");
                les.push(labels[2].1.clone());
            }
            assert_eq!(keys, expected_keys, "{sample}: label keys in order");
            assert_eq!((labels[0].1.as_str(), labels[1].1.as_str()), ("model", "0"));
            if axis.is_some() {
                axis_values.push(labels[2].1.clone());
            }
        }
        if let Some((_, values)) = axis {
            assert_eq!(
                axis_values, *values,
                "{sample}: every axis value, exported from the start"
            );
        }
        if let Kind::Histogram(bounds) = kind {
            let parsed: Vec<f64> = les
                .iter()
                .map(|le| {
                    if le == "+Inf" {
                        f64::INFINITY
                    } else {
                        le.parse().expect("le")
                    }
                })
                .collect();
            let mut expected = bounds.to_vec();
            expected.push(f64::INFINITY);
            assert_eq!(parsed, expected, "{name}: buckets");
        }
    }

    // Help texts: prometheus-client adds the final `.`; a help ending in `.` would show `..`.
    assert!(!openmetrics.contains(".."), "a help text ends in '.'");
    assert!(!openmetrics.contains("_total_total"));
}

#[test]
fn the_descriptor_tables_match_the_spec() {
    for (descriptors, spec) in [
        (SchedulerMetrics::DESCRIPTORS, scheduler_spec()),
        (RequestMetrics::DESCRIPTORS, request_spec()),
    ] {
        let mut names: Vec<&str> = descriptors.iter().map(|d| d.name).collect();
        let mut expected: Vec<&str> = spec.iter().map(|e| e.name).collect();
        names.sort_unstable();
        expected.sort_unstable();
        assert_eq!(names, expected);
        for Expected { name, kind, axis } in &spec {
            let d = descriptors
                .iter()
                .find(|d| d.name == *name)
                .expect("declared");
            assert_eq!(d.common_labels, ["model_name", "engine"], "{name}");
            match kind {
                Kind::Counter => assert_eq!(d.kind, MetricKind::Counter, "{name}"),
                Kind::Gauge => assert_eq!(d.kind, MetricKind::Gauge, "{name}"),
                Kind::Histogram(bounds) => {
                    assert_eq!(d.kind, MetricKind::Histogram, "{name}");
                    assert_eq!(
                        d.buckets.map(|b| b.bounds()).as_deref(),
                        Some(*bounds),
                        "{name}"
                    );
                }
            }
            let keys = d.label_keys();
            assert_eq!(keys.get(2).copied(), axis.map(|(k, _)| k), "{name}");
            assert!(!d.help.ends_with('.'), "{name}");
            assert_eq!(d.unit, None, "{name}: units would change the exposed name");
        }
    }
}

#[test]
fn the_deprecated_aliases_are_declared_with_vllms_versions() {
    let aliases: Vec<(&str, &str, &str)> = SchedulerMetrics::DESCRIPTORS
        .iter()
        .chain(RequestMetrics::DESCRIPTORS)
        .flat_map(|d| {
            d.aliases
                .iter()
                .map(move |a| (d.name, a.name, a.deprecated_in))
        })
        .collect();
    assert_eq!(
        aliases,
        [
            (
                "vllm:kv_cache_usage_perc",
                "vllm:gpu_cache_usage_perc",
                "0.10"
            ),
            (
                "vllm:prefix_cache_queries",
                "vllm:gpu_prefix_cache_queries",
                "0.10"
            ),
            (
                "vllm:prefix_cache_hits",
                "vllm:gpu_prefix_cache_hits",
                "0.10"
            ),
            (
                "vllm:inter_token_latency_seconds",
                "vllm:time_per_output_token_seconds",
                "0.11"
            ),
        ]
    );
}

/// The `le` bounds (without `+Inf`) of histogram `name`'s series with `labels`, as exported.
fn exported_bounds(s: &Scrape, name: &str, labels: &[(&str, &str)]) -> Vec<f64> {
    s.find(&format!("{name}_bucket"), labels)
        .iter()
        .filter_map(|(labels, _)| {
            let le = &labels.iter().find(|(k, _)| k == "le").expect("le").1;
            (le != "+Inf").then(|| le.parse().expect("a bound"))
        })
        .collect()
}

#[test]
fn connector_histograms_have_the_rust_frontends_buckets() {
    use metric_handles::vllm::connectors::{
        KvConnectorStats, MooncakeOperation, MooncakeRecord, MooncakeStats, MooncakeStatus,
    };
    use metric_handles::vllm::scheduler::SchedulerStats;

    let (registry, metrics) = setup_default();
    let record = MooncakeRecord {
        duration_seconds: 0.002,
        num_keys: 1,
        num_bytes: 64,
        status: MooncakeStatus::Ok,
        num_failed_keys: 0,
    };
    let stats = SchedulerStats {
        kv_connector_stats: Some(KvConnectorStats {
            nixl: Vec::new(),
            mooncake: Some(MooncakeStats(BTreeMap::from([(
                MooncakeOperation::LoadGet,
                vec![record],
            )]))),
        }),
        ..SchedulerStats::default()
    };
    metrics.scheduler().record(0, &stats);
    let s = scrape(&registry);
    let engine = [("engine", "0")];
    for (name, bounds) in [
        (
            "vllm:mooncake_store_operation_time_seconds",
            MOONCAKE_OPERATION_TIME,
        ),
        ("vllm:nixl_xfer_time_seconds", NIXL_XFER_TIME),
        ("vllm:nixl_post_time_seconds", NIXL_POST_TIME),
    ] {
        assert_eq!(exported_bounds(&s, name, &engine), bounds, "{name}");
    }
    // 2 ms falls in vLLM's (0.001, 0.005] bucket.
    let time = s.hist_with("vllm:mooncake_store_operation_time_seconds", &engine);
    assert_eq!((time.le(0.001), time.le(0.005)), (0.0, 1.0));
}
