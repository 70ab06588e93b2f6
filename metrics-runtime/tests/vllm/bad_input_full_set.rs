//! One test per bad-input row of `docs/reliability.md` for the connector, sleep, LoRA and
//! plug-in families: each feeds one kind of bad input and asserts what a scraper sees.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::support::vllm::*;
use metric_handles::descriptor::MetricKind;
use metric_handles::family::{FamilyError, FamilySpec};
use metric_handles::vllm::connectors::{
    KvConnectorStats, MooncakeOperation, MooncakeRecord, MooncakeStats, MooncakeStatus, NixlStats,
};
use metric_handles::vllm::lora::LoraState;
use metric_handles::vllm::scheduler::{PrefixCacheStats, SchedulerStats};
use metric_handles::vllm::sleep::{EngineSleepState, KvCacheState, SleepOperation, WeightsState};
use metric_handles::{Counter, Gauge, Histogram};
use serde::de::value::{Error as DeError, StrDeserializer};
use serde::de::IntoDeserializer;
use serde::Deserialize;

fn mooncake(records: Vec<MooncakeRecord>) -> MooncakeStats {
    MooncakeStats(BTreeMap::from([(MooncakeOperation::SavePut, records)]))
}

fn record(duration_seconds: f64, num_bytes: u64) -> MooncakeRecord {
    MooncakeRecord {
        duration_seconds,
        num_keys: 1,
        num_bytes,
        status: MooncakeStatus::Ok,
        num_failed_keys: 0,
    }
}

fn connector(nixl: NixlStats, mooncake: MooncakeStats) -> SchedulerStats {
    SchedulerStats {
        kv_connector_stats: Some(KvConnectorStats {
            nixl: vec![nixl],
            mooncake: Some(mooncake),
        }),
        ..SchedulerStats::default()
    }
}

#[test]
fn connector_durations_nan_negative_and_infinite_are_counted_but_never_summed() {
    let (registry, metrics) = setup_default();
    metrics.scheduler().record(
        0,
        &connector(
            NixlStats {
                transfer_duration: vec![-1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.5],
                post_duration: vec![f64::NAN],
                ..NixlStats::default()
            },
            mooncake(vec![record(-2.0, 1), record(f64::NAN, 1)]),
        ),
    );
    let s = scrape(&registry);
    let xfer = s.hist("vllm:nixl_xfer_time_seconds", "0");
    assert_eq!(xfer.count, 5.0, "every sample counts");
    assert_eq!(
        xfer.sum, 0.5,
        "negative records 0; NaN and +Inf stay out of _sum"
    );
    assert_eq!(xfer.le(0.005), 2.0, "-1 and -Inf record 0");
    assert_eq!(xfer.le(5.0), 3.0, "NaN and +Inf only in +Inf");
    assert_eq!(s.hist("vllm:nixl_post_time_seconds", "0").sum, 0.0);
    let labels = [("engine", "0"), ("operation", "save_put"), ("status", "ok")];
    let mooncake_time = s.hist_with("vllm:mooncake_store_operation_time_seconds", &labels);
    assert_eq!((mooncake_time.count, mooncake_time.sum), (2.0, 0.0));
}

#[test]
fn connector_counter_increments_saturate_at_u64_max() {
    let (registry, metrics) = setup_default();
    let stats = connector(
        NixlStats {
            num_failed_transfers: vec![u64::MAX, 5],
            bytes_transferred: vec![u64::MAX],
            ..NixlStats::default()
        },
        mooncake(vec![record(0.1, u64::MAX), record(0.1, u64::MAX)]),
    );
    metrics.scheduler().record(0, &stats);
    metrics.scheduler().record(0, &stats);
    let s = scrape(&registry);
    assert_eq!(
        s.counter("vllm:nixl_num_failed_transfers", "0"),
        u64::MAX as f64
    );
    assert!(s.text.contains(&format!(
        "vllm:nixl_num_failed_transfers_total{{model_name=\"model\",engine=\"0\"}} {}",
        u64::MAX
    )));
    assert!(s.text.contains(&format!(
        "vllm:mooncake_store_operation_bytes_total{{model_name=\"model\",engine=\"0\",operation=\"save_put\",status=\"ok\"}} {}",
        u64::MAX
    )));
    let bytes = s.hist("vllm:nixl_bytes_transferred", "0");
    assert_eq!(bytes.count, 2.0);
    assert_eq!(bytes.le(8589934592.0), 0.0, "in the +Inf bucket");
}

#[test]
fn an_unrecognised_sleep_state_decodes_to_unknown_and_is_not_fully_awake() {
    let weights = |s: &str| WeightsState::deserialize(StrDeserializer::<DeError>::new(s));
    let kv = |s: &str| KvCacheState::deserialize(s.into_deserializer());
    assert_eq!(weights("resident"), Ok(WeightsState::Resident));
    assert_eq!(weights("swapped_to_mars"), Ok(WeightsState::Unknown));
    assert_eq!(kv(""), Ok::<_, DeError>(KvCacheState::Unknown));

    let (registry, metrics) = setup_default();
    metrics.scheduler().record(
        0,
        &SchedulerStats {
            sleep_state: Some(EngineSleepState {
                scheduler_paused: false,
                weights: WeightsState::Unknown,
                kv_cache: KvCacheState::Resident,
            }),
            ..SchedulerStats::default()
        },
    );
    let unknown_weights = [("resource", "weights"), ("state", "unknown")];
    scrape(&registry).engine("0").assert_samples(&[
        ("vllm:engine_fully_awake", &[], 0.0),
        ("vllm:engine_sleep_resource_state", &unknown_weights, 1.0),
    ]);
}

#[test]
fn a_sleep_state_only_update_ignores_every_other_field() {
    let (registry, metrics) = setup_default();
    let mut stats = connector(
        NixlStats {
            num_failed_transfers: vec![3],
            ..NixlStats::default()
        },
        mooncake(vec![record(0.1, 1)]),
    );
    stats.num_running_reqs = 9;
    stats.prefix_cache_stats = PrefixCacheStats {
        queries: 10,
        hits: 5,
        ..PrefixCacheStats::default()
    };
    stats.sleep_state_only = true;
    metrics.scheduler().record(0, &stats);
    // The engine joins (its series exist, at 0), and nothing of the update is recorded.
    assert_eq!(metrics.scheduler().engines(), [0]);
    let s = scrape(&registry);
    let cached_by_source = "vllm:prompt_tokens_cached_by_source_total";
    s.engine("0").assert_samples(&[
        ("vllm:num_requests_running", &[], 0.0),
        ("vllm:prefix_cache_hits_total", &[], 0.0),
        (cached_by_source, &[("source", "device")], 0.0),
        ("vllm:nixl_num_failed_transfers_total", &[], 0.0),
    ]);
    assert!(!s.text.contains("vllm:mooncake_store_operation_total{"));

    // The same update as a normal one records everything.
    stats.sleep_state_only = false;
    metrics.scheduler().record(0, &stats);
    scrape(&registry).engine("0").assert_samples(&[
        ("vllm:num_requests_running", &[], 9.0),
        ("vllm:prefix_cache_hits_total", &[], 5.0),
        ("vllm:nixl_num_failed_transfers_total", &[], 3.0),
    ]);
}

#[test]
fn lora_times_that_are_not_finite_or_negative_record_zero() {
    let (registry, metrics) = setup_default();
    let state = LoraState {
        running: BTreeSet::from(["a".to_owned()]),
        waiting: BTreeSet::new(),
    };
    for time in [f64::NAN, f64::INFINITY, -5.0] {
        metrics.lora().update_at(&state, time);
        assert_eq!(
            scrape(&registry).value("vllm:lora_requests_info", &[]),
            0.0,
            "{time}"
        );
    }
    // An adapter name with a quote, a backslash or a newline is escaped, not cut.
    let odd = LoraState {
        running: BTreeSet::from(["x\"y\\z\nw".to_owned()]),
        waiting: BTreeSet::new(),
    };
    metrics.lora().update_at(&odd, 2.0);
    let text = scrape(&registry).text;
    assert!(
        text.contains(r#"running_lora_adapters="x\"y\\z\nw""#),
        "{text}"
    );
}

#[test]
fn a_plugin_spec_breaking_a_rule_is_refused_and_registers_nothing() {
    let (registry, metrics) = setup_default();
    let plugins = metrics.plugin_families();
    let before = plugins.len();
    let counter = |spec: FamilySpec| plugins.register::<Counter>(&spec).map(|_| ());
    let histogram = |spec: FamilySpec| plugins.register::<Histogram>(&spec).map(|_| ());
    let refused: Vec<Result<(), FamilyError>> = vec![
        counter(FamilySpec::counter("bad name", "h")),
        counter(FamilySpec::counter("bad_total", "h")),
        counter(FamilySpec::counter("bad_empty_help", "")),
        counter(FamilySpec::counter("bad_help", "h.")),
        counter(FamilySpec::counter("bad_unit", "h").unit("Bytes")),
        histogram(FamilySpec::new(
            "bad_no_buckets",
            MetricKind::Histogram,
            "h",
        )),
        counter(FamilySpec::counter("bad_buckets_on_counter", "h").buckets(vec![1.0])),
        histogram(FamilySpec::histogram(
            "bad_buckets",
            "h",
            vec![1.0, f64::NAN],
        )),
        counter(FamilySpec::counter("bad_key", "h").label_keys(["a-b"])),
        counter(FamilySpec::counter("bad_reserved", "h").label_keys(["le"])),
        counter(FamilySpec::counter("bad_repeat", "h").label_keys(["model_name"])),
        counter(FamilySpec::counter("vllm:prompt_tokens", "h")),
        plugins
            .register::<Gauge>(&FamilySpec::counter("bad_kind", "h"))
            .map(|_| ()),
    ];
    for result in &refused {
        assert!(result.is_err(), "{result:?}");
    }
    assert_eq!(plugins.len(), before);
    assert!(!scrape(&registry).text.contains("bad"));
}

#[test]
fn a_sleep_mode_guard_dropped_by_a_panic_still_ends_the_operation() {
    let (registry, metrics) = setup_default();
    let recorder = metrics.sleep_mode().clone();
    let result = catch_unwind(AssertUnwindSafe(|| {
        let _guard = recorder.begin(SleepOperation::Wake);
        panic!("the wake-up failed");
    }));
    assert!(result.is_err());
    let s = scrape(&registry);
    assert_eq!(
        s.value(
            "vllm:sleep_mode_operations_in_flight",
            &[("operation", "wake")]
        ),
        0.0
    );
    assert_eq!(
        s.value(
            "vllm:sleep_mode_operation_duration_seconds_count",
            &[("operation", "wake")]
        ),
        1.0
    );
}
