//! The operations of a case, and what each does: to the recorders, and the same change to the
//! model of what the exposition must show.

use std::collections::BTreeSet;

use metric_handles::vllm::connectors::KvConnectorStats;
use metric_handles::vllm::lora::LoraState;
use metric_handles::vllm::request::{EventType, FinishReason, RequestOutput, RequestParams};
use metric_handles::vllm::scheduler::SchedulerStats;
use metric_handles::vllm::sleep::SleepOperation;
use metric_handles::vllm::VllmMetrics;
use metric_handles::LabelEnum;
use proptest::prelude::*;

use super::inputs::{count32, count64, output, reason, scheduler_stats, time};
use super::model::{
    add, counter_sum, mooncake_operation, mooncake_status, sleep_gauges, sleep_operation,
    LoraSeries, Model, Request, Totals,
};
use super::ENGINES;

/// One step of a case: a call into the recorders, or a scrape checked against the model.
#[derive(Clone, Debug)]
pub(super) enum Op {
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

pub(super) fn op() -> impl Strategy<Value = Op> {
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

/// Runs `op` against the recorders and makes the same change to the model.
pub(super) fn apply(metrics: &VllmMetrics, model: &mut Model, requests: &mut Vec<Request>, op: Op) {
    match op {
        Op::Track {
            engine,
            arrival,
            prompt_len,
            n,
            parallel,
        } => {
            let params = RequestParams {
                arrival_time: arrival,
                prompt_len,
                max_tokens_param: Some(prompt_len),
                n_param: n,
            };
            track(metrics, model, requests, engine, params, parallel);
        }
        Op::Output {
            pick: p,
            batch,
            received,
            output: out,
        } => {
            if let Some(i) = pick(requests, p) {
                record_output(model, requests, i, batch, received, &out);
            }
        }
        Op::Finish {
            pick: p,
            reason,
            received,
        } => {
            if let Some(i) = pick(requests, p) {
                let r = &mut requests[i];
                r.tracker.finish(reason, received);
                end_once(model, r, reason);
            }
        }
        Op::Abort { pick: p, received } => {
            if let Some(i) = pick(requests, p) {
                let mut r = requests.swap_remove(i);
                end_once(model, &mut r, FinishReason::Abort);
                r.tracker.abort(received);
            }
        }
        Op::Drop { pick: p } => {
            if let Some(i) = pick(requests, p) {
                let mut r = requests.swap_remove(i);
                // Dropping a tracker counts an unfinished request as aborted, silently.
                if !r.finished {
                    r.end(model, FinishReason::Abort);
                }
                drop(r.tracker);
            }
        }
        Op::Stats { engine, stats } => {
            metrics.scheduler().record(engine, &stats);
            record_scheduler_stats(model, engine, &stats);
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
            model.lora = lora_series(&state, unix_time);
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

/// The request at `pick` (any number: it wraps), if there is one.
fn pick(requests: &[Request], pick: usize) -> Option<usize> {
    (!requests.is_empty()).then(|| pick % requests.len())
}

/// New trackers for `engine` (one, or one per parallel sample), which joins if it had left.
fn track(
    metrics: &VllmMetrics,
    model: &mut Model,
    requests: &mut Vec<Request>,
    engine: u32,
    params: RequestParams,
    parallel: bool,
) {
    let generation = model.join(engine);
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

/// One output of request `i`: its tokens and preemptions count at once, its prompt with its
/// first tokens; after the request's finish it is ignored (and counted as such).
fn record_output(
    model: &mut Model,
    requests: &mut [Request],
    i: usize,
    batch: f64,
    received: f64,
    output: &RequestOutput,
) {
    let r = &mut requests[i];
    r.tracker.observe_output(batch, received, output);
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
    let t = model.totals(r.engine, r.generation);
    t.generation_tokens += tokens;
    t.preemptions += preempted;
    if let (true, Some(p)) = (first_tokens, output.prefill_stats) {
        t.prompt_tokens += u64::from(p.num_prompt_tokens);
    }
    if let Some(reason) = output.finish_reason {
        r.end(model, reason);
    }
}

/// A finish or an abort: ends the request the first time, is an ignored finish after that.
fn end_once(model: &mut Model, r: &mut Request, reason: FinishReason) {
    if r.finished {
        model.ignored_finishes += 1;
    } else {
        r.end(model, reason);
    }
}

/// One `SchedulerStats` into the model: the sleep state when present, and (unless the stats
/// carry only that) the counters it adds to.
fn record_scheduler_stats(model: &mut Model, engine: u32, stats: &SchedulerStats) {
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

/// What `lora_requests_info` shows after an update: nothing when both sets are empty, else
/// the sets joined by commas, valued with the update's time (0 when it is not a time).
fn lora_series(state: &LoraState, unix_time: f64) -> Option<LoraSeries> {
    let join = |names: &BTreeSet<String>| names.iter().cloned().collect::<Vec<_>>().join(",");
    (!state.running.is_empty() || !state.waiting.is_empty()).then(|| {
        let value = if unix_time.is_finite() && unix_time > 0.0 {
            unix_time
        } else {
            0.0
        };
        (join(&state.running), join(&state.waiting), value)
    })
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
