//! What the recorders share: the registered families, the engine table and the counts of
//! ignored input, with the join and leave of an engine.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::family::RuntimeFamilies;
use crate::vllm::cache_config::CacheConfigRecorder;
use crate::vllm::config::{model_label, VllmMetricsConfig};
use crate::vllm::connectors::metrics::{ConnectorFamilies, ConnectorHandles};
use crate::vllm::engines::{EngineTable, EntryRef, OverflowGroup, OverflowedEngines};
use crate::vllm::labels::EngineLabels;
use crate::vllm::log::interval::LogStatsAccumulator;
use crate::vllm::lora::LoraInfoRecorder;
use crate::vllm::request::metrics::{RequestHandles, RequestMetrics};
use crate::vllm::scheduler::metrics::{SchedulerHandles, SchedulerMetrics};
use crate::vllm::sleep::mode::SleepModeRecorder;
use crate::vllm::sleep::state::{EngineSleepGauges, SleepStateFamilies};

/// What the recorders share: the registered families and the engine table.
pub(crate) struct Core {
    pub(crate) config: VllmMetricsConfig,
    /// The `model_name` label value: the configured name, bounded (see [`model_label`]).
    model_label: String,
    pub(crate) families: Arc<Families>,
    pub(crate) engines: EngineTable<EngineEntry>,
    /// Tells a re-joined engine from its previous incarnation (for counter deltas).
    next_generation: AtomicU64,
    pub(crate) diagnostics: Arc<Diagnostics>,
}

/// The registered families, shared by the recorders of every model.
pub(crate) struct Families {
    pub(crate) scheduler: SchedulerMetrics,
    pub(crate) requests: RequestMetrics,
    pub(crate) connectors: ConnectorFamilies,
    pub(crate) sleep_state: SleepStateFamilies,
    pub(crate) plugins: RuntimeFamilies<EngineLabels>,
    pub(crate) sleep_mode: SleepModeRecorder,
    pub(crate) lora: LoraInfoRecorder,
    pub(crate) cache_config: CacheConfigRecorder,
    /// The engines (of every model) recording into the overflow series, by group; its lock,
    /// the joins-and-leaves lock, serialises the resolutions of series on join and on first
    /// record (sleep state, Mooncake pairs, `resolve_for_engine`) and their removal on leave
    /// (the lock order is in `engines`).
    pub(crate) overflowed_engines: Arc<OverflowedEngines>,
}

impl Families {
    /// Removes the overflow series of every gauge of `group` once no engine records into them
    /// (the counters and histograms stay: they keep their totals, as a scraper expects).
    fn remove_overflow_gauges(&self, group: OverflowGroup) {
        match group {
            OverflowGroup::Derived => {
                let s = &self.scheduler;
                s.num_requests_running.remove_overflow();
                s.num_requests_waiting.remove_overflow();
                s.num_requests_waiting_by_reason.remove_overflow();
                s.kv_cache_usage.remove_overflow();
            }
            // Both sleep-state families are gauges.
            OverflowGroup::SleepState => self.sleep_state.remove_overflow(),
        }
    }
}

/// Counts of input that was ignored, so that nothing is dropped silently.
#[derive(Debug, Default)]
pub(crate) struct Diagnostics {
    pub(crate) outputs_after_finish: AtomicU64,
    /// Limits the warning for ignored outputs to one per interval.
    pub(crate) outputs_after_finish_warning: crate::vllm::log::warn_limit::WarnLimiter,
    pub(crate) finishes_after_finish: AtomicU64,
}

/// One engine's cached handles and log-stats accumulator.
pub(crate) struct EngineEntry {
    pub(crate) generation: u64,
    /// The engine arrived when its derived families were full: its handles are the families'
    /// shared overflow series (`otel_metric_overflow="true"`), which every such engine records
    /// into ([`OverflowGroup::Derived`]; its sleep-state gauges tell their own).
    pub(crate) overflowed: bool,
    pub(crate) labels: EngineLabels,
    pub(crate) scheduler: SchedulerHandles,
    pub(crate) requests: RequestHandles,
    pub(crate) connectors: ConnectorHandles,
    pub(crate) sleep: EngineSleepGauges,
    pub(crate) log_stats: LogStatsAccumulator,
    pub(crate) diagnostics: Arc<Diagnostics>,
}

impl Core {
    /// The state of one model's recorders over `families`, with no engine yet.
    pub(crate) fn new(families: Arc<Families>, config: VllmMetricsConfig) -> Self {
        Core {
            families,
            engines: EngineTable::new(),
            model_label: model_label(&config.model_name),
            next_generation: AtomicU64::new(0),
            diagnostics: Arc::new(Diagnostics::default()),
            config,
        }
    }

    /// The entry of `engine`, resolved on first sight.
    #[inline]
    pub(crate) fn engine(&self, engine: u32) -> EntryRef<EngineEntry> {
        self.engines.get_or_join(engine, || self.join(engine))
    }

    /// The entry of `engine` as an `Arc`, resolved on first sight.
    pub(crate) fn engine_arc(&self, engine: u32) -> Arc<EngineEntry> {
        self.engines.get_or_join_arc(engine, || self.join(engine))
    }

    /// The slow path, once per engine: resolve every series. Runs under the engine table's
    /// membership lock and takes the joins-and-leaves lock (the lock order of `engines`).
    #[cold]
    fn join(&self, engine: u32) -> EngineEntry {
        let labels = EngineLabels {
            model_name: self.model_label.clone(),
            engine,
        };
        self.families
            .overflowed_engines
            .join(OverflowGroup::Derived, || {
                let scheduler = self.families.scheduler.resolve(&labels);
                // Every derived family has the same limit and sees the same label sets, so one
                // family tells.
                let overflowed = self
                    .families
                    .scheduler
                    .num_requests_running
                    .get(&labels)
                    .is_none();
                // A third-party connector's families get the engine's zero series, as vLLM's
                // connector adapter pre-creates them, so their `rate()` works from the first
                // scrape; they leave with the engine (`remove_common`).
                self.families.plugins.add_common(&labels);
                let entry = EngineEntry {
                    generation: self.next_generation.fetch_add(1, Ordering::Relaxed),
                    overflowed,
                    scheduler,
                    requests: self.families.requests.resolve(&labels),
                    connectors: self.families.connectors.resolve(&labels),
                    sleep: EngineSleepGauges::default(),
                    log_stats: LogStatsAccumulator::new(self.config.num_speculative_tokens),
                    diagnostics: Arc::clone(&self.diagnostics),
                    labels,
                };
                (entry, overflowed)
            })
    }

    /// Removes `engine` and its series: under the membership lock, then the joins-and-leaves
    /// lock (the lock order of `engines`).
    pub(crate) fn remove_engine(&self, engine: u32) -> bool {
        let families = &self.families;
        self.engines.remove(engine, |entry| {
            families.overflowed_engines.leave(
                || {
                    families.scheduler.remove(&entry.labels);
                    families.requests.remove(&entry.labels);
                    families.connectors.remove(&entry.labels);
                    entry.connectors.leave();
                    families.sleep_state.remove(&entry.labels);
                    families.plugins.remove_common(&entry.labels);
                    families.cache_config.remove(engine);
                    let sleep_overflowed = entry.sleep.leave();
                    [
                        (OverflowGroup::Derived, entry.overflowed),
                        (OverflowGroup::SleepState, sleep_overflowed),
                    ]
                    .into_iter()
                    .filter_map(|(group, overflowed)| overflowed.then_some(group))
                },
                |group| families.remove_overflow_gauges(group),
            );
        })
    }
}

impl std::fmt::Debug for Core {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VllmMetrics")
            .field("config", &self.config)
            .field(
                "engines",
                &self
                    .engines
                    .entries()
                    .iter()
                    .map(|(e, _)| *e)
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}
