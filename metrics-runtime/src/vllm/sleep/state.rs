//! `vllm:engine_sleep_resource_state` {`resource`, `state`} and `vllm:engine_fully_awake`:
//! each engine's confirmed sleep snapshot, declared with the derive.
//!
//! The `resource` x `state` pairs are not a cross product: `scheduler` is `running` or
//! `paused`, `weights` is `resident`, `offloaded`, `discarded` or `unknown`, `kv_cache` is
//! `resident`, `released` or `unknown` (vLLM's Rust frontend,
//! `rust/src/engine-core-client/src/metrics.rs`). So the nine valid series are a `Dynamic`
//! axis's, looked up once per engine, rather than a product of two enum axes. As in vLLM, an
//! engine's series appear with its first snapshot: an engine that never published one is not
//! claimed asleep or awake.

use std::sync::{Arc, OnceLock};

use crate::descriptor::MetricDescriptor;
use crate::registry::{RegisterOptions, RegistrationError, Registry};
use crate::vllm::engines::{OverflowGroup, OverflowedEngines};
use crate::vllm::labels::EngineLabels;
use crate::vllm::sleep::input::{EngineSleepState, KvCacheState, WeightsState};
use crate::{Dynamic, Family, Gauge, LabelEnum, LabelSet, MetricHandles};

/// The extra labels of a `vllm:engine_sleep_resource_state` series.
#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub(crate) struct ResourceState {
    resource: &'static str,
    state: &'static str,
}

/// The two sleep-state families.
#[derive(MetricHandles)]
#[metric_handles(handles = SleepStateEngine, labels = EngineLabels)]
pub(crate) struct SleepStateMetrics {
    /// Engine sleep state by resource: 1 for the current state of each resource, 0 for its other states
    ///
    /// # Computed
    ///
    /// On each `SchedulerStats` carrying `sleep_state` (also a `sleep_state_only` update): for
    /// each resource, 1 on its current state's series, 0 on the others; the nine valid
    /// {resource, state} series (scheduler: running, paused; weights: resident, offloaded,
    /// discarded, unknown; kv_cache: resident, released, unknown) appear with the engine's
    /// first snapshot. An unrecognised state decodes to `unknown`.
    #[metric(name = "vllm:engine_sleep_resource_state")]
    resource_state: Family<EngineLabels, Dynamic<ResourceState, Gauge>>,

    /// 1 when scheduling is running and both the weights and the KV cache are confirmed resident, else 0
    ///
    /// # Computed
    ///
    /// Set with each snapshot: 1 when `scheduler_paused` is false and weights and KV cache are
    /// `resident`, else 0. Absent until the engine's first snapshot.
    #[metric(name = "vllm:engine_fully_awake")]
    fully_awake: Family<EngineLabels, Gauge>,
}

/// The two sleep-state families.
pub const SLEEP_STATE_DESCRIPTORS: &[MetricDescriptor] = SleepStateMetrics::DESCRIPTORS;

/// The `state` values of resource `scheduler`, in [`SleepStateHandles::scheduler`] order.
const SCHEDULER_STATES: [&str; 2] = ["running", "paused"];

/// The registered families.
pub(crate) struct SleepStateFamilies {
    metrics: SleepStateMetrics,
    /// The overflowed engines' counts and the lock that serialises joins and leaves, shared
    /// with the derived families: an engine's gauges are resolved under it.
    overflowed_engines: Arc<OverflowedEngines>,
}

impl SleepStateFamilies {
    /// Registers both families in `registry`, with `options`.
    pub(crate) fn register(
        registry: &mut Registry,
        options: &RegisterOptions,
        overflowed_engines: Arc<OverflowedEngines>,
    ) -> Result<Self, RegistrationError> {
        Ok(SleepStateFamilies {
            metrics: SleepStateMetrics::try_register_with(registry, options)?,
            overflowed_engines,
        })
    }

    /// Removes `labels`' series (an engine that left), under the [`OverflowedEngines`] lock.
    pub(crate) fn remove(&self, labels: &EngineLabels) {
        self.metrics.remove(labels);
    }

    /// Removes both families' overflow series: called when the last engine recording into them
    /// left, under the [`OverflowedEngines`] lock.
    pub(crate) fn remove_overflow(&self) {
        self.metrics.resource_state.remove_overflow();
        self.metrics.fully_awake.remove_overflow();
    }

    #[cold]
    fn resolve(&self, labels: &EngineLabels) -> SleepStateHandles {
        let engine = self.metrics.resolve(labels);
        // Both families hold the same engines under the same limit: past it, both handles are
        // the overflow series.
        let overflowed = self.metrics.fully_awake.get(labels).is_none();
        let pair = |resource: &'static str, state: &'static str| {
            engine
                .resource_state
                .get_or_create(&ResourceState { resource, state })
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
            fully_awake: engine.fully_awake,
            overflowed,
        }
    }
}

/// One engine's sleep-state gauges, resolved with its first snapshot.
pub(crate) struct SleepStateHandles {
    scheduler: [Gauge; 2],
    /// In `WeightsState::VARIANTS` order.
    weights: Box<[Gauge]>,
    /// In `KvCacheState::VARIANTS` order.
    kv_cache: Box<[Gauge]>,
    fully_awake: Gauge,
    /// They are the overflow series (the engine is counted in [`OverflowGroup::SleepState`]).
    overflowed: bool,
}

/// An engine's lazily resolved sleep-state gauges: `None` once the engine left unresolved.
#[derive(Default)]
pub(crate) struct EngineSleepGauges(OnceLock<Option<SleepStateHandles>>);

impl EngineSleepGauges {
    /// Sets every gauge of `labels`' engine from `state`: 1 for each resource's current state,
    /// 0 for its others, and the fully-awake flag. The first snapshot resolves the gauges, under
    /// the [`OverflowedEngines`] lock (the joins-and-leaves lock; the lock order is in
    /// `vllm::engines`); a snapshot of an engine that left before its first one records
    /// nothing.
    pub(crate) fn record(
        &self,
        families: &SleepStateFamilies,
        labels: &EngineLabels,
        state: &EngineSleepState,
    ) {
        let resolved = match self.0.get() {
            Some(resolved) => resolved,
            None => families
                .overflowed_engines
                .join(OverflowGroup::SleepState, || {
                    // Another snapshot of this engine, or its leave, got the lock first.
                    if let Some(resolved) = self.0.get() {
                        return (resolved, false);
                    }
                    let handles = families.resolve(labels);
                    let overflowed = handles.overflowed;
                    (self.0.get_or_init(|| Some(handles)), overflowed)
                }),
        };
        let Some(h) = resolved else {
            return;
        };
        let paused = usize::from(state.scheduler_paused);
        set_one_hot(&h.scheduler, paused);
        set_one_hot(&h.weights, state.weights.index());
        set_one_hot(&h.kv_cache, state.kv_cache.index());
        h.fully_awake.set(i64::from(state.fully_awake()));
    }

    /// Called as the engine leaves, under the [`OverflowedEngines`] lock: whether its gauges include
    /// overflow series. Unresolved gauges stay unresolved for good, so a snapshot recorded as
    /// the engine leaves creates no series for an engine that is gone (nor counts it as
    /// overflowed with nobody left to uncount it).
    pub(crate) fn leave(&self) -> bool {
        self.0
            .get_or_init(|| None)
            .as_ref()
            .is_some_and(|h| h.overflowed)
    }
}

fn set_one_hot(gauges: &[Gauge], current: usize) {
    for (i, gauge) in gauges.iter().enumerate() {
        gauge.set(i64::from(i == current));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_recorded_as_the_engine_leaves_creates_no_series() {
        let families = SleepStateFamilies::register(
            &mut Registry::default(),
            &RegisterOptions::new(),
            Arc::default(),
        )
        .unwrap_or_else(|error| panic!("{error}"));
        let labels = EngineLabels {
            model_name: "m".into(),
            engine: 0,
        };
        let awake = EngineSleepState {
            scheduler_paused: false,
            weights: WeightsState::Resident,
            kv_cache: KvCacheState::Resident,
        };

        // The engine left before its first snapshot was resolved: the snapshot a recorder
        // still holding its entry records goes nowhere.
        let gone = EngineSleepGauges::default();
        assert!(!gone.leave());
        gone.record(&families, &labels, &awake);
        let metrics = &families.metrics;
        assert!(metrics.resource_state.is_empty());
        assert!(metrics.fully_awake.is_empty());

        let present = EngineSleepGauges::default();
        present.record(&families, &labels, &awake);
        let resource_states = metrics
            .resource_state
            .get(&labels)
            .map(|engine| engine.len());
        assert_eq!(resource_states, Some(9));
        assert_eq!(metrics.fully_awake.len(), 1);
        assert!(!present.leave(), "its own series, not the overflow series");
    }
}
