//! The arithmetic and text of vLLM's periodic log line, on plain values.
//!
//! [`StatsLogger`](crate::vllm::StatsLogger) reads the metrics into [`CounterTotals`] and
//! [`GaugeReadings`]; [`StatsLine::compute`] turns two readings and the drained log stats into
//! the line. Nothing here touches a metric.

use std::fmt;

use crate::vllm::log::interval::LogStatsInterval;

/// Cumulative counter values at one instant, summed over every engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CounterTotals {
    /// `vllm:prompt_tokens_by_source{source="local_compute"}`.
    pub prompt_tokens_local_compute: u64,
    /// `vllm:generation_tokens`.
    pub generation_tokens: u64,
    /// `vllm:prefix_cache_queries`.
    pub prefix_cache_queries: u64,
    /// `vllm:prefix_cache_hits`.
    pub prefix_cache_hits: u64,
    /// `vllm:external_prefix_cache_queries`.
    pub external_prefix_cache_queries: u64,
    /// `vllm:external_prefix_cache_hits`.
    pub external_prefix_cache_hits: u64,
    /// `vllm:spec_decode_num_drafts`.
    pub spec_decode_num_drafts: u64,
    /// `vllm:spec_decode_num_draft_tokens`.
    pub spec_decode_num_draft_tokens: u64,
    /// `vllm:spec_decode_num_accepted_tokens`.
    pub spec_decode_num_accepted_tokens: u64,
}

impl CounterTotals {
    /// Adds another engine's totals (saturating).
    pub fn add(&mut self, other: &CounterTotals) {
        for (sum, v) in self.paired_with(other) {
            *sum = sum.saturating_add(v);
        }
    }

    /// `self - earlier`, field by field, saturating at 0 (a counter that went down was reset).
    pub fn since(&self, earlier: &CounterTotals) -> CounterTotals {
        let mut delta = *self;
        for (value, before) in delta.paired_with(earlier) {
            *value = value.saturating_sub(before);
        }
        delta
    }

    /// Every field of `self`, to update, beside the same field of `other`: the one list of
    /// fields the field-by-field operations share.
    fn paired_with(&mut self, other: &CounterTotals) -> [(&mut u64, u64); 9] {
        // No `..`: a new field does not compile until it is paired here too.
        let CounterTotals {
            prompt_tokens_local_compute,
            generation_tokens,
            prefix_cache_queries,
            prefix_cache_hits,
            external_prefix_cache_queries,
            external_prefix_cache_hits,
            spec_decode_num_drafts,
            spec_decode_num_draft_tokens,
            spec_decode_num_accepted_tokens,
        } = self;
        [
            (
                prompt_tokens_local_compute,
                other.prompt_tokens_local_compute,
            ),
            (generation_tokens, other.generation_tokens),
            (prefix_cache_queries, other.prefix_cache_queries),
            (prefix_cache_hits, other.prefix_cache_hits),
            (
                external_prefix_cache_queries,
                other.external_prefix_cache_queries,
            ),
            (external_prefix_cache_hits, other.external_prefix_cache_hits),
            (spec_decode_num_drafts, other.spec_decode_num_drafts),
            (
                spec_decode_num_draft_tokens,
                other.spec_decode_num_draft_tokens,
            ),
            (
                spec_decode_num_accepted_tokens,
                other.spec_decode_num_accepted_tokens,
            ),
        ]
    }
}

/// Gauge values at one instant, over every engine.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct GaugeReadings {
    /// Σ `vllm:num_requests_running`.
    pub running: i64,
    /// Σ `vllm:num_requests_waiting`.
    pub waiting: i64,
    /// Σ `vllm:kv_cache_usage_perc` (fractions).
    pub kv_cache_usage_sum: f64,
    /// How many engines were read.
    pub engines: usize,
}

/// The speculative-decoding part of the line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpecDecodeLine {
    /// `1 + Δaccepted / Δdrafts`.
    pub mean_acceptance_length: f64,
    /// `Δaccepted / elapsed`, tokens/s.
    pub accepted_throughput: f64,
    /// `Δdraft_tokens / elapsed`, tokens/s.
    pub drafted_throughput: f64,
    /// `Δaccepted`.
    pub accepted_tokens: u64,
    /// `Δdraft_tokens`.
    pub drafted_tokens: u64,
    /// Drained per-position accepted / drained drafts.
    pub per_position_acceptance_rate: Vec<f64>,
    /// `Δaccepted / Δdraft_tokens × 100` (0 without draft tokens).
    pub draft_acceptance_rate_percent: f64,
}

/// One periodic log line over every engine (vLLM's `LoggingStatLogger` equivalent).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StatsLine {
    /// Engines the line covers.
    pub engines: usize,
    /// Seconds since the previous line.
    pub elapsed_seconds: f64,
    /// `Δprompt_tokens_by_source{local_compute} / elapsed`, tokens/s.
    pub prompt_throughput: f64,
    /// `Δgeneration_tokens / elapsed`, tokens/s.
    pub generation_throughput: f64,
    /// Σ running gauge.
    pub running: i64,
    /// Σ waiting gauge.
    pub waiting: i64,
    /// Mean KV-cache usage over engines × 100 (0 with no engine).
    pub kv_cache_usage_percent: f64,
    /// `Δhits / Δqueries × 100` (0 when there were no queries).
    pub prefix_cache_hit_rate_percent: f64,
    /// The same for the external (KV connector) cache, when it was queried in the interval.
    pub external_prefix_cache_hit_rate_percent: Option<f64>,
    /// Present when drafts were proposed in the interval.
    pub spec_decode: Option<SpecDecodeLine>,
}

/// `numerator / denominator`, 0 when the denominator is 0 or the result not finite.
fn ratio(numerator: f64, denominator: f64) -> f64 {
    let r = numerator / denominator;
    if denominator != 0.0 && r.is_finite() {
        r
    } else {
        0.0
    }
}

impl StatsLine {
    /// Computes the line from the totals at the previous and current line, the seconds between
    /// them, the current gauges and the log stats drained for the interval.
    pub(crate) fn compute(
        previous: &CounterTotals,
        current: &CounterTotals,
        elapsed_seconds: f64,
        gauges: &GaugeReadings,
        drained: &LogStatsInterval,
    ) -> StatsLine {
        let delta = current.since(previous);
        let elapsed = if elapsed_seconds.is_finite() && elapsed_seconds > 0.0 {
            elapsed_seconds
        } else {
            0.0
        };
        let per_second = |n: u64| ratio(n as f64, elapsed);
        let spec_decode = (delta.spec_decode_num_drafts > 0).then(|| SpecDecodeLine {
            mean_acceptance_length: 1.0
                + ratio(
                    delta.spec_decode_num_accepted_tokens as f64,
                    delta.spec_decode_num_drafts as f64,
                ),
            accepted_throughput: per_second(delta.spec_decode_num_accepted_tokens),
            drafted_throughput: per_second(delta.spec_decode_num_draft_tokens),
            accepted_tokens: delta.spec_decode_num_accepted_tokens,
            drafted_tokens: delta.spec_decode_num_draft_tokens,
            per_position_acceptance_rate: drained
                .accepted_per_pos
                .iter()
                .map(|&a| ratio(a as f64, drained.num_drafts as f64))
                .collect(),
            draft_acceptance_rate_percent: ratio(
                delta.spec_decode_num_accepted_tokens as f64,
                delta.spec_decode_num_draft_tokens as f64,
            ) * 100.0,
        });
        StatsLine {
            engines: gauges.engines,
            elapsed_seconds: elapsed,
            prompt_throughput: per_second(delta.prompt_tokens_local_compute),
            generation_throughput: per_second(delta.generation_tokens),
            running: gauges.running,
            waiting: gauges.waiting,
            kv_cache_usage_percent: ratio(gauges.kv_cache_usage_sum, gauges.engines as f64) * 100.0,
            prefix_cache_hit_rate_percent: ratio(
                delta.prefix_cache_hits as f64,
                delta.prefix_cache_queries as f64,
            ) * 100.0,
            external_prefix_cache_hit_rate_percent: (delta.external_prefix_cache_queries > 0).then(
                || {
                    ratio(
                        delta.external_prefix_cache_hits as f64,
                        delta.external_prefix_cache_queries as f64,
                    ) * 100.0
                },
            ),
            spec_decode,
        }
    }
}

impl fmt::Display for StatsLine {
    /// vLLM's wording and precision; the spec-decode part (vLLM's second line) follows after
    /// `"; "` so that one interval is one log record.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Avg prompt throughput: {:.1} tokens/s, Avg generation throughput: {:.1} tokens/s, \
             Running: {} reqs, Waiting: {} reqs, GPU KV cache usage: {:.1}%, \
             Prefix cache hit rate: {:.1}%",
            self.prompt_throughput,
            self.generation_throughput,
            self.running,
            self.waiting,
            self.kv_cache_usage_percent,
            self.prefix_cache_hit_rate_percent,
        )?;
        if let Some(rate) = self.external_prefix_cache_hit_rate_percent {
            write!(f, ", External prefix cache hit rate: {rate:.1}%")?;
        }
        if let Some(spec) = &self.spec_decode {
            write!(
                f,
                "; SpecDecoding metrics: Mean acceptance length: {:.2}, \
                 Accepted throughput: {:.2} tokens/s, Drafted throughput: {:.2} tokens/s, \
                 Accepted: {} tokens, Drafted: {} tokens, Per-position acceptance rate: ",
                spec.mean_acceptance_length,
                spec.accepted_throughput,
                spec.drafted_throughput,
                spec.accepted_tokens,
                spec.drafted_tokens,
            )?;
            for (i, rate) in spec.per_position_acceptance_rate.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{rate:.3}")?;
            }
            write!(
                f,
                ", Avg Draft acceptance rate: {:.1}%",
                spec.draft_acceptance_rate_percent
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throughput_usage_and_hit_rate() {
        let previous = CounterTotals {
            prompt_tokens_local_compute: 100,
            generation_tokens: 50,
            prefix_cache_queries: 10,
            prefix_cache_hits: 0,
            ..Default::default()
        };
        let current = CounterTotals {
            prompt_tokens_local_compute: 300,
            generation_tokens: 150,
            prefix_cache_queries: 50,
            prefix_cache_hits: 10,
            ..Default::default()
        };
        let gauges = GaugeReadings {
            running: 3,
            waiting: 1,
            kv_cache_usage_sum: 0.5,
            engines: 2,
        };
        let line = StatsLine::compute(&previous, &current, 10.0, &gauges, &Default::default());
        assert_eq!(line.prompt_throughput, 20.0);
        assert_eq!(line.generation_throughput, 10.0);
        assert_eq!(line.kv_cache_usage_percent, 25.0);
        assert_eq!(line.prefix_cache_hit_rate_percent, 25.0);
        assert_eq!(line.external_prefix_cache_hit_rate_percent, None);
        assert_eq!(line.spec_decode, None);
        assert_eq!(
            line.to_string(),
            "Avg prompt throughput: 20.0 tokens/s, Avg generation throughput: 10.0 tokens/s, \
             Running: 3 reqs, Waiting: 1 reqs, GPU KV cache usage: 25.0%, \
             Prefix cache hit rate: 25.0%"
        );
    }

    #[test]
    fn nothing_to_divide_by_gives_zeros_not_nan() {
        let line = StatsLine::compute(
            &CounterTotals {
                generation_tokens: 5,
                ..Default::default()
            },
            &CounterTotals::default(),
            0.0,
            &GaugeReadings::default(),
            &Default::default(),
        );
        assert_eq!(line.generation_throughput, 0.0);
        assert_eq!(line.kv_cache_usage_percent, 0.0);
        assert_eq!(line.prefix_cache_hit_rate_percent, 0.0);
    }

    #[test]
    fn a_spec_decode_interval_renders_like_vllm() {
        let previous = CounterTotals {
            spec_decode_num_drafts: 10,
            spec_decode_num_draft_tokens: 100,
            spec_decode_num_accepted_tokens: 40,
            ..Default::default()
        };
        let current = CounterTotals {
            spec_decode_num_drafts: 14,
            spec_decode_num_draft_tokens: 120,
            spec_decode_num_accepted_tokens: 52,
            ..Default::default()
        };
        let drained = LogStatsInterval {
            num_drafts: 4,
            accepted_per_pos: vec![4, 2, 1],
            ..Default::default()
        };
        let line = StatsLine::compute(
            &previous,
            &current,
            2.0,
            &GaugeReadings::default(),
            &drained,
        );
        assert!(line.to_string().ends_with(
            "; SpecDecoding metrics: Mean acceptance length: 4.00, Accepted throughput: 6.00 tokens/s, \
             Drafted throughput: 10.00 tokens/s, Accepted: 12 tokens, Drafted: 20 tokens, \
             Per-position acceptance rate: 1.000, 0.500, 0.250, Avg Draft acceptance rate: 60.0%"
        ), "{line}");
        let spec = line.spec_decode.expect("spec-decode section");
        assert_eq!(spec.mean_acceptance_length, 4.0);
        assert_eq!(spec.accepted_throughput, 6.0);
        assert_eq!(spec.drafted_throughput, 10.0);
        assert_eq!(spec.per_position_acceptance_rate, [1.0, 0.5, 0.25]);
        assert_eq!(spec.draft_acceptance_rate_percent, 60.0);
    }
}
