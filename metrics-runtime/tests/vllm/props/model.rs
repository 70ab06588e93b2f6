//! The model: what the exposition must show, kept beside the recorders by the operations.

use std::collections::{BTreeMap, HashMap};

use metric_handles::vllm::connectors::{MooncakeOperation, MooncakeStatus};
use metric_handles::vllm::request::FinishReason;
use metric_handles::vllm::sleep::{
    EngineSleepState, KvCacheState, SleepOperation, SleepOperationGuard, WeightsState,
};
use metric_handles::vllm::RequestMetricsTracker;

pub(super) const REASONS: [(FinishReason, &str); 5] = [
    (FinishReason::Stop, "stop"),
    (FinishReason::Length, "length"),
    (FinishReason::Abort, "abort"),
    (FinishReason::Error, "error"),
    (FinishReason::Repetition, "repetition"),
];

/// One Mooncake operation x status series group.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct MooncakeTotals {
    pub(super) operations: u64,
    pub(super) keys: u64,
    pub(super) bytes: u64,
    pub(super) failed_keys: u64,
    pub(super) timed: u64,
}

/// One engine incarnation's expected counters (reset when the engine leaves).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Totals {
    pub(super) success: BTreeMap<&'static str, u64>,
    pub(super) generation_tokens: u64,
    pub(super) prompt_tokens: u64,
    pub(super) preemptions: u64,
    pub(super) prefix_queries: u64,
    pub(super) accepted_per_pos: u64,
    /// `prompt_tokens_cached_by_source` by tier, non-zero tiers only.
    pub(super) cached_by_source: BTreeMap<String, u64>,
    /// NIXL counters and histogram observation counts by family, non-zero only.
    pub(super) nixl: BTreeMap<String, u64>,
    /// By (operation, status): present once the pair recorded.
    pub(super) mooncake: BTreeMap<(String, String), MooncakeTotals>,
    /// `request_num_preemptions`: `_count` and `_sum` (as integers).
    pub(super) finished_preemptions: (u64, u64),
    /// `engine_sleep_resource_state` by (resource, state), and `engine_fully_awake`: the latest
    /// snapshot, present once one arrived.
    pub(super) sleep_state: BTreeMap<(String, String), u64>,
    pub(super) fully_awake: Option<u64>,
}

/// Adds `value` to `key` as a counter adds, keeping only non-zero entries.
pub(super) fn add(map: &mut BTreeMap<String, u64>, key: &str, value: u64) {
    if value > 0 {
        let entry = map.entry(key.to_owned()).or_default();
        *entry = counter_sum(*entry, value);
    }
}

/// `total + value` as a `u64` counter reads it: exact up to `2^64 - 2^57 - 1`, and `u64::MAX`
/// from `2^64 - 2^57` on (the counter saturates there: the top of the range is headroom for
/// increments racing each other).
pub(super) fn counter_sum(total: u64, value: u64) -> u64 {
    let sum = total.saturating_add(value);
    if sum > u64::MAX - (1 << 57) {
        u64::MAX
    } else {
        sum
    }
}

pub(super) fn mooncake_operation(operation: MooncakeOperation) -> &'static str {
    match operation {
        MooncakeOperation::SaveExists => "save_exists",
        MooncakeOperation::SavePut => "save_put",
        MooncakeOperation::LoadGet => "load_get",
        MooncakeOperation::LookupExists => "lookup_exists",
    }
}

pub(super) fn mooncake_status(status: MooncakeStatus) -> &'static str {
    match status {
        MooncakeStatus::Ok => "ok",
        MooncakeStatus::Error => "error",
        MooncakeStatus::PartialFailure => "partial_failure",
    }
}

pub(super) fn sleep_operation(operation: SleepOperation) -> &'static str {
    match operation {
        SleepOperation::Sleep => "sleep",
        SleepOperation::ReleaseKvCacheMemory => "release_kv_cache_memory",
        SleepOperation::Wake => "wake",
    }
}

/// The nine resource x state gauges a snapshot sets, and `fully_awake`.
pub(super) fn sleep_gauges(state: &EngineSleepState) -> (BTreeMap<(String, String), u64>, u64) {
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

pub(super) struct Request {
    pub(super) tracker: RequestMetricsTracker,
    pub(super) engine: u32,
    pub(super) generation: u64,
    pub(super) finished: bool,
    pub(super) has_tokens: bool,
    /// Preempted events the request went through.
    pub(super) preemptions: u64,
}

impl Request {
    /// The request finishes for `reason` (a finish, an abort or a drop): counted once, with
    /// its own preemptions observed once.
    pub(super) fn end(&mut self, model: &mut Model, reason: FinishReason) {
        self.finished = true;
        model.finished(self.engine, self.generation, reason);
        let t = model.totals(self.engine, self.generation);
        t.finished_preemptions.0 += 1;
        t.finished_preemptions.1 += self.preemptions;
    }
}

/// What `lora_requests_info` must show: its two labels and its value.
pub(super) type LoraSeries = (String, String, f64);

#[derive(Default)]
pub(super) struct Model {
    /// Engine → its current incarnation, present engines only.
    pub(super) present: HashMap<u32, u64>,
    pub(super) next_generation: u64,
    /// Expected totals by (engine, incarnation).
    pub(super) totals: HashMap<(u32, u64), Totals>,
    pub(super) ignored_outputs: u64,
    pub(super) ignored_finishes: u64,
    /// Engines that left since the previous scrape: their counters may restart.
    pub(super) left: Vec<u32>,
    pub(super) lora: Option<LoraSeries>,
    /// Sleep-mode operations under way, oldest first.
    pub(super) sleep_guards: Vec<(SleepOperation, SleepOperationGuard)>,
    /// Ended sleep-mode operations by name.
    pub(super) sleep_timed: BTreeMap<&'static str, u64>,
}

impl Model {
    pub(super) fn join(&mut self, engine: u32) -> u64 {
        let next = &mut self.next_generation;
        *self.present.entry(engine).or_insert_with(|| {
            *next += 1;
            *next
        })
    }

    pub(super) fn totals(&mut self, engine: u32, generation: u64) -> &mut Totals {
        self.totals.entry((engine, generation)).or_default()
    }

    pub(super) fn finished(&mut self, engine: u32, generation: u64, reason: FinishReason) {
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
