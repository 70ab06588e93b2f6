//! [`VllmMetrics`]: every vLLM metric registered, with the recorders that write them.

use std::sync::Arc;

use crate::descriptor::MetricDescriptor;
use crate::family::RuntimeFamilies;
use crate::http::HttpMetrics;
use crate::registry::Registry;
use crate::vllm::cache_config::{CacheConfigMetrics, CacheConfigRecorder};
use crate::vllm::config::VllmMetricsConfig;
use crate::vllm::connectors::metrics::{ConnectorFamilies, MOONCAKE_DESCRIPTORS, NIXL_DESCRIPTORS};
use crate::vllm::engines::test_points::{reached, TestPoint};
use crate::vllm::engines::OverflowedEngines;
use crate::vllm::labels::EngineLabels;
use crate::vllm::lora::{LoraInfoMetrics, LoraInfoRecorder};
use crate::vllm::recorders::core::{Core, Families};
use crate::vllm::recorders::requests::RequestMetricsRecorder;
use crate::vllm::recorders::scheduler::SchedulerStatsRecorder;
use crate::vllm::request::metrics::RequestMetrics;
use crate::vllm::scheduler::metrics::SchedulerMetrics;
use crate::vllm::sleep::mode::{SleepModeMetrics, SleepModeRecorder};
use crate::vllm::sleep::state::{SleepStateFamilies, SLEEP_STATE_DESCRIPTORS};
use crate::{RegisterOptions, RegistrationError};

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
    #[track_caller]
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
        let declarations: Vec<(&str, &[MetricDescriptor], &RegisterOptions)> = registered_tables()
            .into_iter()
            .map(|(owner, descriptors)| (owner, descriptors, &options))
            .collect();
        registry.check_available(&declarations)?;
        // One set of options for every struct: each gets the overrides of its own metrics.
        let only = |descriptors: &[MetricDescriptor]| options.for_descriptors(descriptors);
        let scheduler =
            SchedulerMetrics::try_register_with(registry, &only(SchedulerMetrics::DESCRIPTORS))?;
        let requests =
            RequestMetrics::try_register_with(registry, &only(RequestMetrics::DESCRIPTORS))?;
        let sleep_mode = SleepModeRecorder::new(&SleepModeMetrics::try_register_with(
            registry,
            &only(SleepModeMetrics::DESCRIPTORS),
        )?);
        let lora = LoraInfoRecorder::new(&LoraInfoMetrics::try_register_with(
            registry,
            &only(LoraInfoMetrics::DESCRIPTORS),
        )?);
        let cache_config = CacheConfigRecorder::new(&CacheConfigMetrics::try_register_with(
            registry,
            &only(CacheConfigMetrics::DESCRIPTORS),
        )?);
        let overflowed_engines = Arc::new(OverflowedEngines::default());
        let connectors =
            ConnectorFamilies::register(registry, &only, Arc::clone(&overflowed_engines))?;
        let sleep_state = SleepStateFamilies::register(
            registry,
            &only(SLEEP_STATE_DESCRIPTORS),
            Arc::clone(&overflowed_engines),
        )?;
        let plugins = RuntimeFamilies::register_in(registry);
        // A plug-in family may not take a name vLLM exposes, even one hidden now (a
        // deprecated alias) or registered later (the HTTP families).
        for (owner, descriptors) in registered_tables() {
            plugins.reserve_declared(owner, descriptors);
        }
        plugins.reserve_declared("HttpMetrics", HttpMetrics::DESCRIPTORS);
        let families = Arc::new(Families {
            scheduler,
            requests,
            connectors,
            sleep_state,
            plugins,
            sleep_mode,
            lora,
            cache_config,
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
    /// use metric_handles::vllm::{VllmMetrics, VllmMetricsConfig};
    /// use metric_handles::vllm::scheduler::SchedulerStats;
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
        let core = Arc::new(Core::new(families, config));
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

    /// The `vllm:cache_config_info` recorder: set each engine's KV-cache configuration.
    pub fn cache_config(&self) -> &CacheConfigRecorder {
        &self.scheduler.core().families.cache_config
    }

    /// The `vllm:lora_requests_info` recorder.
    pub fn lora(&self) -> &LoraInfoRecorder {
        &self.scheduler.core().families.lora
    }

    /// The run-time families of this registry, with `model_name` and `engine` first: where a
    /// third-party KV connector registers its own families (a derived struct with
    /// `try_register_in`, or `FamilySpec`s); every name this module registers (and the HTTP
    /// families' names) is reserved. A family registered here without extra label keys
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
    /// # use metric_handles::family::FamilySpec;
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

/// The derived structs `VllmMetrics` registers, with their descriptor tables.
fn registered_tables() -> [(&'static str, &'static [MetricDescriptor]); 8] {
    [
        ("SchedulerMetrics", SchedulerMetrics::DESCRIPTORS),
        ("RequestMetrics", RequestMetrics::DESCRIPTORS),
        ("SleepModeMetrics", SleepModeMetrics::DESCRIPTORS),
        ("LoraInfoMetrics", LoraInfoMetrics::DESCRIPTORS),
        ("CacheConfigMetrics", CacheConfigMetrics::DESCRIPTORS),
        ("NixlMetrics", NIXL_DESCRIPTORS),
        ("MooncakeMetrics", MOONCAKE_DESCRIPTORS),
        ("SleepStateMetrics", SLEEP_STATE_DESCRIPTORS),
    ]
}
