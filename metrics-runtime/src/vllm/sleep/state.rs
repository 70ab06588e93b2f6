//! `vllm:engine_sleep_resource_state` {`resource`, `state`} and `vllm:engine_fully_awake`:
//! each engine's confirmed sleep snapshot, registered as plug-in families.
//!
//! The `resource` x `state` pairs are not a cross product: `scheduler` is `running` or
//! `paused`, `weights` is `resident`, `offloaded`, `discarded` or `unknown`, `kv_cache` is
//! `resident`, `released` or `unknown` (vLLM's Rust frontend,
//! `rust/src/engine-core-client/src/metrics.rs`). So the nine valid series are resolved
//! through the run-time family API, whose extra label keys take any pairs, rather than as a
//! product of two enum axes. As in vLLM, an engine's series appear with its first snapshot:
//! an engine that never published one is not claimed asleep or awake.

use std::sync::OnceLock;

use crate::plugin::{RuntimeFamilies, RuntimeFamily};
use crate::vllm::labels::EngineLabels;
use crate::vllm::scheduler::connectors::descriptor;
use crate::vllm::sleep::types::{EngineSleepState, KvCacheState, WeightsState};
use crate::{Gauge, LabelEnum, MetricDescriptor, MetricKind};

const RESOURCE_STATE: MetricDescriptor = descriptor(
    "vllm:engine_sleep_resource_state",
    "sleep_state",
    MetricKind::Gauge,
    "Engine sleep state by resource: 1 for the current state of each resource, 0 for its other states",
    None,
    &["resource", "state"],
);

const FULLY_AWAKE: MetricDescriptor = descriptor(
    "vllm:engine_fully_awake",
    "sleep_state",
    MetricKind::Gauge,
    "1 when scheduling is running and both the weights and the KV cache are confirmed resident, else 0",
    None,
    &[],
);

/// The two sleep-state families.
pub const SLEEP_STATE_DESCRIPTORS: &[MetricDescriptor] = &[RESOURCE_STATE, FULLY_AWAKE];

/// The `state` values of resource `scheduler`, in [`SleepStateHandles::scheduler`] order.
const SCHEDULER_STATES: [&str; 2] = ["running", "paused"];

/// The registered families.
pub(crate) struct SleepStateFamilies {
    resource_state: RuntimeFamily<EngineLabels, Gauge>,
    fully_awake: RuntimeFamily<EngineLabels, Gauge>,
}

impl SleepStateFamilies {
    pub(crate) fn register(plugins: &RuntimeFamilies<EngineLabels>) -> Self {
        SleepStateFamilies {
            resource_state: plugin_gauge(plugins, &RESOURCE_STATE),
            fully_awake: plugin_gauge(plugins, &FULLY_AWAKE),
        }
    }

    #[cold]
    fn resolve(&self, labels: &EngineLabels) -> SleepStateHandles {
        let pair = |resource: &str, state: &str| {
            self.resource_state
                .resolve_declared(labels, &[resource, state])
        };
        SleepStateHandles {
            scheduler: SCHEDULER_STATES.map(|state| pair("scheduler", state)),
            weights: WeightsState::VALUES
                .iter()
                .map(|state| pair("weights", state))
                .collect(),
            kv_cache: KvCacheState::VALUES
                .iter()
                .map(|state| pair("kv_cache", state))
                .collect(),
            fully_awake: self.fully_awake.resolve_common(labels),
        }
    }
}

fn plugin_gauge(
    plugins: &RuntimeFamilies<EngineLabels>,
    descriptor: &MetricDescriptor,
) -> RuntimeFamily<EngineLabels, Gauge> {
    plugins.register_declared(descriptor)
}

/// One engine's sleep-state gauges, resolved with its first snapshot.
pub(crate) struct SleepStateHandles {
    scheduler: [Gauge; 2],
    /// In `WeightsState::VARIANTS` order.
    weights: Box<[Gauge]>,
    /// In `KvCacheState::VARIANTS` order.
    kv_cache: Box<[Gauge]>,
    fully_awake: Gauge,
}

/// An engine's lazily resolved sleep-state gauges.
#[derive(Default)]
pub(crate) struct EngineSleepGauges(OnceLock<SleepStateHandles>);

impl EngineSleepGauges {
    /// Sets every gauge of `labels`' engine from `state`: 1 for each resource's current state,
    /// 0 for its others, and the fully-awake flag.
    pub(crate) fn record(
        &self,
        families: &SleepStateFamilies,
        labels: &EngineLabels,
        state: &EngineSleepState,
    ) {
        let h = self.0.get_or_init(|| families.resolve(labels));
        let paused = usize::from(state.scheduler_paused);
        set_one_hot(&h.scheduler, paused);
        set_one_hot(&h.weights, state.weights.index());
        set_one_hot(&h.kv_cache, state.kv_cache.index());
        h.fully_awake.set(i64::from(state.fully_awake()));
    }
}

fn set_one_hot(gauges: &[Gauge], current: usize) {
    for (i, gauge) in gauges.iter().enumerate() {
        gauge.set(i64::from(i == current));
    }
}
