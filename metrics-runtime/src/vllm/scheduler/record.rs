//! What one engine's [`SchedulerStats`] write into its scheduler families, and the
//! `vllm:iteration_tokens_total` value of an output batch. The engine's lookup, its connector
//! telemetry, sleep snapshot and log-stats accumulator are the recorder's
//! ([`SchedulerStatsRecorder`](crate::vllm::SchedulerStatsRecorder)).

use crate::vllm::request::input::RequestOutput;
use crate::vllm::scheduler::input::SchedulerStats;
use crate::vllm::scheduler::metrics::{CacheHitSource, SchedulerHandles, WaitingReason};
use crate::vllm::values::{clamp_fraction, gauge_value, non_negative};

impl SchedulerHandles {
    /// Writes `stats` into this engine's scheduler series: atomic operations only, except a
    /// spec-decode position beyond the pre-resolved ones (a bounded lookup). The input rules
    /// are [`SchedulerStatsRecorder::record`](crate::vllm::SchedulerStatsRecorder::record)'s.
    #[inline]
    pub(crate) fn record(&self, stats: &SchedulerStats) {
        self.num_requests_running
            .set(gauge_value(stats.num_running_reqs));
        self.num_requests_waiting.set(gauge_value(
            stats
                .num_waiting_reqs
                .saturating_add(stats.num_skipped_waiting_reqs),
        ));
        self.num_requests_waiting_by_reason
            .get(WaitingReason::Capacity)
            .set(gauge_value(stats.num_waiting_reqs));
        self.num_requests_waiting_by_reason
            .get(WaitingReason::Deferred)
            .set(gauge_value(stats.num_skipped_waiting_reqs));
        self.kv_cache_usage
            .set(clamp_fraction(stats.kv_cache_usage));

        self.prefix_cache_queries
            .inc_by(stats.prefix_cache_stats.queries);
        self.prefix_cache_hits.inc_by(stats.prefix_cache_stats.hits);
        let cached_by_source = &self.prompt_tokens_cached_by_source;
        // Every local prefix-cache hit is served from device memory.
        cached_by_source
            .get(CacheHitSource::Device)
            .inc_by(stats.prefix_cache_stats.hits);
        if let Some(connector) = &stats.connector_prefix_cache_stats {
            self.external_prefix_cache_queries.inc_by(connector.queries);
            self.external_prefix_cache_hits.inc_by(connector.hits);
            for (source, counter) in cached_by_source.iter() {
                counter.inc_by(connector.hits_by_source.get(source));
            }
        }

        if let Some(spec) = &stats.spec_decoding_stats {
            self.spec_decode_num_drafts.inc_by(spec.num_drafts);
            self.spec_decode_num_draft_tokens
                .inc_by(spec.num_draft_tokens);
            self.spec_decode_num_accepted_tokens
                .inc_by(spec.num_accepted_tokens);
            for (position, &accepted) in spec.num_accepted_tokens_per_pos.iter().enumerate() {
                if accepted != 0 {
                    self.spec_decode_num_accepted_tokens_per_pos
                        .get_or_create(position)
                        .inc_by(accepted);
                }
            }
        }

        if let Some(perf) = &stats.perf_stats {
            if perf.num_flops_per_gpu != 0
                || perf.num_read_bytes_per_gpu != 0
                || perf.num_write_bytes_per_gpu != 0
            {
                self.estimated_flops_per_gpu.inc_by(perf.num_flops_per_gpu);
                self.estimated_read_bytes_per_gpu
                    .inc_by(perf.num_read_bytes_per_gpu);
                self.estimated_write_bytes_per_gpu
                    .inc_by(perf.num_write_bytes_per_gpu);
            }
        }

        for event in &stats.kv_cache_eviction_events {
            self.kv_block_lifetime
                .observe(non_negative(event.lifetime_seconds));
            self.kv_block_idle_before_evict
                .observe(non_negative(event.idle_seconds));
            for &gap in &event.reuse_gaps_seconds {
                self.kv_block_reuse_gap.observe(non_negative(gap));
            }
        }
    }
}

/// The `vllm:iteration_tokens_total` value of one output batch: over its outputs, new tokens
/// plus `prefill_stats.num_computed_tokens` when present (saturating).
pub fn iteration_tokens<'a>(outputs: impl IntoIterator<Item = &'a RequestOutput>) -> u64 {
    outputs.into_iter().fold(0u64, |sum, output| {
        let new = u64::try_from(output.new_token_ids.len()).unwrap_or(u64::MAX);
        let computed = output
            .prefill_stats
            .map_or(0, |p| u64::from(p.num_computed_tokens));
        sum.saturating_add(new).saturating_add(computed)
    })
}
