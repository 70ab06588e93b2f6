//! Property test: arbitrary interleavings of request outputs, finishes, aborts, drops, scheduler
//! stats (extreme and non-finite values included) and engine removal, over several engines,
//! checked against a model after every scrape:
//!
//! * nothing panics;
//! * counters never decrease between scrapes (unless their engine left in between);
//! * every histogram's buckets are cumulative, its `_count` equals the `+Inf` bucket and the sum
//!   of its (non-cumulative) buckets, and its `_sum` is finite;
//! * `request_success` per engine equals the trackers finished or dropped, each counted once;
//!   `generation_tokens`, `prompt_tokens`, `num_preemptions`, `prefix_cache_queries` and the
//!   per-position spec-decode total equal what was fed, each output's generated tokens as
//!   soon as the output is recorded (only ITL samples wait for a merge);
//! * the ignored-input counters equal the outputs and finishes sent after a finish;
//! * `prompt_tokens_cached_by_source` per tier, the NIXL counters and histogram counts, every
//!   Mooncake operation x status series (operations, keys, bytes, failed keys, timings), the
//!   `request_num_preemptions` histogram (one observation per finished request, its own
//!   preemptions), the engine sleep-state gauges (the latest snapshot), `lora_requests_info`
//!   (one series for the latest non-empty adapter sets, none when both are empty) and the
//!   sleep-mode operations (in flight, and timed once each) equal what was fed.
//!
//! The exposition is parsed by a small parser of its own (escapes included), not the helpers of
//! the other tests. `METRIC_HANDLES_STRESS=long` runs 100,000 cases.
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::support::exposition::encode_text;
use metric_handles::vllm::{
    CachedTokensBySource, CudagraphStats, EngineSleepState, EventType, FinishReason,
    KvCacheEvictionEvent, KvCacheState, KvConnectorStats, LoraState, MooncakeOperation,
    MooncakeRecord, MooncakeStats, MooncakeStatus, NixlStats, PerfStats, PrefillStats,
    PrefixCacheStats, RequestMetricsTracker, RequestOutput, RequestParams, SchedulerStats,
    SleepOperation, SleepOperationGuard, SpecDecodingStats, VllmMetrics, VllmMetricsConfig,
    WeightsState,
};
use metric_handles::LabelEnum;
use metric_handles::Registry;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;

use crate::support::exposition::{parse, stress, Sample};

/// Engines the operations pick from: three lock-free slots and one past them.
const ENGINES: [u32; 4] = [0, 1, 2, 300];
const SPEC_POSITIONS: usize = 3;

fn cases() -> u32 {
    stress(100, 100_000)
}

// ---------------------------------------------------------------------------------------------
// Inputs.

/// Any `f64` half of the time (NaN, ±Inf, subnormals, huge), a plausible clock reading else.
fn time() -> impl Strategy<Value = f64> {
    prop_oneof![any::<f64>(), 0.0..1000.0f64, Just(f64::NAN), Just(-1.0)]
}

/// A count: mostly small, sometimes at the edge of its type.
fn count64() -> impl Strategy<Value = u64> {
    prop_oneof![4 => 0u64..1000, 1 => any::<u64>(), 1 => Just(u64::MAX)]
}

fn count32() -> impl Strategy<Value = u32> {
    prop_oneof![4 => 0u32..1000, 1 => any::<u32>()]
}

fn reason() -> impl Strategy<Value = FinishReason> {
    prop_oneof![
        Just(FinishReason::Stop),
        Just(FinishReason::Length),
        Just(FinishReason::Abort),
        Just(FinishReason::Error),
        Just(FinishReason::Repetition),
    ]
}

fn event() -> impl Strategy<Value = (EventType, f64)> {
    (
        prop_oneof![
            Just(EventType::Queued),
            Just(EventType::Scheduled),
            Just(EventType::Preempted)
        ],
        time(),
    )
}

fn prefill() -> impl Strategy<Value = PrefillStats> {
    (count32(), count32(), count32(), count32(), count32()).prop_map(|(p, c, k, l, e)| {
        PrefillStats {
            num_prompt_tokens: p,
            num_computed_tokens: c,
            num_cached_tokens: k,
            num_local_cached_tokens: l,
            num_external_cached_tokens: e,
        }
    })
}

fn output() -> impl Strategy<Value = RequestOutput> {
    (
        0usize..4,
        prop::option::weighted(0.2, reason()),
        prop::collection::vec(event(), 0..3),
        prop::option::weighted(0.3, prefill()),
    )
        .prop_map(|(n, finish_reason, events, prefill_stats)| RequestOutput {
            new_token_ids: vec![1; n],
            finish_reason,
            events,
            prefill_stats,
        })
}

fn prefix_stats() -> impl Strategy<Value = PrefixCacheStats> {
    (count64(), count64()).prop_map(|(queries, hits)| PrefixCacheStats {
        queries,
        hits,
        ..PrefixCacheStats::default()
    })
}

/// A connector's prefix-cache stats: its hits by tier too.
fn connector_prefix_stats() -> impl Strategy<Value = PrefixCacheStats> {
    (
        prefix_stats(),
        (count64(), count64(), count64(), count64(), count64()),
    )
        .prop_map(|(stats, (device, host, p2p, disk, external_unspecified))| {
            PrefixCacheStats {
                hits_by_source: CachedTokensBySource {
                    device,
                    host,
                    p2p,
                    disk,
                    external_unspecified,
                },
                ..stats
            }
        })
}

fn nixl_stats() -> impl Strategy<Value = NixlStats> {
    let values = || prop::collection::vec(count64(), 0..3);
    (
        prop::collection::vec(time(), 0..3),
        prop::collection::vec(time(), 0..3),
        values(),
        values(),
        (values(), values(), values()),
    )
        .prop_map(
            |(transfer_duration, post_duration, bytes_transferred, num_descriptors, counters)| {
                NixlStats {
                    transfer_duration,
                    post_duration,
                    bytes_transferred,
                    num_descriptors,
                    num_failed_transfers: counters.0,
                    num_failed_notifications: counters.1,
                    num_kv_expired_reqs: counters.2,
                }
            },
        )
}

fn mooncake_record() -> impl Strategy<Value = MooncakeRecord> {
    (
        time(),
        count64(),
        count64(),
        prop::sample::select(MooncakeStatus::VARIANTS.to_vec()),
        count64(),
    )
        .prop_map(
            |(duration_seconds, num_keys, num_bytes, status, num_failed_keys)| MooncakeRecord {
                duration_seconds,
                num_keys,
                num_bytes,
                status,
                num_failed_keys,
            },
        )
}

fn connector_stats() -> impl Strategy<Value = KvConnectorStats> {
    (
        prop::collection::vec(nixl_stats(), 0..3),
        prop::option::of(
            prop::collection::btree_map(
                prop::sample::select(MooncakeOperation::VARIANTS.to_vec()),
                prop::collection::vec(mooncake_record(), 0..3),
                0..3,
            )
            .prop_map(MooncakeStats),
        ),
    )
        .prop_map(|(nixl, mooncake)| KvConnectorStats { nixl, mooncake })
}

fn sleep_state() -> impl Strategy<Value = EngineSleepState> {
    (
        any::<bool>(),
        prop::sample::select(WeightsState::VARIANTS.to_vec()),
        prop::sample::select(KvCacheState::VARIANTS.to_vec()),
    )
        .prop_map(|(scheduler_paused, weights, kv_cache)| EngineSleepState {
            scheduler_paused,
            weights,
            kv_cache,
        })
}

fn eviction() -> impl Strategy<Value = KvCacheEvictionEvent> {
    (time(), time(), prop::collection::vec(time(), 0..3)).prop_map(|(l, i, g)| {
        KvCacheEvictionEvent {
            lifetime_seconds: l,
            idle_seconds: i,
            reuse_gaps_seconds: g,
        }
    })
}

fn scheduler_stats() -> impl Strategy<Value = SchedulerStats> {
    (
        (count64(), count64(), count64(), any::<f64>()),
        prefix_stats(),
        prop::option::of(connector_prefix_stats()),
        // Per-position vectors up to 3x the configured positions; small values keep the
        // expected total exact (the series saturate one by one).
        prop::option::of((count64(), prop::collection::vec(0u64..1000, 0..10))),
        prop::option::of((count64(), count64(), count64())),
        prop::collection::vec(eviction(), 0..3),
        prop::option::weighted(0.2, (count64(), "[A-Z]{0,6}")),
        (
            prop::option::weighted(0.3, connector_stats()),
            prop::option::weighted(0.3, sleep_state()),
            prop::bool::weighted(0.1),
        ),
    )
        .prop_map(
            |(
                (running, waiting, skipped, usage),
                prefix,
                connector,
                spec,
                perf,
                ev,
                cg,
                (kv_connector_stats, sleep_state, sleep_state_only),
            )| {
                SchedulerStats {
                    num_running_reqs: running,
                    num_waiting_reqs: waiting,
                    num_skipped_waiting_reqs: skipped,
                    kv_cache_usage: usage,
                    prefix_cache_stats: prefix,
                    connector_prefix_cache_stats: connector,
                    spec_decoding_stats: spec.map(|(drafts, per_pos)| SpecDecodingStats {
                        num_spec_tokens: SPEC_POSITIONS as u64,
                        num_drafts: drafts,
                        num_draft_tokens: drafts,
                        num_accepted_tokens: per_pos.iter().sum(),
                        num_accepted_tokens_per_pos: per_pos,
                    }),
                    perf_stats: perf.map(|(f, r, w)| PerfStats {
                        num_flops_per_gpu: f,
                        num_read_bytes_per_gpu: r,
                        num_write_bytes_per_gpu: w,
                    }),
                    kv_cache_eviction_events: ev,
                    cudagraph_stats: cg.map(|(n, mode)| CudagraphStats {
                        num_unpadded_tokens: n,
                        num_padded_tokens: n,
                        num_paddings: 0,
                        runtime_mode: mode,
                    }),
                    kv_connector_stats,
                    sleep_state,
                    sleep_state_only,
                }
            },
        )
}

#[derive(Clone, Debug)]
enum Op {
    Track {
        engine: u32,
        arrival: f64,
        prompt_len: u32,
        n: u32,
        parallel: bool,
    },
    Output {
        pick: usize,
        batch: f64,
        received: f64,
        output: RequestOutput,
    },
    Finish {
        pick: usize,
        reason: FinishReason,
        received: f64,
    },
    Abort {
        pick: usize,
        received: f64,
    },
    Drop {
        pick: usize,
    },
    Stats {
        engine: u32,
        // Boxed: by far the largest variant.
        stats: Box<SchedulerStats>,
    },
    IterationTokens {
        engine: u32,
        tokens: u64,
    },
    RemoveEngine {
        engine: u32,
    },
    Lora {
        running: BTreeSet<String>,
        waiting: BTreeSet<String>,
        unix_time: f64,
    },
    SleepBegin {
        operation: SleepOperation,
    },
    SleepEnd {
        pick: usize,
    },
    Scrape,
}

/// A set of adapter names: often empty, names from a small pool so that sets repeat.
fn adapters() -> impl Strategy<Value = BTreeSet<String>> {
    prop::collection::btree_set("[a-c]", 0..3)
}

fn engine() -> impl Strategy<Value = u32> {
    prop::sample::select(ENGINES.to_vec())
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (engine(), time(), count32(), 0u32..4, any::<bool>()).prop_map(
            |(engine, arrival, prompt_len, n, parallel)| Op::Track {
                engine,
                arrival,
                prompt_len,
                n,
                parallel
            }
        ),
        8 => (any::<usize>(), time(), time(), output()).prop_map(
            |(pick, batch, received, output)| Op::Output { pick, batch, received, output }
        ),
        1 => (any::<usize>(), reason(), time())
            .prop_map(|(pick, reason, received)| Op::Finish { pick, reason, received }),
        1 => (any::<usize>(), time()).prop_map(|(pick, received)| Op::Abort { pick, received }),
        1 => any::<usize>().prop_map(|pick| Op::Drop { pick }),
        3 => (engine(), scheduler_stats()).prop_map(|(engine, stats)| Op::Stats {
            engine,
            stats: Box::new(stats)
        }),
        1 => (engine(), count64())
            .prop_map(|(engine, tokens)| Op::IterationTokens { engine, tokens }),
        1 => engine().prop_map(|engine| Op::RemoveEngine { engine }),
        1 => (adapters(), adapters(), time()).prop_map(|(running, waiting, unix_time)| Op::Lora {
            running,
            waiting,
            unix_time
        }),
        1 => prop::sample::select(SleepOperation::VARIANTS.to_vec())
            .prop_map(|operation| Op::SleepBegin { operation }),
        1 => any::<usize>().prop_map(|pick| Op::SleepEnd { pick }),
        2 => Just(Op::Scrape),
    ]
}

// ---------------------------------------------------------------------------------------------
// The model: what the exposition must show.

const REASONS: [(FinishReason, &str); 5] = [
    (FinishReason::Stop, "stop"),
    (FinishReason::Length, "length"),
    (FinishReason::Abort, "abort"),
    (FinishReason::Error, "error"),
    (FinishReason::Repetition, "repetition"),
];

/// One Mooncake operation x status series group.
#[derive(Clone, Debug, Default, PartialEq)]
struct MooncakeTotals {
    operations: u64,
    keys: u64,
    bytes: u64,
    failed_keys: u64,
    timed: u64,
}

/// One engine incarnation's expected counters (reset when the engine leaves).
#[derive(Clone, Debug, Default, PartialEq)]
struct Totals {
    success: BTreeMap<&'static str, u64>,
    generation_tokens: u64,
    prompt_tokens: u64,
    preemptions: u64,
    prefix_queries: u64,
    accepted_per_pos: u64,
    /// `prompt_tokens_cached_by_source` by tier, non-zero tiers only.
    cached_by_source: BTreeMap<String, u64>,
    /// NIXL counters and histogram observation counts by family, non-zero only.
    nixl: BTreeMap<String, u64>,
    /// By (operation, status): present once the pair recorded.
    mooncake: BTreeMap<(String, String), MooncakeTotals>,
    /// `request_num_preemptions`: `_count` and `_sum` (as integers).
    finished_preemptions: (u64, u64),
    /// `engine_sleep_resource_state` by (resource, state), and `engine_fully_awake`: the latest
    /// snapshot, present once one arrived.
    sleep_state: BTreeMap<(String, String), u64>,
    fully_awake: Option<u64>,
}

/// Adds `value` to `key` as a counter adds, keeping only non-zero entries.
fn add(map: &mut BTreeMap<String, u64>, key: &str, value: u64) {
    if value > 0 {
        let entry = map.entry(key.to_owned()).or_default();
        *entry = counter_sum(*entry, value);
    }
}

/// `total + value` as a `u64` counter reads it: exact up to `2^64 - 2^57 - 1`, and `u64::MAX`
/// from `2^64 - 2^57` on (the counter saturates there: the top of the range is headroom for
/// increments racing each other).
fn counter_sum(total: u64, value: u64) -> u64 {
    let sum = total.saturating_add(value);
    if sum > u64::MAX - (1 << 57) {
        u64::MAX
    } else {
        sum
    }
}

fn mooncake_operation(operation: MooncakeOperation) -> &'static str {
    match operation {
        MooncakeOperation::SaveExists => "save_exists",
        MooncakeOperation::SavePut => "save_put",
        MooncakeOperation::LoadGet => "load_get",
        MooncakeOperation::LookupExists => "lookup_exists",
    }
}

fn mooncake_status(status: MooncakeStatus) -> &'static str {
    match status {
        MooncakeStatus::Ok => "ok",
        MooncakeStatus::Error => "error",
        MooncakeStatus::PartialFailure => "partial_failure",
    }
}

fn sleep_operation(operation: SleepOperation) -> &'static str {
    match operation {
        SleepOperation::Sleep => "sleep",
        SleepOperation::ReleaseKvCacheMemory => "release_kv_cache_memory",
        SleepOperation::Wake => "wake",
    }
}

/// The nine resource x state gauges a snapshot sets, and `fully_awake`.
fn sleep_gauges(state: &EngineSleepState) -> (BTreeMap<(String, String), u64>, u64) {
    let scheduler = if state.scheduler_paused {
        "paused"
    } else {
        "running"
    };
    let weights = match state.weights {
        WeightsState::Resident => "resident",
        WeightsState::Offloaded => "offloaded",
        WeightsState::Discarded => "discarded",
        WeightsState::Unknown => "unknown",
    };
    let kv_cache = match state.kv_cache {
        KvCacheState::Resident => "resident",
        KvCacheState::Released => "released",
        KvCacheState::Unknown => "unknown",
    };
    let mut gauges = BTreeMap::new();
    for (resource, states, current) in [
        ("scheduler", &["running", "paused"][..], scheduler),
        (
            "weights",
            &["resident", "offloaded", "discarded", "unknown"][..],
            weights,
        ),
        (
            "kv_cache",
            &["resident", "released", "unknown"][..],
            kv_cache,
        ),
    ] {
        for &value in states {
            gauges.insert(
                (resource.to_owned(), value.to_owned()),
                u64::from(value == current),
            );
        }
    }
    let awake = !state.scheduler_paused
        && state.weights == WeightsState::Resident
        && state.kv_cache == KvCacheState::Resident;
    (gauges, u64::from(awake))
}

struct Request {
    tracker: RequestMetricsTracker,
    engine: u32,
    generation: u64,
    finished: bool,
    has_tokens: bool,
    /// Preempted events the request went through.
    preemptions: u64,
}

impl Request {
    /// The request finishes for `reason` (a finish, an abort or a drop): counted once, with
    /// its own preemptions observed once.
    fn end(&mut self, model: &mut Model, reason: FinishReason) {
        self.finished = true;
        model.finished(self.engine, self.generation, reason);
        let t = model.totals(self.engine, self.generation);
        t.finished_preemptions.0 += 1;
        t.finished_preemptions.1 += self.preemptions;
    }
}

/// What `lora_requests_info` must show: its two labels and its value.
type LoraSeries = (String, String, f64);

#[derive(Default)]
struct Model {
    /// Engine → its current incarnation, present engines only.
    present: HashMap<u32, u64>,
    next_generation: u64,
    /// Expected totals by (engine, incarnation).
    totals: HashMap<(u32, u64), Totals>,
    ignored_outputs: u64,
    ignored_finishes: u64,
    /// Engines that left since the previous scrape: their counters may restart.
    left: Vec<u32>,
    lora: Option<LoraSeries>,
    /// Sleep-mode operations under way, oldest first.
    sleep_guards: Vec<(SleepOperation, SleepOperationGuard)>,
    /// Ended sleep-mode operations by name.
    sleep_timed: BTreeMap<&'static str, u64>,
}

impl Model {
    fn join(&mut self, engine: u32) -> u64 {
        let next = &mut self.next_generation;
        *self.present.entry(engine).or_insert_with(|| {
            *next += 1;
            *next
        })
    }

    fn totals(&mut self, engine: u32, generation: u64) -> &mut Totals {
        self.totals.entry((engine, generation)).or_default()
    }

    fn finished(&mut self, engine: u32, generation: u64, reason: FinishReason) {
        let name = REASONS
            .iter()
            .find(|(r, _)| *r == reason)
            .map(|(_, name)| *name)
            .unwrap_or_else(|| unreachable!());
        *self
            .totals(engine, generation)
            .success
            .entry(name)
            .or_default() += 1;
    }
}

fn pick(requests: &[Request], pick: usize) -> Option<usize> {
    (!requests.is_empty()).then(|| pick % requests.len())
}

fn apply(metrics: &VllmMetrics, model: &mut Model, requests: &mut Vec<Request>, op: Op) {
    match op {
        Op::Track {
            engine,
            arrival,
            prompt_len,
            n,
            parallel,
        } => {
            let generation = model.join(engine);
            let params = RequestParams {
                arrival_time: arrival,
                prompt_len,
                max_tokens_param: Some(prompt_len),
                n_param: n,
            };
            let trackers = if parallel {
                metrics.requests().track_parallel(engine, params)
            } else {
                vec![metrics.requests().track(engine, params)]
            };
            requests.extend(trackers.into_iter().map(|tracker| Request {
                tracker,
                engine,
                generation,
                finished: false,
                has_tokens: false,
                preemptions: 0,
            }));
        }
        Op::Output {
            pick: p,
            batch,
            received,
            output,
        } => {
            let Some(i) = pick(requests, p) else { return };
            let r = &mut requests[i];
            r.tracker.observe_output(batch, received, &output);
            let (engine, generation) = (r.engine, r.generation);
            if r.finished {
                model.ignored_outputs += 1;
                return;
            }
            let tokens = output.new_token_ids.len() as u64;
            let first_tokens = tokens > 0 && !r.has_tokens;
            r.has_tokens |= tokens > 0;
            let preempted = output
                .events
                .iter()
                .filter(|(e, _)| *e == EventType::Preempted)
                .count() as u64;
            r.preemptions += preempted;
            let t = model.totals(engine, generation);
            t.generation_tokens += tokens;
            t.preemptions += preempted;
            if let (true, Some(p)) = (first_tokens, output.prefill_stats) {
                t.prompt_tokens += u64::from(p.num_prompt_tokens);
            }
            if let Some(reason) = output.finish_reason {
                requests[i].end(model, reason);
            }
        }
        Op::Finish {
            pick: p,
            reason,
            received,
        } => {
            let Some(i) = pick(requests, p) else { return };
            let r = &mut requests[i];
            r.tracker.finish(reason, received);
            if r.finished {
                model.ignored_finishes += 1;
            } else {
                r.end(model, reason);
            }
        }
        Op::Abort { pick: p, received } => {
            let Some(i) = pick(requests, p) else { return };
            let mut r = requests.swap_remove(i);
            if r.finished {
                model.ignored_finishes += 1;
            } else {
                r.end(model, FinishReason::Abort);
            }
            r.tracker.abort(received);
        }
        Op::Drop { pick: p } => {
            let Some(i) = pick(requests, p) else { return };
            let mut r = requests.swap_remove(i);
            if !r.finished {
                r.end(model, FinishReason::Abort);
            }
            drop(r.tracker);
        }
        Op::Stats { engine, stats } => {
            metrics.scheduler().record(engine, &stats);
            let generation = model.join(engine);
            let t = model.totals(engine, generation);
            if let Some(state) = &stats.sleep_state {
                let (gauges, awake) = sleep_gauges(state);
                t.sleep_state = gauges;
                t.fully_awake = Some(awake);
            }
            if stats.sleep_state_only {
                return;
            }
            t.prefix_queries = counter_sum(t.prefix_queries, stats.prefix_cache_stats.queries);
            if let Some(spec) = &stats.spec_decoding_stats {
                t.accepted_per_pos += spec.num_accepted_tokens_per_pos.iter().sum::<u64>();
            }
            // Local prefix-cache hits are `device`; a connector's hits go by their tier.
            add(
                &mut t.cached_by_source,
                "device",
                stats.prefix_cache_stats.hits,
            );
            if let Some(connector) = &stats.connector_prefix_cache_stats {
                let by = &connector.hits_by_source;
                for (tier, hits) in [
                    ("device", by.device),
                    ("host", by.host),
                    ("p2p", by.p2p),
                    ("disk", by.disk),
                    ("external_unspecified", by.external_unspecified),
                ] {
                    add(&mut t.cached_by_source, tier, hits);
                }
            }
            if let Some(connectors) = &stats.kv_connector_stats {
                record_connectors(t, connectors);
            }
        }
        Op::IterationTokens { engine, tokens } => {
            metrics.scheduler().record_iteration_tokens(engine, tokens);
            model.join(engine);
        }
        Op::RemoveEngine { engine } => {
            let was_present = model.present.remove(&engine).is_some();
            assert_eq!(metrics.scheduler().remove_engine(engine), was_present);
            if was_present {
                model.left.push(engine);
            }
        }
        Op::Lora {
            running,
            waiting,
            unix_time,
        } => {
            let state = LoraState { running, waiting };
            metrics.lora().update_at(&state, unix_time);
            let join =
                |names: &BTreeSet<String>| names.iter().cloned().collect::<Vec<_>>().join(",");
            model.lora = (!state.running.is_empty() || !state.waiting.is_empty()).then(|| {
                let value = if unix_time.is_finite() && unix_time > 0.0 {
                    unix_time
                } else {
                    0.0
                };
                (join(&state.running), join(&state.waiting), value)
            });
        }
        Op::SleepBegin { operation } => {
            let guard = metrics.sleep_mode().begin(operation);
            model.sleep_guards.push((operation, guard));
        }
        Op::SleepEnd { pick } => {
            if !model.sleep_guards.is_empty() {
                let i = pick % model.sleep_guards.len();
                let (operation, guard) = model.sleep_guards.remove(i);
                drop(guard);
                *model
                    .sleep_timed
                    .entry(sleep_operation(operation))
                    .or_default() += 1;
            }
        }
        Op::Scrape => unreachable!("handled by the caller"),
    }
}

/// One step's connector telemetry into the model: every NIXL child adds to the same families;
/// each Mooncake record counts once for its operation x status.
fn record_connectors(t: &mut Totals, stats: &KvConnectorStats) {
    for nixl in &stats.nixl {
        for (family, observations) in [
            (
                "vllm:nixl_xfer_time_seconds_count",
                nixl.transfer_duration.len(),
            ),
            (
                "vllm:nixl_post_time_seconds_count",
                nixl.post_duration.len(),
            ),
            (
                "vllm:nixl_bytes_transferred_count",
                nixl.bytes_transferred.len(),
            ),
            (
                "vllm:nixl_num_descriptors_count",
                nixl.num_descriptors.len(),
            ),
        ] {
            add(&mut t.nixl, family, observations as u64);
        }
        for (family, increments) in [
            (
                "vllm:nixl_num_failed_transfers_total",
                &nixl.num_failed_transfers,
            ),
            (
                "vllm:nixl_num_failed_notifications_total",
                &nixl.num_failed_notifications,
            ),
            (
                "vllm:nixl_num_kv_expired_reqs_total",
                &nixl.num_kv_expired_reqs,
            ),
        ] {
            for &increment in increments {
                add(&mut t.nixl, family, increment);
            }
        }
    }
    for (&operation, records) in stats.mooncake.iter().flat_map(|m| &m.0) {
        for record in records {
            let key = (
                mooncake_operation(operation).to_owned(),
                mooncake_status(record.status).to_owned(),
            );
            let m = t.mooncake.entry(key).or_default();
            m.operations += 1;
            m.timed += 1;
            m.keys = counter_sum(m.keys, record.num_keys);
            m.bytes = counter_sum(m.bytes, record.num_bytes);
            m.failed_keys = counter_sum(m.failed_keys, record.num_failed_keys);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Checks on one scrape.

/// A series: its name and labels.
type SeriesKey = (String, Vec<(String, String)>);

/// Counter samples by series, for the monotonicity check.
type Counters = HashMap<SeriesKey, u64>;

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

fn check(registry: &Registry, model: &mut Model, previous: &mut Counters) {
    let text = encode_text(registry);
    let samples = parse(&text);
    check_histograms(&samples);

    let left = std::mem::take(&mut model.left);
    let mut counters = Counters::new();
    let mut seen: HashMap<u32, Totals> = HashMap::new();
    check_frontend_families(&samples, model);
    for s in &samples {
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
            let key = (s.name.clone(), s.labels.clone());
            if let Some(&before) = previous.get(&key) {
                if !left.contains(&engine) {
                    assert!(value >= before, "{key:?} decreased: {before} -> {value}");
                }
            }
            counters.insert(key, value);
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
    *previous = counters;

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

fn run(ops: Vec<Op>) {
    let mut registry = Registry::default();
    let metrics = VllmMetrics::register(
        &mut registry,
        VllmMetricsConfig {
            num_speculative_tokens: SPEC_POSITIONS,
            ..VllmMetricsConfig::default()
        },
    );
    let mut model = Model::default();
    let mut requests = Vec::new();
    let mut previous = Counters::new();
    for op in ops {
        match op {
            Op::Scrape => check(&registry, &mut model, &mut previous),
            op => apply(&metrics, &mut model, &mut requests, op),
        }
    }
    // Every request left is dropped: each unfinished one is then counted once, as an abort.
    for mut r in requests.drain(..) {
        if !r.finished {
            r.end(&mut model, FinishReason::Abort);
        }
    }
    if !model.present.is_empty() {
        check(&registry, &mut model, &mut previous);
    }
    assert_eq!(metrics.requests().ignored_outputs(), model.ignored_outputs);
    assert_eq!(
        metrics.requests().ignored_finishes(),
        model.ignored_finishes
    );
}

#[test]
fn arbitrary_request_and_scheduler_sequences_keep_every_invariant() {
    // A runner rather than `proptest!`, to report the figures over all cases at the end.
    let mut runner = TestRunner::new(ProptestConfig::with_cases(cases()));
    let (ops, scrapes) = (Cell::new(0usize), Cell::new(0usize));
    let result = runner.run(&prop::collection::vec(op(), 1..80), |case| {
        ops.set(ops.get() + case.len());
        scrapes.set(scrapes.get() + case.iter().filter(|o| matches!(o, Op::Scrape)).count());
        run(case);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    eprintln!(
        "reliability_props: {} cases, {} operations, {} checked scrapes (plus a final one per case)",
        cases(),
        ops.get(),
        scrapes.get()
    );
}
