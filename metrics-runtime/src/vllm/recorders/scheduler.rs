//! [`SchedulerStatsRecorder`]: finds each engine's cached handles and hands its
//! [`SchedulerStats`] to the scheduler families, the connector and sleep-state families and the
//! log-stats accumulator.

use std::fmt;
use std::sync::Arc;

use crate::vllm::log::interval::LogStatsInterval;
use crate::vllm::recorders::core::Core;
use crate::vllm::request::input::RequestOutput;
use crate::vllm::scheduler::input::SchedulerStats;
use crate::vllm::scheduler::record::iteration_tokens;

/// Records scheduler stats per engine. Obtained from
/// [`VllmMetrics::scheduler`](crate::vllm::VllmMetrics::scheduler); cheap to clone.
#[derive(Clone)]
pub struct SchedulerStatsRecorder {
    core: Arc<Core>,
}

impl SchedulerStatsRecorder {
    pub(crate) fn new(core: Arc<Core>) -> Self {
        SchedulerStatsRecorder { core }
    }

    pub(crate) fn core(&self) -> &Arc<Core> {
        &self.core
    }

    /// Records one `SchedulerStats` of `engine`.
    ///
    /// The first stats of an engine resolve its series (the slow path, once); after that this
    /// is atomic operations only: no hashing, no lock, no allocation. The exceptions are inputs
    /// that are themselves heap data or out of the configured range: CUDA-graph stats (counted
    /// in the log-stats accumulator under a short mutex) and spec-decode positions at or beyond
    /// `num_speculative_tokens` (a bounded lookup, never lost).
    ///
    /// Input rules:
    /// * `kv_cache_usage` is clamped to `0..=1` (NaN records 0);
    /// * counts above `i64::MAX` saturate in the gauges; counter increments saturate at
    ///   `u64::MAX` instead of wrapping;
    /// * connector, spec-decode stats are recorded only when present; perf stats only when
    ///   present and any of the three is non-zero;
    /// * `sleep_state`, when present, sets the engine's sleep-state gauges (resolved with its
    ///   first snapshot); a `sleep_state_only` update records nothing else;
    /// * local prefix-cache hits count as `device` in `vllm:prompt_tokens_cached_by_source`,
    ///   connector hits by their `hits_by_source`;
    /// * `kv_connector_stats`: every NIXL child records into the NIXL families; a Mooncake
    ///   operation x status pair resolves its series on its first record, then is cached (a
    ///   record through an engine entry that has left creates none);
    /// * eviction, NIXL and Mooncake durations: a negative value (including -Inf) records 0;
    ///   NaN and +Inf are counted in the `+Inf` bucket and kept out of `_sum` (the histogram's
    ///   rule, which also saturates `_sum` at `f64::MAX`);
    /// * per-position spec-decode values beyond `num_speculative_tokens` get their own series up
    ///   to [`DEFAULT_MAX_SERIES`](crate::limits::DEFAULT_MAX_SERIES) extra positions, then add to one
    ///   series labelled `otel_metric_overflow="true"`: never dropped;
    /// * an engine never seen joins (its series are resolved and exported).
    ///
    /// The table of every rule, with its test, is `docs/reliability.md`.
    pub fn record(&self, engine: u32, stats: &SchedulerStats) {
        let core = &*self.core;
        let entry = core.engine(engine);
        if let Some(state) = &stats.sleep_state {
            entry
                .sleep
                .record(&core.families.sleep_state, &entry.labels, state);
        }
        if stats.sleep_state_only {
            return;
        }
        entry.scheduler.record(stats);
        if let Some(spec) = &stats.spec_decoding_stats {
            entry
                .log_stats
                .add_spec_decode(spec.num_drafts, &spec.num_accepted_tokens_per_pos);
        }
        if let Some(cudagraph) = &stats.cudagraph_stats {
            entry.log_stats.add_cudagraph(cudagraph);
        }

        if let Some(connector) = &stats.kv_connector_stats {
            entry
                .connectors
                .record(&core.families.connectors, &entry.labels, connector);
        }
    }

    /// Observes `vllm:iteration_tokens_total` for `engine`: call once per non-empty output batch
    /// with the batch's tokens (see [`iteration_tokens`]). Lock- and allocation-free after the
    /// engine's first sight.
    pub fn record_iteration_tokens(&self, engine: u32, num_tokens: u64) {
        // u64 -> f64 is exact up to 2^53 tokens.
        self.core
            .engine(engine)
            .scheduler
            .iteration_tokens
            .observe(num_tokens as f64);
    }

    /// Observes `vllm:iteration_tokens_total` for one engine output batch, as vLLM's Rust
    /// frontend does: the batch's computed prompt tokens plus generated tokens
    /// ([`iteration_tokens`]), once per non-empty batch. An empty batch records nothing; a
    /// batch whose outputs carry no token and no prefill records 0.
    pub fn record_output_batch(&self, engine: u32, outputs: &[RequestOutput]) {
        if !outputs.is_empty() {
            self.record_iteration_tokens(engine, iteration_tokens(outputs));
        }
    }

    /// Resolves `engine`'s series now (exported at 0) instead of on its first stats.
    pub fn add_engine(&self, engine: u32) {
        drop(self.core.engine(engine));
    }

    /// Removes every series of `engine` (scheduler and request metrics) from the exposition,
    /// and forgets its cached handles and log stats. Returns whether the engine was present.
    ///
    /// Trackers of requests routed to it before keep recording into the detached handles,
    /// which are no longer exported. Stats for the engine after this make it join again, with
    /// fresh series.
    pub fn remove_engine(&self, engine: u32) -> bool {
        self.core.remove_engine(engine)
    }

    /// The engines present, in ascending order.
    pub fn engines(&self) -> Vec<u32> {
        self.core
            .engines
            .entries()
            .into_iter()
            .map(|(engine, _)| engine)
            .collect()
    }

    /// Returns what `engine`'s log-stats accumulator gathered since the last drain, and resets
    /// it. An engine never seen drains empty (and is not created).
    pub fn drain_log_stats(&self, engine: u32) -> LogStatsInterval {
        self.core
            .engines
            .entries()
            .into_iter()
            .find(|(e, _)| *e == engine)
            .map(|(_, entry)| entry.log_stats.drain())
            .unwrap_or_default()
    }
}

impl fmt::Debug for SchedulerStatsRecorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SchedulerStatsRecorder")
            .field("engines", &self.engines())
            .finish()
    }
}
