//! The families of vLLM's Rust frontend beyond the scheduler and request basics: cached tokens
//! by source, preemptions per request, NIXL and Mooncake connectors, sleep state and sleep-mode
//! operations, LoRA adapters, the HTTP declarations, and the whole set exported at once.

use std::collections::{BTreeMap, BTreeSet};

use crate::support::vllm::*;
use metric_handles::descriptor::MetricKind;
use metric_handles::family::{FamilyError, FamilySpec};
use metric_handles::http::HttpMetrics;
use metric_handles::vllm::cache_config::CacheConfig;
use metric_handles::vllm::connectors::{
    KvConnectorStats, MooncakeOperation, MooncakeRecord, MooncakeStats, MooncakeStatus, NixlStats,
};
use metric_handles::vllm::lora::LoraState;
use metric_handles::vllm::request::{
    EventType, FinishReason, PrefillStats, RequestOutput, RequestParams,
};
use metric_handles::vllm::scheduler::{
    iteration_tokens, CachedTokensBySource, PrefixCacheStats, SchedulerStats, SpecDecodingStats,
};
use metric_handles::vllm::sleep::{EngineSleepState, KvCacheState, SleepOperation, WeightsState};
use metric_handles::vllm::{catalogue, EngineLabels};
use metric_handles::Counter;

fn params() -> RequestParams {
    RequestParams {
        arrival_time: 100.0,
        prompt_len: 10,
        max_tokens_param: None,
        n_param: 1,
    }
}

fn nixl() -> NixlStats {
    NixlStats {
        transfer_duration: vec![0.01, 0.02],
        post_duration: vec![0.001, 0.002],
        bytes_transferred: vec![4096, 8192],
        num_descriptors: vec![2, 4],
        num_failed_transfers: vec![1, 2],
        num_failed_notifications: vec![],
        num_kv_expired_reqs: vec![1],
    }
}

fn mooncake(records: &[(MooncakeOperation, MooncakeStatus, u64)]) -> MooncakeStats {
    let mut by_op: BTreeMap<MooncakeOperation, Vec<MooncakeRecord>> = BTreeMap::new();
    for &(operation, status, keys) in records {
        by_op.entry(operation).or_default().push(MooncakeRecord {
            duration_seconds: 0.05,
            num_keys: keys,
            num_bytes: keys * 1024,
            status,
            num_failed_keys: u64::from(status != MooncakeStatus::Ok),
        });
    }
    MooncakeStats(by_op)
}

/// An awake engine's update with one NIXL report and one successful Mooncake `operation` of one
/// key: every connector and sleep family of the engine gets a series.
fn awake_with_connectors(operation: MooncakeOperation) -> SchedulerStats {
    SchedulerStats {
        kv_connector_stats: Some(KvConnectorStats {
            nixl: vec![nixl()],
            mooncake: Some(mooncake(&[(operation, MooncakeStatus::Ok, 1)])),
        }),
        sleep_state: Some(awake()),
        ..Default::default()
    }
}

fn asleep() -> EngineSleepState {
    EngineSleepState {
        scheduler_paused: true,
        weights: WeightsState::Offloaded,
        kv_cache: KvCacheState::Released,
    }
}

fn awake() -> EngineSleepState {
    EngineSleepState {
        scheduler_paused: false,
        weights: WeightsState::Resident,
        kv_cache: KvCacheState::Resident,
    }
}

#[test]
fn cached_tokens_by_source_count_local_hits_as_device_and_connector_hits_by_tier() {
    let (registry, metrics) = setup_default();
    metrics.scheduler().record(
        0,
        &SchedulerStats {
            prefix_cache_stats: PrefixCacheStats {
                queries: 100,
                hits: 40,
                ..Default::default()
            },
            connector_prefix_cache_stats: Some(PrefixCacheStats {
                queries: 60,
                hits: 12,
                hits_by_source: CachedTokensBySource {
                    device: 1,
                    host: 8,
                    p2p: 3,
                    ..Default::default()
                },
                ..Default::default()
            }),
            ..Default::default()
        },
    );
    let s = scrape(&registry);
    let by = |source| s.counter_by("vllm:prompt_tokens_cached_by_source", "0", "source", source);
    assert_eq!(by("device"), 41.0);
    assert_eq!(by("host"), 8.0);
    assert_eq!(by("p2p"), 3.0);
    assert_eq!(
        by("disk"),
        0.0,
        "every source is exported from the first sight"
    );
    assert_eq!(by("external_unspecified"), 0.0);
    assert_eq!(s.counter("vllm:external_prefix_cache_hits", "0"), 12.0);
}

#[test]
fn iteration_tokens_count_computed_prompt_and_generated_tokens_per_non_empty_batch() {
    let (registry, metrics) = setup_default();
    // A prefill of 120 prompt tokens, 20 of them cached, that also yields its first token, and
    // a decode step of another request: 100 computed + 1 + 1 generated.
    let prefill = RequestOutput {
        new_token_ids: vec![7],
        prefill_stats: Some(PrefillStats {
            num_prompt_tokens: 120,
            num_computed_tokens: 100,
            num_cached_tokens: 20,
            num_local_cached_tokens: 20,
            num_external_cached_tokens: 0,
        }),
        ..Default::default()
    };
    let batch = [prefill, tokens(1)];
    assert_eq!(iteration_tokens(&batch), 102);
    metrics.scheduler().record_output_batch(0, &batch);
    metrics.scheduler().record_output_batch(0, &[]);
    // A batch of one token-less output (an abort, say) is not empty: it observes 0.
    metrics
        .scheduler()
        .record_output_batch(0, &[RequestOutput::default()]);
    let h = scrape(&registry).hist("vllm:iteration_tokens_total", "0");
    assert_eq!(h.count, 2.0, "the empty batch records nothing");
    assert_eq!(h.sum, 102.0);
    assert_eq!(h.le(1.0), 1.0);
    assert_eq!(h.le(128.0), 2.0);
}

#[test]
fn each_finished_request_observes_its_own_preemptions_once() {
    let (registry, metrics) = setup_default();
    let mut preempted = metrics.requests().track(0, params());
    preempted.observe_output(
        1.0,
        101.0,
        &with_events(
            tokens(1),
            &[
                (EventType::Preempted, 0.5),
                (EventType::Scheduled, 0.6),
                (EventType::Preempted, 0.7),
            ],
        ),
    );
    preempted.observe_output(2.0, 102.0, &finishing(tokens(1), FinishReason::Stop));
    let mut plain = metrics.requests().track(0, params());
    plain.observe_output(1.0, 101.0, &finishing(tokens(1), FinishReason::Length));
    drop(plain);
    let s = scrape(&registry);
    let h = s.hist("vllm:request_num_preemptions", "0");
    assert_eq!(h.count, 2.0, "one observation per finished request");
    assert_eq!(h.sum, 2.0);
    assert_eq!(h.le(1.0), 1.0, "the plain request observed 0");
    assert_eq!(h.le(2.0), 2.0);
    assert_eq!(s.counter("vllm:num_preemptions", "0"), 2.0);
}

#[test]
fn nixl_telemetry_fills_its_seven_families_and_every_child_connector_counts() {
    let (registry, metrics) = setup_default();
    metrics.scheduler().add_engine(1);
    let before = scrape(&registry);
    assert_eq!(
        before.hist("vllm:nixl_xfer_time_seconds", "1").count,
        0.0,
        "exported at 0 from the engine's first sight, as in vLLM"
    );
    metrics.scheduler().record(
        0,
        &SchedulerStats {
            kv_connector_stats: Some(KvConnectorStats {
                nixl: vec![nixl(), nixl()],
                mooncake: None,
            }),
            ..Default::default()
        },
    );
    let s = scrape(&registry);
    let xfer = s.hist("vllm:nixl_xfer_time_seconds", "0");
    assert_eq!(xfer.count, 4.0);
    assert!((xfer.sum - 0.06).abs() < 1e-12, "{}", xfer.sum);
    assert_eq!(xfer.le(0.01), 2.0);
    assert_eq!(s.hist("vllm:nixl_post_time_seconds", "0").le(0.001), 2.0);
    let bytes = s.hist("vllm:nixl_bytes_transferred", "0");
    assert_eq!((bytes.count, bytes.sum), (4.0, 24576.0));
    assert_eq!(bytes.le(8192.0), 4.0);
    assert_eq!(s.hist("vllm:nixl_num_descriptors", "0").sum, 12.0);
    s.engine("0").assert_samples(&[
        ("vllm:nixl_num_failed_transfers_total", &[], 6.0),
        ("vllm:nixl_num_failed_notifications_total", &[], 0.0),
        ("vllm:nixl_num_kv_expired_reqs_total", &[], 2.0),
    ]);
    assert_eq!(s.counter("vllm:nixl_num_kv_expired_reqs", "1"), 0.0);
}

#[test]
fn mooncake_series_appear_per_operation_and_status_on_first_record() {
    let (registry, metrics) = setup_default();
    metrics.scheduler().add_engine(0);
    assert!(!scrape(&registry)
        .text
        .contains("mooncake_store_operation_total{"));
    let stats = SchedulerStats {
        kv_connector_stats: Some(KvConnectorStats {
            nixl: Vec::new(),
            mooncake: Some(mooncake(&[
                (MooncakeOperation::LoadGet, MooncakeStatus::Ok, 3),
                (MooncakeOperation::LoadGet, MooncakeStatus::Ok, 5),
                (
                    MooncakeOperation::SavePut,
                    MooncakeStatus::PartialFailure,
                    2,
                ),
            ])),
        }),
        ..Default::default()
    };
    metrics.scheduler().record(0, &stats);
    metrics.scheduler().record(0, &stats);
    let s = scrape(&registry);
    let pair = |op, status| [("engine", "0"), ("operation", op), ("status", status)];
    let ok = pair("load_get", "ok");
    let partial = pair("save_put", "partial_failure");
    assert_eq!(s.value("vllm:mooncake_store_operation_total", &ok), 4.0);
    assert_eq!(
        s.value("vllm:mooncake_store_operation_keys_total", &ok),
        16.0
    );
    assert_eq!(
        s.value("vllm:mooncake_store_operation_bytes_total", &ok),
        16.0 * 1024.0
    );
    assert_eq!(
        s.value("vllm:mooncake_store_operation_failed_keys_total", &partial),
        2.0
    );
    assert_eq!(
        s.hist_with("vllm:mooncake_store_operation_time_seconds", &partial)
            .count,
        2.0
    );
    assert_eq!(
        s.find("vllm:mooncake_store_operation_total", &[]).len(),
        2,
        "only the pairs seen have series"
    );
    assert!(s.text.contains(
        r#"vllm:mooncake_store_operation_total{model_name="model",engine="0",operation="load_get",status="ok"} 4"#
    ));
}

#[test]
fn a_sleep_snapshot_sets_one_state_per_resource_and_a_snapshot_only_update_touches_nothing_else() {
    let (registry, metrics) = setup_default();
    metrics.scheduler().record(
        0,
        &SchedulerStats {
            num_running_reqs: 7,
            ..Default::default()
        },
    );
    assert!(
        !scrape(&registry).text.contains("vllm:engine_fully_awake{"),
        "no snapshot yet: the engine is not claimed asleep or awake"
    );
    metrics.scheduler().record(
        0,
        &SchedulerStats {
            num_running_reqs: 0,
            sleep_state: Some(asleep()),
            sleep_state_only: true,
            ..Default::default()
        },
    );
    let s = scrape(&registry);
    assert_eq!(s.gauge("vllm:num_requests_running", "0"), 7.0, "untouched");
    let state = |resource, state| {
        s.value(
            "vllm:engine_sleep_resource_state",
            &[("engine", "0"), ("resource", resource), ("state", state)],
        )
    };
    assert_eq!(state("scheduler", "paused"), 1.0);
    assert_eq!(state("scheduler", "running"), 0.0);
    assert_eq!(state("weights", "offloaded"), 1.0);
    for other in ["resident", "discarded", "unknown"] {
        assert_eq!(state("weights", other), 0.0, "{other}");
    }
    assert_eq!(state("kv_cache", "released"), 1.0);
    assert_eq!(s.find("vllm:engine_sleep_resource_state", &[]).len(), 9);
    assert_eq!(s.gauge("vllm:engine_fully_awake", "0"), 0.0);

    metrics.scheduler().record(
        0,
        &SchedulerStats {
            num_running_reqs: 3,
            sleep_state: Some(awake()),
            ..Default::default()
        },
    );
    scrape(&registry).engine("0").assert_samples(&[
        ("vllm:engine_fully_awake", &[], 1.0),
        ("vllm:num_requests_running", &[], 3.0),
    ]);
}

/// vLLM's frontend dispatches exactly three sleep-mode operations (its Python `Operation`
/// literal and the test of `rust/src/metrics/src/api_server.rs`), and both families show all
/// three from the start, with no `model_name`/`engine` labels and no per-outcome counter (an
/// earlier vLLM revision had `vllm:rl_sleep_mode_operations_total{operation,status}`; the
/// matched one does not).
#[test]
fn sleep_mode_exports_vllms_three_operations_from_the_start() {
    let (registry, _metrics) = setup_default();
    let s = scrape(&registry);
    for family in [
        "vllm:sleep_mode_operations_in_flight",
        "vllm:sleep_mode_operation_duration_seconds_count",
    ] {
        let series = s.find(family, &[]);
        let keys: BTreeSet<Vec<&str>> = series
            .iter()
            .map(|(labels, _)| labels.iter().map(|(k, _)| k.as_str()).collect())
            .collect();
        assert_eq!(keys, BTreeSet::from([vec!["operation"]]), "{family}");
        let operations: BTreeSet<&str> = series
            .iter()
            .flat_map(|(labels, _)| labels.iter().map(|(_, v)| v.as_str()))
            .collect();
        assert_eq!(
            operations,
            BTreeSet::from(["release_kv_cache_memory", "sleep", "wake"]),
            "{family}"
        );
        assert!(series.iter().all(|(_, value)| *value == 0.0), "{family}");
    }
    assert!(!s.text.contains("sleep_mode_operations_total"));
}

#[test]
fn sleep_mode_operations_are_timed_and_counted_in_flight_until_their_guard_drops() {
    let (registry, metrics) = setup_default();
    let first = metrics.sleep_mode().begin(SleepOperation::Sleep);
    let second = metrics.sleep_mode().begin(SleepOperation::Sleep);
    let in_flight =
        |s: &Scrape, op| s.value("vllm:sleep_mode_operations_in_flight", &[("operation", op)]);
    let s = scrape(&registry);
    assert_eq!(in_flight(&s, "sleep"), 2.0);
    assert_eq!(in_flight(&s, "wake"), 0.0);
    drop(first);
    drop(second);
    drop(
        metrics
            .sleep_mode()
            .begin(SleepOperation::ReleaseKvCacheMemory),
    );
    let s = scrape(&registry);
    assert_eq!(in_flight(&s, "sleep"), 0.0);
    let count = |op| {
        s.value(
            "vllm:sleep_mode_operation_duration_seconds_count",
            &[("operation", op)],
        )
    };
    assert_eq!(count("sleep"), 2.0);
    assert_eq!(count("release_kv_cache_memory"), 1.0);
    assert_eq!(count("wake"), 0.0);
    assert!(
        s.text
            .contains(r#"vllm:sleep_mode_operations_in_flight{operation="sleep"} 0"#),
        "no model_name/engine labels, as in vLLM"
    );
}

#[test]
fn lora_info_keeps_one_series_for_the_current_adapters_and_none_when_idle() {
    let (registry, metrics) = setup_default();
    let names = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<BTreeSet<_>>();
    let lora = metrics.lora();
    lora.update_at(&LoraState::default(), 1.0);
    assert!(!scrape(&registry).has("vllm:lora_requests_info", &[]));
    lora.update_at(
        &LoraState {
            running: names(&["b", "a"]),
            waiting: names(&["c"]),
        },
        1700000000.5,
    );
    let s = scrape(&registry);
    assert_eq!(
        s.value(
            "vllm:lora_requests_info",
            &[
                ("running_lora_adapters", "a,b"),
                ("waiting_lora_adapters", "c")
            ]
        ),
        1700000000.5
    );
    lora.update_at(
        &LoraState {
            running: names(&["d"]),
            waiting: BTreeSet::new(),
        },
        1700000001.0,
    );
    let s = scrape(&registry);
    assert_eq!(
        s.find("vllm:lora_requests_info", &[]).len(),
        1,
        "{}",
        s.text
    );
    assert!(s.text.contains(
        "vllm:lora_requests_info{running_lora_adapters=\"d\",waiting_lora_adapters=\"\"} 1700000001"
    ));
    lora.update(&LoraState::default());
    assert!(!scrape(&registry).has("vllm:lora_requests_info", &[]));
}

#[test]
fn removing_an_engine_removes_its_connector_and_sleep_series() {
    let (registry, metrics) = setup_default();
    for engine in [0, 1] {
        metrics.scheduler().record(
            engine,
            &awake_with_connectors(MooncakeOperation::SaveExists),
        );
    }
    assert!(metrics.scheduler().remove_engine(0));
    let s = scrape(&registry);
    assert!(!s.text.contains(r#"engine="0""#), "{}", s.text);
    assert_eq!(s.counter("vllm:nixl_num_kv_expired_reqs", "1"), 1.0);
    assert_eq!(s.gauge("vllm:engine_fully_awake", "1"), 1.0);
    // The engine comes back with fresh series.
    metrics.scheduler().record(0, &SchedulerStats::default());
    let s = scrape(&registry);
    assert_eq!(s.counter("vllm:nixl_num_kv_expired_reqs", "0"), 0.0);
    assert!(!s.has("vllm:engine_fully_awake", &[("engine", "0")]));
}

#[test]
fn a_third_party_connector_registers_its_families_beside_vllms() {
    let (registry, metrics) = setup_default();
    let plugins = metrics.plugin_families();
    let taken = |name| match plugins.register::<Counter>(&FamilySpec::counter(name, "taken")) {
        Err(FamilyError::NameTaken(error)) => error,
        other => panic!("{name}: {other:?}"),
    };
    let error = taken("vllm:num_requests_running");
    assert_eq!(error.clashes_on(), Some("vllm:num_requests_running"));
    assert_eq!(
        error.existing().map(|e| e.registered_by.as_str()),
        Some("`SchedulerMetrics.num_requests_running`")
    );
    let error = taken("vllm:nixl_num_failed_transfers");
    assert_eq!(
        error.existing().map(|e| e.metric_type),
        Some("counter"),
        "{error}"
    );
    let hits = plugins
        .register::<Counter>(
            &FamilySpec::counter("acme:blob_hits", "Blocks served by the blob cache")
                .label_keys(["tier"]),
        )
        .expect("a valid spec");
    let labels = EngineLabels {
        model_name: "model".into(),
        engine: 2,
    };
    hits.get_or_create(&labels, &["disk"])
        .expect("one value")
        .inc_by(5);
    let s = scrape(&registry);
    assert_eq!(
        s.value("acme:blob_hits_total", &[("engine", "2"), ("tier", "disk")]),
        5.0
    );
    metrics.scheduler().add_engine(2);
    metrics.scheduler().remove_engine(2);
    assert!(
        !scrape(&registry).text.contains("acme:blob_hits_total{"),
        "a removed engine's plug-in series go with it"
    );
}

#[test]
fn help_texts_are_the_rust_frontends_where_it_differs_from_python() {
    let (registry, _metrics) = setup_default();
    let text = scrape(&registry).text;
    for help in [
        "# HELP vllm:iteration_tokens_total Histogram of computed prompt and generated tokens per nonempty engine output batch.",
        "# HELP vllm:num_preemptions_total Cumulative number of preemption events.",
        "# HELP vllm:prompt_tokens_total Prompt tokens summed over sequences, including prefix-cache hits; each parallel-sampling child counts its prompt separately. Equals the sum of vllm:prompt_tokens_by_source_total.",
        "# HELP vllm:prompt_tokens_cached_total Number of prompt tokens with prefix cache hits.",
        "# HELP vllm:request_prompt_tokens Prompt length of each finished sequence; each parallel-sampling child is one observation.",
        "# HELP vllm:lora_requests_info Running stats on lora requests.",
        "# HELP vllm:sleep_mode_operation_duration_seconds Duration of one sleep-mode operation.",
        "# HELP vllm:request_num_preemptions Histogram of the number of times a request was preempted.",
    ] {
        assert!(text.contains(help), "missing {help:?}");
    }
}

/// Every family of the catalogue, exported with samples once each part has recorded: the 61
/// families of vLLM's Rust frontend, with their types.
#[test]
fn every_catalogued_family_is_exported_with_its_type_and_samples() {
    let (mut registry, metrics) = setup_default();
    let http = HttpMetrics::register(&mut registry);
    http.requests
        .get_or_create(&metric_handles::http::HttpRequestLabels {
            method: "POST".into(),
            status: metric_handles::http::StatusClass::from_code(200),
            handler: "/v1/completions".into(),
        })
        .inc();
    http.duration
        .get_or_create(&metric_handles::http::HttpHandlerLabels {
            method: "POST".into(),
            handler: "/v1/completions".into(),
        })
        .observe(0.2);
    http.duration_highr.observe(0.2);
    metrics.scheduler().record(
        0,
        &SchedulerStats {
            spec_decoding_stats: Some(SpecDecodingStats {
                num_accepted_tokens_per_pos: vec![1],
                ..Default::default()
            }),
            ..awake_with_connectors(MooncakeOperation::LoadGet)
        },
    );
    metrics.lora().update_at(
        &LoraState {
            running: ["a".to_owned()].into(),
            waiting: BTreeSet::new(),
        },
        1.0,
    );
    metrics.requests().track(0, params()).abort(101.0);
    metrics.cache_config().set(0, &CacheConfig::default());
    let s = scrape(&registry);
    let mut families = 0;
    let catalogue = catalogue();
    for d in catalogue.descriptors() {
        families += 1;
        let exposed = d.exposed_name();
        // The Prometheus text has no info type: an info family is a gauge there.
        let type_word = match d.kind {
            MetricKind::Info => "gauge",
            kind => kind.as_str(),
        };
        let type_line = format!("# TYPE {exposed} {type_word}");
        assert!(s.text.contains(&type_line), "missing {type_line:?}");
        let sample = match d.kind {
            MetricKind::Histogram => format!("{exposed}_count"),
            _ => exposed.clone(),
        };
        assert!(s.has(&sample, &[]), "no sample of {sample}");
        if let Some(buckets) = &d.buckets {
            let bounds = buckets.bounds();
            let le = s
                .find(&format!("{exposed}_bucket"), &[])
                .iter()
                .filter(|(labels, _)| labels.iter().any(|(k, v)| k == "le" && v == "+Inf"))
                .count();
            assert!(le > 0, "{exposed}: no +Inf bucket");
            let series_buckets = s.find(&format!("{exposed}_bucket"), &[]).len() / le;
            assert_eq!(series_buckets, bounds.len() + 1, "{exposed}: bucket count");
        }
    }
    assert_eq!(
        families, 62,
        "vLLM's Rust frontend registers 61 families, and the Python server's cache_config_info"
    );
}
