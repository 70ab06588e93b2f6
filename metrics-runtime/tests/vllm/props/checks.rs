//! The checks on one scrape: every histogram well formed, counters never decreasing (unless
//! their engine left), and every series the model knows equal to it.

use std::collections::{BTreeMap, HashMap};

use metric_handles::vllm::sleep::SleepOperation;
use metric_handles::{LabelEnum, Registry};

use super::model::{add, sleep_operation, LoraSeries, Model, Totals, REASONS};
use crate::support::exposition::{encode_text, parse, Sample};

/// A series: its name and labels.
type SeriesKey = (String, Vec<(String, String)>);

/// Counter samples by series, for the monotonicity check.
pub(super) type Counters = HashMap<SeriesKey, u64>;

fn engine_of(sample: &Sample) -> Option<u32> {
    sample.label("engine").and_then(|e| e.parse().ok())
}

fn check_histograms(samples: &[Sample]) {
    // (base name, labels without `le`) → cumulative buckets in order.
    let mut histograms: BTreeMap<SeriesKey, Vec<(f64, u64)>> = BTreeMap::new();
    let mut scalars: HashMap<SeriesKey, &str> = HashMap::new();
    for s in samples {
        if let Some(base) = s.name.strip_suffix("_bucket") {
            let le = s.label("le").expect("a bucket has le");
            let le = if le == "+Inf" {
                f64::INFINITY
            } else {
                le.parse().expect("numeric le")
            };
            let labels = s
                .labels
                .iter()
                .filter(|(k, _)| k != "le")
                .cloned()
                .collect();
            histograms
                .entry((base.to_owned(), labels))
                .or_default()
                .push((le, s.value.parse().expect("bucket counts are integers")));
        } else {
            scalars.insert((s.name.clone(), s.labels.clone()), &s.value);
        }
    }
    for ((base, labels), buckets) in &histograms {
        let what = format!("{base}{labels:?}");
        let count: u64 = scalars[&(format!("{base}_count"), labels.clone())]
            .parse()
            .expect("integer count");
        let sum: f64 = scalars[&(format!("{base}_sum"), labels.clone())]
            .parse()
            .expect("numeric sum");
        assert!(sum.is_finite(), "{what}: _sum {sum}");
        assert_eq!(buckets.last().map(|b| b.0), Some(f64::INFINITY), "{what}");
        let mut previous = (f64::NEG_INFINITY, 0u64);
        let mut non_cumulative_total = 0u64;
        for &(le, cumulative) in buckets {
            assert!(le > previous.0, "{what}: bounds increase");
            assert!(cumulative >= previous.1, "{what}: buckets are cumulative");
            non_cumulative_total += cumulative - previous.1;
            previous = (le, cumulative);
        }
        assert_eq!(previous.1, count, "{what}: +Inf bucket == _count");
        assert_eq!(
            non_cumulative_total, count,
            "{what}: sum of buckets == _count"
        );
    }
}

/// One scrape against the model: every histogram well formed, the families without engine
/// labels, counters never decreasing (unless their engine left since the previous scrape,
/// whose counters `previous` holds), and each present engine's series equal to its totals.
pub(super) fn check(registry: &Registry, model: &mut Model, previous: &mut Counters) {
    let text = encode_text(registry);
    let samples = parse(&text);
    check_histograms(&samples);
    check_frontend_families(&samples, model);
    let left = std::mem::take(&mut model.left);
    *previous = check_counters_never_decrease(&samples, previous, &left);

    let seen = engine_totals(&samples);
    let mut engines: Vec<u32> = model.present.keys().copied().collect();
    engines.sort_unstable();
    let mut exported: Vec<u32> = seen.keys().copied().collect();
    exported.sort_unstable();
    assert_eq!(
        exported, engines,
        "exactly the present engines are exported"
    );
    for (engine, generation) in model.present.clone() {
        let expected = model.totals(engine, generation).clone();
        assert_eq!(seen[&engine], expected, "engine {engine}");
    }
}

/// Every counter sample of an engine, by series, after checking that none is below its value
/// in `previous` unless its engine `left` in between.
fn check_counters_never_decrease(
    samples: &[Sample],
    previous: &Counters,
    left: &[u32],
) -> Counters {
    let mut counters = Counters::new();
    for s in samples {
        let Some(engine) = engine_of(s) else { continue };
        if !s.name.ends_with("_total") {
            continue;
        }
        let value: u64 = s.value.parse().expect("integer counter");
        let key = (s.name.clone(), s.labels.clone());
        if let Some(&before) = previous.get(&key) {
            if !left.contains(&engine) {
                assert!(value >= before, "{key:?} decreased: {before} -> {value}");
            }
        }
        counters.insert(key, value);
    }
    counters
}

/// What the scrape shows of each engine, in the model's terms (and `kv_cache_usage` in 0..1).
fn engine_totals(samples: &[Sample]) -> HashMap<u32, Totals> {
    let mut seen: HashMap<u32, Totals> = HashMap::new();
    for s in samples {
        let Some(engine) = engine_of(s) else { continue };
        let number = || -> u64 {
            let value: f64 = s.value.parse().expect("numeric sample");
            value as u64
        };
        let mooncake_key = || {
            (
                s.label("operation").expect("operation").to_owned(),
                s.label("status").expect("status").to_owned(),
            )
        };
        match s.name.as_str() {
            "vllm:nixl_xfer_time_seconds_count"
            | "vllm:nixl_post_time_seconds_count"
            | "vllm:nixl_bytes_transferred_count"
            | "vllm:nixl_num_descriptors_count" => {
                add(&mut seen.entry(engine).or_default().nixl, &s.name, number());
            }
            "vllm:mooncake_store_operation_time_seconds_count" => {
                let t = seen.entry(engine).or_default();
                t.mooncake.entry(mooncake_key()).or_default().timed = number();
            }
            "vllm:request_num_preemptions_count" => {
                seen.entry(engine).or_default().finished_preemptions.0 = number();
            }
            "vllm:request_num_preemptions_sum" => {
                seen.entry(engine).or_default().finished_preemptions.1 = number();
            }
            "vllm:engine_sleep_resource_state" => {
                let key = (
                    s.label("resource").expect("resource").to_owned(),
                    s.label("state").expect("state").to_owned(),
                );
                seen.entry(engine)
                    .or_default()
                    .sleep_state
                    .insert(key, number());
            }
            "vllm:engine_fully_awake" => {
                seen.entry(engine).or_default().fully_awake = Some(number());
            }
            _ => {}
        }
        if s.name.ends_with("_total") {
            let value: u64 = s.value.parse().expect("integer counter");
            let t = seen.entry(engine).or_default();
            match s.name.as_str() {
                "vllm:request_success_total" => {
                    let reason = s.label("finished_reason").expect("reason");
                    let name = REASONS
                        .iter()
                        .map(|(_, n)| *n)
                        .find(|n| *n == reason)
                        .expect("known reason");
                    if value > 0 {
                        t.success.insert(name, value);
                    }
                }
                "vllm:generation_tokens_total" => t.generation_tokens = value,
                "vllm:prompt_tokens_total" => t.prompt_tokens = value,
                "vllm:num_preemptions_total" => t.preemptions = value,
                "vllm:prefix_cache_queries_total" => t.prefix_queries = value,
                "vllm:spec_decode_num_accepted_tokens_per_pos_total" => t.accepted_per_pos += value,
                "vllm:prompt_tokens_cached_by_source_total" => {
                    add(
                        &mut t.cached_by_source,
                        s.label("source").expect("source"),
                        value,
                    );
                }
                "vllm:nixl_num_failed_transfers_total"
                | "vllm:nixl_num_failed_notifications_total"
                | "vllm:nixl_num_kv_expired_reqs_total" => add(&mut t.nixl, &s.name, value),
                "vllm:mooncake_store_operation_total" => {
                    t.mooncake.entry(mooncake_key()).or_default().operations = value;
                }
                "vllm:mooncake_store_operation_keys_total" => {
                    t.mooncake.entry(mooncake_key()).or_default().keys = value;
                }
                "vllm:mooncake_store_operation_bytes_total" => {
                    t.mooncake.entry(mooncake_key()).or_default().bytes = value;
                }
                "vllm:mooncake_store_operation_failed_keys_total" => {
                    t.mooncake.entry(mooncake_key()).or_default().failed_keys = value;
                }
                _ => {}
            }
        } else if s.name == "vllm:kv_cache_usage_perc" {
            let usage: f64 = s.value.parse().expect("numeric gauge");
            assert!((0.0..=1.0).contains(&usage), "kv_cache_usage {usage}");
        }
    }
    seen
}

/// The families without engine labels: LoRA info and the sleep-mode operations.
fn check_frontend_families(samples: &[Sample], model: &Model) {
    let lora: Vec<LoraSeries> = samples
        .iter()
        .filter(|s| s.name == "vllm:lora_requests_info")
        .map(|s| {
            let keys: Vec<&str> = s.labels.iter().map(|(k, _)| k.as_str()).collect();
            assert_eq!(keys, ["running_lora_adapters", "waiting_lora_adapters"]);
            (
                s.labels[0].1.clone(),
                s.labels[1].1.clone(),
                s.value.parse().expect("numeric gauge"),
            )
        })
        .collect();
    assert_eq!(lora, model.lora.iter().cloned().collect::<Vec<_>>());

    let mut in_flight: BTreeMap<&str, f64> = BTreeMap::new();
    let mut timed: BTreeMap<&str, u64> = BTreeMap::new();
    for s in samples {
        let operation = || s.label("operation").expect("operation");
        match s.name.as_str() {
            "vllm:sleep_mode_operations_in_flight" => {
                in_flight.insert(operation(), s.value.parse().expect("numeric gauge"));
            }
            "vllm:sleep_mode_operation_duration_seconds_count" => {
                let count: u64 = s.value.parse().expect("integer count");
                if count > 0 {
                    timed.insert(operation(), count);
                }
            }
            _ => {}
        }
    }
    let mut expected_in_flight: BTreeMap<&str, f64> = SleepOperation::VARIANTS
        .iter()
        .map(|&op| (sleep_operation(op), 0.0))
        .collect();
    for (op, _) in &model.sleep_guards {
        *expected_in_flight.entry(sleep_operation(*op)).or_default() += 1.0;
    }
    assert_eq!(
        in_flight, expected_in_flight,
        "sleep-mode operations in flight"
    );
    let expected_timed: BTreeMap<&str, u64> =
        model.sleep_timed.iter().map(|(k, v)| (*k, *v)).collect();
    assert_eq!(timed, expected_timed, "sleep-mode operations timed");
}
