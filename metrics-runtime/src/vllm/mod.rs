//! vLLM's complete metric set, recorded at atomic-add cost: the families of vLLM's Rust
//! frontend `/metrics`, with the default `vllm` feature. The names, types, labels, bucket bounds
//! and arithmetic are vLLM's, so vLLM's Grafana dashboard, alert rules and PromQL queries work
//! unchanged against a frontend that records through this module; [`catalogue`] lists every
//! family with the vLLM files and commits it was matched against.
//!
//! * [`VllmMetrics::register`] registers every scheduler and request metric, declared with
//!   `#[derive(MetricHandles)]` in [`SchedulerMetrics`] and [`RequestMetrics`], the sleep-mode
//!   and LoRA families ([`SleepModeMetrics`], [`LoraInfoMetrics`]), and vLLM's NIXL,
//!   Mooncake-store and engine sleep-state families as plug-in families
//!   ([`VllmMetrics::plugin_families`], where a third-party connector adds its own).
//! * [`SchedulerStatsRecorder`] records each engine's [`SchedulerStats`] (with its connector
//!   telemetry and sleep snapshot); an engine is resolved on first sight (the only slow path)
//!   and cached in a lock-free table.
//! * [`RequestMetricsRecorder::track`] creates one [`RequestMetricsTracker`] per request, which
//!   records every output and the finish (every edge case of vLLM's output processor).
//! * [`SleepModeRecorder`] times sleep-mode operations; [`LoraInfoRecorder`] exports the LoRA
//!   adapters in use. The HTTP families are declared in [`crate::http`].
//! * [`StatsLogger`] computes vLLM's periodic log line.
//!
//! ```
//! use metric_handles::Registry;
//! use metric_handles::vllm::{
//!     FinishReason, RequestOutput, RequestParams, SchedulerStats, VllmMetrics, VllmMetricsConfig,
//! };
//!
//! let mut registry = Registry::default();
//! let metrics = VllmMetrics::register(&mut registry, VllmMetricsConfig::default());
//! metrics.scheduler().record(0, &SchedulerStats { num_running_reqs: 1, ..Default::default() });
//! let mut tracker = metrics.requests().track(0, RequestParams {
//!     arrival_time: 100.0, prompt_len: 5, max_tokens_param: Some(1), n_param: 1,
//! });
//! let output = RequestOutput {
//!     new_token_ids: vec![42],
//!     finish_reason: Some(FinishReason::Length),
//!     ..Default::default()
//! };
//! tracker.observe_output(7.0, 100.25, &output);
//! assert!(tracker.is_finished());
//! let text = metric_handles::ExpositionFormat::PrometheusText.encode(&registry).unwrap();
//! assert!(text.contains(
//!     r#"vllm:request_success_total{model_name="model",engine="0",finished_reason="length"} 1"#
//! ));
//! ```

mod buckets;
mod catalogue;
mod engines;
mod labels;
mod log;
mod request;
mod scheduler;
mod sleep;
mod types;
mod values;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use buckets::tokens_buckets;
pub use buckets::{
    ITERATION_TOKENS_BUCKETS, ITL_BUCKETS, KV_RESIDENCY_BUCKETS, MOONCAKE_OPERATION_TIME_BUCKETS,
    NIXL_BYTES_BUCKETS, NIXL_DESCRIPTORS_BUCKETS, NIXL_POST_TIME_BUCKETS, NIXL_XFER_TIME_BUCKETS,
    PARAMS_N_BUCKETS, PREEMPTIONS_BUCKETS, REQUEST_LATENCY_BUCKETS, SLEEP_MODE_DURATION_BUCKETS,
    TOKENS_BUCKETS_DEFAULT_MAX, TTFT_BUCKETS,
};
pub use catalogue::catalogue;
pub(crate) use engines::ENGINE_SLOTS;
pub use labels::{CacheHitSource, EngineLabels, PromptSource, WaitingReason};
pub use log::interval::{LogStatsInterval, MAX_LOGGED_POSITIONS};
pub use log::line::{SpecDecodeLine, StatsLine};
pub use log::logger::StatsLogger;
pub use request::lifecycle::{
    FinishRecord, OutputRecord, ParentFields, PromptRecord, RequestLifecycle, RequestParams,
};
pub use request::metrics::{RequestHandles, RequestMetrics};
pub use request::pending::FLUSH_INTERVAL_TOKENS;
pub use request::tracker::{RequestMetricsRecorder, RequestMetricsTracker};
pub use scheduler::connector_stats::{
    KvConnectorStats, MooncakeOperation, MooncakeRecord, MooncakeStats, MooncakeStatus, NixlStats,
};
pub use scheduler::connectors::{MOONCAKE_DESCRIPTORS, MOONCAKE_LABEL_KEYS, NIXL_DESCRIPTORS};
pub use scheduler::cudagraph::{CudagraphKey, MAX_CUDAGRAPH_SHAPES, MAX_RUNTIME_MODE_LEN};
pub use scheduler::lora_info::{
    LoraInfoHandles, LoraInfoLabels, LoraInfoMetrics, LoraInfoRecorder, LoraState,
};
pub use scheduler::metrics::{SchedulerHandles, SchedulerMetrics};
pub use scheduler::recorder::{iteration_tokens, SchedulerStatsRecorder};
pub use sleep::mode::{SleepModeHandles, SleepModeMetrics, SleepModeRecorder, SleepOperationGuard};
pub use sleep::state::SLEEP_STATE_DESCRIPTORS;
pub use sleep::types::{EngineSleepState, KvCacheState, SleepOperation, WeightsState};
pub use types::{
    CachedTokensBySource, CudagraphStats, EventType, FinishReason, KvCacheEvictionEvent, PerfStats,
    PrefillStats, PrefixCacheStats, RequestOutput, SchedulerStats, SpecDecodingStats,
};

use engines::test_points::{reached, TestPoint};
use engines::{EngineTable, EntryRef, OverflowGroup, OverflowedEngines};
use log::interval::LogStatsAccumulator;
use scheduler::connectors::{ConnectorFamilies, ConnectorHandles};
use sleep::state::{EngineSleepGauges, SleepStateFamilies};

use crate::http::HttpMetrics;
use crate::plugin::RuntimeFamilies;
use crate::registry::{declared_claims, Registry};
use crate::{MetricDescriptor, RegisterOptions, RegistrationError};

/// The longest `model_name` label value exported, in bytes. Every series carries the label,
/// and each family keeps its own copy of it: an unbounded name (a path, a prompt pasted by
/// mistake) would multiply into every scrape and every family's memory.
pub const MAX_MODEL_NAME_LEN: usize = 1024;

/// `name` as exported: truncated to [`MAX_MODEL_NAME_LEN`] bytes at a character boundary, with
/// a warning for a truncated or empty name.
fn model_label(name: &str) -> String {
    if name.is_empty() {
        tracing::warn!("vLLM metrics: empty model name; series carry model_name=\"\"");
    }
    if name.len() <= MAX_MODEL_NAME_LEN {
        return name.to_owned();
    }
    let mut end = MAX_MODEL_NAME_LEN;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    tracing::warn!(
        len = name.len(),
        max = MAX_MODEL_NAME_LEN,
        "vLLM metrics: model name too long; the model_name label is truncated"
    );
    name[..end].to_owned()
}

/// Registration-time configuration of the vLLM metrics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VllmMetricsConfig {
    /// The `model_name` label value of every series.
    ///
    /// Any string is accepted; the exposition escapes `\`, `"` and newlines. A name longer
    /// than [`MAX_MODEL_NAME_LEN`] bytes is exported truncated to that length (at a character
    /// boundary) and an empty name is exported as `model_name=""` (which Prometheus treats as
    /// no label); both are logged with `tracing::warn!` at registration.
    /// [`VllmMetrics::config`] still returns the name as given.
    pub model_name: String,
    /// Draft positions pre-resolved for `vllm:spec_decode_num_accepted_tokens_per_pos` (and the
    /// log-stats accumulator); positions beyond still record, through a bounded lookup.
    pub num_speculative_tokens: usize,
    /// The model's context length: the last bound of the token-count histograms (0 is treated
    /// as 1).
    pub max_model_len: u32,
    /// vLLM's `--show-hidden-metrics-for-version`: `Some("0.10")` also exposes
    /// `vllm:gpu_cache_usage_perc`, `vllm:gpu_prefix_cache_queries` and
    /// `vllm:gpu_prefix_cache_hits`; `Some("0.11")` exposes `vllm:time_per_output_token_seconds`.
    /// Each alias shares its current metric's series: no second recording path.
    pub show_hidden_metrics_for_version: Option<String>,
}

impl Default for VllmMetricsConfig {
    fn default() -> Self {
        VllmMetricsConfig {
            model_name: "model".to_owned(),
            num_speculative_tokens: 0,
            max_model_len: TOKENS_BUCKETS_DEFAULT_MAX,
            show_hidden_metrics_for_version: None,
        }
    }
}

impl VllmMetricsConfig {
    /// The [`RegisterOptions`] this configuration stands for: token buckets up to
    /// `max_model_len`, pre-resolved spec-decode positions, and the hidden-metrics version.
    pub fn register_options(&self) -> RegisterOptions {
        let mut options = RegisterOptions::new().positions(
            "vllm:spec_decode_num_accepted_tokens_per_pos",
            self.num_speculative_tokens,
        );
        for name in request::metrics::TOKEN_HISTOGRAMS {
            // `tokens_buckets` is non-empty, finite and strictly increasing for every input,
            // so the override cannot be rejected; a rejected one would leave the declared
            // buckets in force.
            let _ = options.buckets(*name, tokens_buckets(self.max_model_len));
        }
        if let Some(version) = &self.show_hidden_metrics_for_version {
            options = options.show_hidden_metrics_for_version(version.clone());
        }
        options
    }
}

/// Every vLLM metric, registered, with the scheduler and request recorders.
///
/// Cloning is cheap (two `Arc`s) and clones share everything. `Send + Sync`.
#[derive(Clone, Debug)]
pub struct VllmMetrics {
    scheduler: SchedulerStatsRecorder,
    requests: RequestMetricsRecorder,
}

impl VllmMetrics {
    /// Registers every scheduler and request metric in `registry`.
    ///
    /// No series exists until an engine is first seen (or added with
    /// [`SchedulerStatsRecorder::add_engine`]); from then on, every series of that engine is
    /// exported, the enum axes (`finished_reason`, `source`, `reason`) with all their values at 0.
    ///
    /// Register once per registry, whatever the number of models served: record a second
    /// model through [`VllmMetrics::with_model`], which shares these families.
    ///
    /// # Panics
    ///
    /// If `registry` already exposes one of the vLLM names (a second registration);
    /// [`VllmMetrics::try_register`] returns that error instead.
    pub fn register(registry: &mut Registry, config: VllmMetricsConfig) -> Self {
        match Self::try_register(registry, config) {
            Ok(metrics) => metrics,
            Err(error) => panic!("{error}"),
        }
    }

    /// Registers every scheduler and request metric in `registry`, unless `registry` already
    /// exposes one of their names (or a sample name they would write): then nothing is
    /// registered and the error names the collision. Two registrations into one registry would
    /// write every `# HELP`/`# TYPE` twice, which OpenMetrics parsers reject and Prometheus
    /// resolves by dropping samples.
    pub fn try_register(
        registry: &mut Registry,
        config: VllmMetricsConfig,
    ) -> Result<Self, RegistrationError> {
        let options = config.register_options();
        // Every name is checked before anything is registered, so a clash leaves the
        // registry as it was; each registration below then claims its own names.
        let mut claims = Vec::new();
        for (owner, descriptors) in registered_tables() {
            claims.extend(declared_claims(
                registry.scope(),
                owner,
                descriptors,
                Some(&options),
            ));
        }
        for descriptors in [
            NIXL_DESCRIPTORS,
            MOONCAKE_DESCRIPTORS,
            SLEEP_STATE_DESCRIPTORS,
        ] {
            claims.extend(declared_claims(
                registry.scope(),
                PLUG_IN_OWNER,
                descriptors,
                Some(&RegisterOptions::new()),
            ));
        }
        registry.check(&claims)?;
        let scheduler = SchedulerMetrics::try_register_with(registry, &options)?;
        let requests = RequestMetrics::try_register_with(registry, &options)?;
        let sleep_mode =
            SleepModeRecorder::new(&SleepModeMetrics::try_register_with(registry, &options)?);
        let lora = LoraInfoRecorder::new(&LoraInfoMetrics::try_register_with(registry, &options)?);
        let plugins = RuntimeFamilies::register_in(registry);
        for descriptors in [
            NIXL_DESCRIPTORS,
            MOONCAKE_DESCRIPTORS,
            SLEEP_STATE_DESCRIPTORS,
        ] {
            plugins.claim_declared(PLUG_IN_OWNER, descriptors)?;
        }
        // A plug-in family may not take a name vLLM exposes, even one hidden now (a
        // deprecated alias) or registered later (the HTTP families).
        for (owner, descriptors) in registered_tables() {
            plugins.reserve_declared(owner, descriptors);
        }
        plugins.reserve_declared("HttpMetrics", HttpMetrics::DESCRIPTORS);
        let overflowed_engines = Arc::new(OverflowedEngines::default());
        let families = Arc::new(Families {
            scheduler,
            requests,
            connectors: ConnectorFamilies::register(&plugins, Arc::clone(&overflowed_engines)),
            sleep_state: SleepStateFamilies::register(&plugins, Arc::clone(&overflowed_engines)),
            plugins,
            sleep_mode,
            lora,
            overflowed_engines,
        });
        Ok(Self::recorders(families, config))
    }

    /// Recorders for another model served by the same frontend, recording into the families
    /// this registration created: its series carry `model_name="<model_name>"` (bounded as
    /// [`VllmMetricsConfig::model_name`] says), its engines are its own (engine 0 of each model
    /// is a distinct label set), and removing one of its engines leaves the other models'
    /// series alone.
    ///
    /// Everything else is the registration's: bucket bounds (`max_model_len`: register with
    /// the largest context length served), pre-resolved spec-decode positions, hidden metrics,
    /// the plug-in families, and the sleep-mode and LoRA recorders. Keep one `VllmMetrics` per
    /// model: two for the same name would share series.
    ///
    /// ```
    /// use metric_handles::Registry;
    /// use metric_handles::vllm::{SchedulerStats, VllmMetrics, VllmMetricsConfig};
    ///
    /// let mut registry = Registry::default();
    /// let llama = VllmMetrics::register(&mut registry, VllmMetricsConfig {
    ///     model_name: "llama".into(),
    ///     ..Default::default()
    /// });
    /// let qwen = llama.with_model("qwen");
    /// llama.scheduler().record(0, &SchedulerStats { num_running_reqs: 3, ..Default::default() });
    /// qwen.scheduler().record(0, &SchedulerStats { num_running_reqs: 5, ..Default::default() });
    /// let text = metric_handles::ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    /// assert!(text.contains(r#"vllm:num_requests_running{model_name="llama",engine="0"} 3"#));
    /// assert!(text.contains(r#"vllm:num_requests_running{model_name="qwen",engine="0"} 5"#));
    /// assert_eq!(text.matches("# TYPE vllm:num_requests_running ").count(), 1);
    /// ```
    pub fn with_model(&self, model_name: impl Into<String>) -> Self {
        let config = VllmMetricsConfig {
            model_name: model_name.into(),
            ..self.config().clone()
        };
        Self::recorders(Arc::clone(&self.core().families), config)
    }

    fn recorders(families: Arc<Families>, config: VllmMetricsConfig) -> Self {
        let core = Arc::new(Core {
            families,
            engines: EngineTable::new(),
            model_label: model_label(&config.model_name),
            next_generation: AtomicU64::new(0),
            diagnostics: Arc::new(Diagnostics::default()),
            config,
        });
        VllmMetrics {
            scheduler: SchedulerStatsRecorder::new(Arc::clone(&core)),
            requests: RequestMetricsRecorder::new(core),
        }
    }

    /// The scheduler-stats recorder.
    pub fn scheduler(&self) -> &SchedulerStatsRecorder {
        &self.scheduler
    }

    /// The per-request metrics recorder.
    pub fn requests(&self) -> &RequestMetricsRecorder {
        &self.requests
    }

    /// The sleep-mode operation timer (`vllm:sleep_mode_operation_duration_seconds`,
    /// `vllm:sleep_mode_operations_in_flight`).
    pub fn sleep_mode(&self) -> &SleepModeRecorder {
        &self.scheduler.core().families.sleep_mode
    }

    /// The `vllm:lora_requests_info` recorder.
    pub fn lora(&self) -> &LoraInfoRecorder {
        &self.scheduler.core().families.lora
    }

    /// The run-time families of this registry, with `model_name` and `engine` first: where a
    /// third-party KV connector registers its own families. vLLM's NIXL, Mooncake-store and
    /// sleep-state families are registered here; every name this module registers (and the
    /// HTTP families' names) is reserved. A family registered here without extra label keys
    /// gets a series at zero for every present engine, and for each engine that joins later,
    /// as vLLM's connector adapter pre-creates them
    /// (`rust/src/engine-core-client/src/connector_metrics/adapter.rs`): a connector's
    /// `rate()` works from the first scrape, and an idle engine shows 0 rather than nothing.
    /// Series with extra label values appear on their first record. An engine's series in
    /// these families are removed with the engine; resolve them with
    /// [`resolve_for_engine`](Self::resolve_for_engine) so that a resolution racing the
    /// engine's leave cannot outlive it.
    pub fn plugin_families(&self) -> &RuntimeFamilies<EngineLabels> {
        &self.scheduler.core().families.plugins
    }

    /// Resolves a third-party connector's series of `engine` in
    /// [`plugin_families`](Self::plugin_families) so that they leave with the engine.
    ///
    /// `resolve` gets the families and the engine's labels, and runs while no engine can leave.
    /// The engine joins on first sight, as with a record. Resolve series here, not with a bare
    /// `get_or_create`, when a connector creates them lazily (on an engine's first report, say):
    /// a bare lookup that races the engine's leave creates series for an engine that is gone,
    /// and nothing removes them. Handles resolved here may be cached; after the engine leaves
    /// they keep working, unexported, and a connector should resolve again for the engine's
    /// next incarnation.
    ///
    /// `resolve` runs under the lock that engines' joins and leaves take: it should only look
    /// series up. It may record into engines that are present (that takes no lock, past the
    /// 256 lock-free slots too), but must not make an engine join or leave through these
    /// `VllmMetrics` (a record or `track` of an engine not present, `add_engine`,
    /// `remove_engine`): a join takes the engine table's lock, which comes before this one in
    /// the lock order, so it would wait forever for a join holding that lock (debug builds
    /// panic instead, naming both locks). Looking the engine up and checking that it is
    /// present take no lock, so a resolution never waits for a join of another engine.
    ///
    /// ```
    /// # use metric_handles::Registry;
    /// # use metric_handles::plugin::FamilySpec;
    /// # use metric_handles::vllm::{VllmMetrics, VllmMetricsConfig};
    /// # use metric_handles::Counter;
    /// let mut registry = Registry::default();
    /// let metrics = VllmMetrics::register(&mut registry, VllmMetricsConfig::default());
    /// let lookups = metrics
    ///     .plugin_families()
    ///     .register::<Counter>(
    ///         &FamilySpec::counter("acme:kv_lookups", "KV lookups by tier").label_keys(["tier"]),
    ///     )
    ///     .expect("a valid, free name");
    /// let host_lookups: Counter = metrics.resolve_for_engine(0, |_, labels| {
    ///     lookups.get_or_create(labels, &["host"]).expect("one value per key")
    /// });
    /// host_lookups.inc();
    /// ```
    pub fn resolve_for_engine<T>(
        &self,
        engine: u32,
        resolve: impl FnOnce(&RuntimeFamilies<EngineLabels>, &EngineLabels) -> T,
    ) -> T {
        let core = self.core();
        // Taken by the one attempt that finds its engine present.
        let mut resolve = Some(resolve);
        loop {
            let entry = core.engine_arc(engine);
            // A leave removes the engine from the table, then its series under this lock: an
            // entry still in the table here has all its series, and keeps them until we return.
            // The presence check is lock-free: this holds the joins-and-leaves lock, and a join
            // holds the membership lock, earlier in the lock order of `engines`.
            let resolved = core.families.overflowed_engines.resolve(|| {
                reached(TestPoint::ResolveAboutToCheckPresence);
                if !core.engines.is_present(engine, &entry) {
                    return None;
                }
                resolve
                    .take()
                    .map(|resolve| resolve(&core.families.plugins, &entry.labels))
            });
            if let Some(resolved) = resolved {
                return resolved;
            }
            // The engine left between the lookup and the lock: like a record, join it again.
        }
    }

    /// The configuration the metrics were registered with.
    pub fn config(&self) -> &VllmMetricsConfig {
        &self.scheduler.core().config
    }

    pub(crate) fn core(&self) -> &Arc<Core> {
        self.scheduler.core()
    }
}

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
    pub(crate) outputs_after_finish_warning: log::warn_limit::WarnLimiter,
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
                    families.plugins.remove_common(&entry.labels);
                    entry.connectors.leave();
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

/// Every name registered by the derived vLLM structs and the HTTP families, with aliases: a
/// plug-in family may not take one.
/// What registers vLLM's connector and sleep-state families, as a `RegistrationError` names it.
const PLUG_IN_OWNER: &str = "VllmMetrics";

/// The derived structs `VllmMetrics` registers, with their descriptor tables.
fn registered_tables() -> [(&'static str, &'static [MetricDescriptor]); 4] {
    [
        ("SchedulerMetrics", SchedulerMetrics::DESCRIPTORS),
        ("RequestMetrics", RequestMetrics::DESCRIPTORS),
        ("SleepModeMetrics", SleepModeMetrics::DESCRIPTORS),
        ("LoraInfoMetrics", LoraInfoMetrics::DESCRIPTORS),
    ]
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
