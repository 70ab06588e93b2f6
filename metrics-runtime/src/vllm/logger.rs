//! [`StatsLogger`]: vLLM's periodic log line, over whichever engines exist.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::vllm::log::interval::LogStatsInterval;
use crate::vllm::log::line::{CounterTotals, GaugeReadings, StatsLine};
use crate::vllm::metric_set::VllmMetrics;
use crate::vllm::recorders::core::EngineEntry;
use crate::vllm::request::metrics::PromptSource;

/// Computes vLLM's periodic log line (the format of vLLM's `LoggingStatLogger`) from counter deltas since the previous
/// line, over every engine present at the time of the line (engines need not start at 0), and
/// emits it with `tracing::info!`.
///
/// An engine that joined since the previous line counts from 0; one that left is dropped from
/// both sides of the delta; one that left and re-joined counts as new. Engines that joined
/// when the families already held their limit of label sets (2048 by default) share one
/// overflow series set: it is read once, as one engine, so the line counts their tokens once
/// (their gauges, shared, hold the last value any of them set, and go when the last of them
/// leaves).
#[derive(Debug)]
pub struct StatsLogger {
    metrics: VllmMetrics,
    interval: Duration,
    last: Instant,
    /// Totals at the previous line, by series set.
    previous: HashMap<SeriesKey, CounterTotals>,
}

/// Whose series a reading came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum SeriesKey {
    /// An engine incarnation's own series: (engine, incarnation).
    Engine(u32, u64),
    /// The overflow series every engine past the series limit shares.
    Overflow,
}

impl StatsLogger {
    /// A logger whose first interval starts now. `interval` is what
    /// [`log_if_due`](Self::log_if_due) waits for (vLLM's default is 10 s).
    pub fn new(metrics: &VllmMetrics, interval: Duration) -> Self {
        StatsLogger {
            metrics: metrics.clone(),
            interval,
            last: Instant::now(),
            previous: HashMap::new(),
        }
    }

    /// The configured interval.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// Logs a line if at least the interval has passed since the previous one.
    pub fn log_if_due(&mut self, now: Instant) -> Option<StatsLine> {
        (now.saturating_duration_since(self.last) >= self.interval).then(|| self.log(now))
    }

    /// Computes the line for the interval ending at `now`, emits it with `tracing::info!`, drains
    /// every engine's log stats, and starts the next interval.
    pub fn log(&mut self, now: Instant) -> StatsLine {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        let mut previous_sum = CounterTotals::default();
        let mut current_sum = CounterTotals::default();
        let mut gauges = GaugeReadings::default();
        let mut drained = LogStatsInterval::default();
        let mut next_previous = HashMap::new();
        let mut overflow_read = false;
        for (engine, entry) in self.metrics.core().engines.entries() {
            // Engines past the families' series limit share one overflow series: read it once.
            let key = if entry.overflowed {
                if overflow_read {
                    drained.merge(&entry.log_stats.drain());
                    continue;
                }
                overflow_read = true;
                SeriesKey::Overflow
            } else {
                SeriesKey::Engine(engine, entry.generation)
            };
            let current = read_totals(&entry);
            previous_sum.add(&self.previous.get(&key).copied().unwrap_or_default());
            current_sum.add(&current);
            next_previous.insert(key, current);
            let h = &entry.scheduler;
            gauges.running = gauges.running.saturating_add(h.num_requests_running.get());
            gauges.waiting = gauges.waiting.saturating_add(h.num_requests_waiting.get());
            gauges.kv_cache_usage_sum += h.kv_cache_usage.get();
            gauges.engines += 1;
            drained.merge(&entry.log_stats.drain());
        }
        // The overflow series' counters outlive the engines recording into them: when none is
        // present, keep their totals, so that the next engine past the limit is not credited
        // with everything they counted before.
        if let (false, Some(&totals)) = (overflow_read, self.previous.get(&SeriesKey::Overflow)) {
            next_previous.insert(SeriesKey::Overflow, totals);
        }
        let line = StatsLine::compute(&previous_sum, &current_sum, elapsed, &gauges, &drained);
        tracing::info!(target: "metric_handles::vllm", engines = gauges.engines, "{line}");
        self.previous = next_previous;
        self.last = now;
        line
    }
}

fn read_totals(entry: &EngineEntry) -> CounterTotals {
    let s = &entry.scheduler;
    let r = &entry.requests;
    CounterTotals {
        prompt_tokens_local_compute: r
            .prompt_tokens_by_source
            .get(PromptSource::LocalCompute)
            .get(),
        generation_tokens: r.generation_tokens.get(),
        prefix_cache_queries: s.prefix_cache_queries.get(),
        prefix_cache_hits: s.prefix_cache_hits.get(),
        external_prefix_cache_queries: s.external_prefix_cache_queries.get(),
        external_prefix_cache_hits: s.external_prefix_cache_hits.get(),
        spec_decode_num_drafts: s.spec_decode_num_drafts.get(),
        spec_decode_num_draft_tokens: s.spec_decode_num_draft_tokens.get(),
        spec_decode_num_accepted_tokens: s.spec_decode_num_accepted_tokens.get(),
    }
}
