//! The request lifecycle as a pure state machine: what to record, as plain values.
//!
//! [`RequestLifecycle`] implements vLLM's per-request metric arithmetic without touching a
//! metric: each output yields
//! an [`OutputRecord`], the finish a [`FinishRecord`]. The tracker
//! ([`RequestMetricsTracker`](crate::vllm::RequestMetricsTracker)) writes those into cached handles.
//! Keeping the arithmetic here makes every edge case unit-testable on its own.

use crate::vllm::request::input::{EventType, FinishReason, RequestOutput};
use crate::vllm::values::{diff_or_zero, elapsed_or_zero};

/// The request parameters a tracker is created with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RequestParams {
    /// When the frontend received the request: wall clock, unix seconds.
    pub arrival_time: f64,
    /// Prompt length in tokens.
    pub prompt_len: u32,
    /// The `max_tokens` sampling parameter, when the client gave one.
    pub max_tokens_param: Option<u32>,
    /// The `n` sampling parameter (number of parallel sequences).
    pub n_param: u32,
}

impl Default for RequestParams {
    fn default() -> Self {
        RequestParams {
            arrival_time: 0.0,
            prompt_len: 0,
            max_tokens_param: None,
            n_param: 1,
        }
    }
}

/// The prompt counters a request adds once, on its first token-carrying output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PromptRecord {
    /// `vllm:prompt_tokens`.
    pub prompt_tokens: u32,
    /// `vllm:prompt_tokens_by_source{source="local_compute"}`.
    pub local_compute: u32,
    /// `vllm:prompt_tokens_by_source{source="local_cache_hit"}`.
    pub local_cache_hit: u32,
    /// `vllm:prompt_tokens_by_source{source="external_kv_transfer"}`.
    pub external_kv_transfer: u32,
    /// `vllm:prompt_tokens_cached`.
    pub cached: u32,
}

/// What one output of a request asks to record. Small and `Copy`: one is made per output, on
/// the hottest path of a frontend. An output's finish is applied apart, with
/// [`RequestLifecycle::finish`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OutputRecord {
    /// Added to `vllm:generation_tokens`.
    pub generation_tokens: u64,
    /// Added to `vllm:num_preemptions` (one per Preempted event).
    pub preemptions: u64,
    /// The prompt counters, on the first token-carrying output when it has prefill stats.
    pub prompt: Option<PromptRecord>,
    /// A time-to-first-token sample, seconds.
    pub ttft: Option<f64>,
    /// An inter-token-latency sample, seconds.
    pub itl: Option<f64>,
}

/// What a request's finish asks to record. Every duration is finite and `>= 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FinishRecord {
    /// `vllm:request_success{finished_reason}` += 1.
    pub reason: FinishReason,
    /// `vllm:request_prompt_tokens`.
    pub prompt_tokens: u32,
    /// `vllm:request_generation_tokens`.
    pub generation_tokens: u64,
    /// `vllm:request_max_num_generation_tokens` and `vllm:request_params_n`: `None` for a child
    /// of a parallel-sampling parent, whose parent records them once for all children.
    pub parent_fields: Option<ParentFields>,
    /// `vllm:request_params_max_tokens`, only when the parameter was given.
    pub max_tokens_param: Option<u32>,
    /// `vllm:request_prefill_kv_computed_tokens`: prompt length minus the latest cached count.
    pub prefill_kv_computed_tokens: u32,
    /// `vllm:request_num_preemptions`: the Preempted events the request went through.
    pub preemptions: u64,
    /// `vllm:e2e_request_latency_seconds`.
    pub e2e: f64,
    /// `vllm:request_queue_time_seconds`.
    pub queue: f64,
    /// `vllm:request_prefill_time_seconds`.
    pub prefill: f64,
    /// `vllm:request_decode_time_seconds`.
    pub decode: f64,
    /// `vllm:request_inference_time_seconds`.
    pub inference: f64,
    /// `vllm:request_time_per_output_token_seconds`.
    pub time_per_output_token: f64,
}

/// The two values recorded once per parent request (or per request when `n` is not split).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParentFields {
    /// `vllm:request_params_n`.
    pub n: u32,
    /// `vllm:request_max_num_generation_tokens`: the most tokens any sequence generated.
    pub max_generation_tokens: u64,
}

/// One request's state between outputs.
#[derive(Clone, Debug)]
pub struct RequestLifecycle {
    params: RequestParams,
    is_child: bool,
    generation_tokens: u64,
    preemptions: u64,
    latest_cached_tokens: u32,
    queued_ts: Option<f64>,
    scheduled_ts: Option<f64>,
    first_token_ts: Option<f64>,
    last_token_ts: Option<f64>,
    finished: bool,
}

impl RequestLifecycle {
    /// A request that records everything itself, `request_params_n` included.
    pub fn new(params: RequestParams) -> Self {
        RequestLifecycle {
            params,
            is_child: false,
            generation_tokens: 0,
            preemptions: 0,
            latest_cached_tokens: 0,
            queued_ts: None,
            scheduled_ts: None,
            first_token_ts: None,
            last_token_ts: None,
            finished: false,
        }
    }

    /// One sequence of a parallel-sampling parent: it records everything except
    /// `request_params_n` and `request_max_num_generation_tokens`, which the parent records once.
    pub fn new_child(params: RequestParams) -> Self {
        RequestLifecycle {
            is_child: true,
            ..Self::new(params)
        }
    }

    /// Whether the finish has been recorded.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Tokens generated so far.
    pub fn generation_tokens(&self) -> u64 {
        self.generation_tokens
    }

    /// Preempted events seen so far.
    pub fn preemptions(&self) -> u64 {
        self.preemptions
    }

    /// The request parameters.
    pub fn params(&self) -> &RequestParams {
        &self.params
    }

    /// Applies one output, except its finish reason: a caller passes `output.finish_reason`,
    /// when there is one, to [`finish`](Self::finish) after recording the returned record (so
    /// that the finish sees this output's tokens and timestamps).
    ///
    /// Returns `None`, changing nothing, when the request has already finished: an output after
    /// the finish is ignored (the caller reports it).
    #[inline]
    pub fn observe_output(
        &mut self,
        batch_timestamp: f64,
        received_at: f64,
        output: &RequestOutput,
    ) -> Option<OutputRecord> {
        if self.finished {
            return None;
        }
        let mut record = OutputRecord::default();
        if let Some(prefill) = &output.prefill_stats {
            self.latest_cached_tokens = prefill.num_cached_tokens;
        }
        let new_tokens = u64::try_from(output.new_token_ids.len()).unwrap_or(u64::MAX);
        self.generation_tokens = self.generation_tokens.saturating_add(new_tokens);
        record.generation_tokens = new_tokens;
        for &(event, timestamp) in &output.events {
            match event {
                EventType::Queued => self.queued_ts = Some(timestamp),
                EventType::Scheduled => {
                    // The first Scheduled event wins, so that prefill/decode/inference time of
                    // a preempted request includes the time it spent preempted (as vLLM does).
                    self.scheduled_ts.get_or_insert(timestamp);
                }
                EventType::Preempted => {
                    record.preemptions += 1;
                    self.preemptions = self.preemptions.saturating_add(1);
                }
            }
        }
        if new_tokens > 0 {
            match self.last_token_ts {
                None => {
                    record.prompt = output.prefill_stats.map(|p| PromptRecord {
                        prompt_tokens: p.num_prompt_tokens,
                        local_compute: p.num_computed_tokens,
                        local_cache_hit: p.num_local_cached_tokens,
                        external_kv_transfer: p.num_external_cached_tokens,
                        cached: p.num_cached_tokens,
                    });
                    record.ttft = Some(elapsed_or_zero(received_at, self.params.arrival_time));
                    self.first_token_ts = Some(batch_timestamp);
                }
                Some(last) => record.itl = Some(elapsed_or_zero(batch_timestamp, last)),
            }
            self.last_token_ts = Some(batch_timestamp);
        }
        Some(record)
    }

    /// Finishes the request with `reason` at wall-clock time `received_at`: for an
    /// explicit abort, a dropped tracker, or a finish reason on an output. Returns `None` when
    /// the request had already finished, so a request is finished exactly once.
    pub fn finish(&mut self, reason: FinishReason, received_at: f64) -> Option<FinishRecord> {
        if self.finished {
            return None;
        }
        self.finished = true;
        // "Not seen" is 0 for vLLM's diff_or_zero.
        let ts = |t: Option<f64>| t.unwrap_or(0.0);
        let decode = diff_or_zero(ts(self.last_token_ts), ts(self.first_token_ts));
        let time_per_output_token = if self.generation_tokens > 1 {
            // u64 -> f64 loses precision only beyond 2^53 tokens.
            decode / (self.generation_tokens - 1) as f64
        } else {
            0.0
        };
        Some(FinishRecord {
            reason,
            prompt_tokens: self.params.prompt_len,
            generation_tokens: self.generation_tokens,
            parent_fields: (!self.is_child).then_some(ParentFields {
                n: self.params.n_param,
                max_generation_tokens: self.generation_tokens,
            }),
            max_tokens_param: self.params.max_tokens_param,
            prefill_kv_computed_tokens: self
                .params
                .prompt_len
                .saturating_sub(self.latest_cached_tokens),
            preemptions: self.preemptions,
            e2e: elapsed_or_zero(received_at, self.params.arrival_time),
            queue: diff_or_zero(ts(self.scheduled_ts), ts(self.queued_ts)),
            prefill: diff_or_zero(ts(self.first_token_ts), ts(self.scheduled_ts)),
            decode,
            inference: diff_or_zero(ts(self.last_token_ts), ts(self.scheduled_ts)),
            time_per_output_token,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vllm::request::input::PrefillStats;

    fn params() -> RequestParams {
        RequestParams {
            arrival_time: 1000.0,
            prompt_len: 10,
            max_tokens_param: Some(4),
            n_param: 1,
        }
    }

    fn out(tokens: usize, events: &[(EventType, f64)]) -> RequestOutput {
        RequestOutput {
            new_token_ids: vec![7; tokens],
            events: events.to_vec(),
            ..RequestOutput::default()
        }
    }

    /// A finish's durations: e2e, queue, prefill, decode, inference, time per output token.
    fn durations(fin: &FinishRecord) -> [f64; 6] {
        [
            fin.e2e,
            fin.queue,
            fin.prefill,
            fin.decode,
            fin.inference,
            fin.time_per_output_token,
        ]
    }

    #[test]
    fn a_full_lifecycle_yields_every_value() {
        let mut r = RequestLifecycle::new(params());
        let mut first = out(
            1,
            &[(EventType::Queued, 10.0), (EventType::Scheduled, 10.5)],
        );
        first.prefill_stats = Some(PrefillStats {
            num_prompt_tokens: 10,
            num_computed_tokens: 6,
            num_cached_tokens: 4,
            num_local_cached_tokens: 3,
            num_external_cached_tokens: 1,
        });
        let rec = r.observe_output(11.0, 1001.25, &first).unwrap();
        assert_eq!(rec.generation_tokens, 1);
        assert_eq!(rec.ttft, Some(1.25));
        assert_eq!(rec.itl, None);
        assert_eq!(
            rec.prompt,
            Some(PromptRecord {
                prompt_tokens: 10,
                local_compute: 6,
                local_cache_hit: 3,
                external_kv_transfer: 1,
                cached: 4
            })
        );
        let rec = r.observe_output(11.5, 1001.8, &out(2, &[])).unwrap();
        assert_eq!((rec.ttft, rec.itl, rec.prompt), (None, Some(0.5), None));
        let mut last = out(1, &[]);
        last.finish_reason = Some(FinishReason::Length);
        let rec = r.observe_output(13.0, 1003.0, &last).unwrap();
        assert_eq!(rec.itl, Some(1.5));
        assert!(
            !r.is_finished(),
            "the finish reason is the caller's to apply"
        );
        let fin = r.finish(FinishReason::Length, 1003.0).unwrap();
        assert_eq!(fin.reason, FinishReason::Length);
        assert_eq!(fin.generation_tokens, 4);
        assert_eq!(
            fin.parent_fields,
            Some(ParentFields {
                n: 1,
                max_generation_tokens: 4
            })
        );
        assert_eq!(fin.prefill_kv_computed_tokens, 6);
        assert_eq!(durations(&fin), [3.0, 0.5, 0.5, 2.0, 2.5, 2.0 / 3.0]);
        assert!(r.is_finished());
        assert_eq!(r.observe_output(14.0, 1004.0, &out(1, &[])), None);
        assert_eq!(r.finish(FinishReason::Abort, 1005.0), None);
    }

    #[test]
    fn preemption_keeps_the_first_scheduled_time_and_counts_each_event() {
        let mut r = RequestLifecycle::new(params());
        r.observe_output(
            1.0,
            1000.1,
            &out(0, &[(EventType::Queued, 1.0), (EventType::Scheduled, 2.0)]),
        );
        r.observe_output(3.0, 1000.2, &out(1, &[]));
        let rec = r
            .observe_output(
                4.0,
                1000.3,
                &out(0, &[(EventType::Preempted, 4.0), (EventType::Queued, 4.0)]),
            )
            .unwrap();
        assert_eq!(rec.preemptions, 1);
        r.observe_output(6.0, 1000.4, &out(0, &[(EventType::Scheduled, 6.0)]));
        r.observe_output(7.0, 1000.5, &out(1, &[]));
        let fin = r.finish(FinishReason::Stop, 1001.0).unwrap();
        assert_eq!(r.preemptions(), 1);
        // The last Queued event wins: queue = scheduled(first, 2.0) - queued(last, 4.0) < 0 → 0.
        assert_eq!(durations(&fin), [1.0, 0.0, 1.0, 4.0, 5.0, 4.0]);
    }

    #[test]
    fn finishing_without_tokens_observes_zero_phases() {
        let mut r = RequestLifecycle::new(params());
        let mut abort = out(0, &[(EventType::Queued, 5.0)]);
        abort.finish_reason = Some(FinishReason::Abort);
        let rec = r.observe_output(6.0, 1002.0, &abort).unwrap();
        assert_eq!((rec.ttft, rec.itl, rec.prompt), (None, None, None));
        let fin = r.finish(FinishReason::Abort, 1002.0).unwrap();
        assert_eq!(durations(&fin), [2.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(fin.generation_tokens, 0);
        assert_eq!(fin.prefill_kv_computed_tokens, 10);
    }

    #[test]
    fn bad_timestamps_never_yield_negative_or_non_finite_values() {
        let mut r = RequestLifecycle::new(RequestParams {
            arrival_time: f64::NAN,
            ..params()
        });
        let rec = r
            .observe_output(
                f64::INFINITY,
                -5.0,
                &out(1, &[(EventType::Scheduled, f64::NAN)]),
            )
            .unwrap();
        assert_eq!(rec.ttft, Some(0.0));
        let rec = r.observe_output(1.0, 2.0, &out(1, &[])).unwrap();
        assert_eq!(rec.itl, Some(0.0));
        let fin = r.finish(FinishReason::Error, f64::NEG_INFINITY).unwrap();
        for v in durations(&fin) {
            assert!(v.is_finite() && v >= 0.0, "{fin:?}");
        }
    }

    #[test]
    fn children_leave_the_parent_fields_to_the_parent() {
        let mut r = RequestLifecycle::new_child(RequestParams {
            n_param: 3,
            ..params()
        });
        assert_eq!(
            r.finish(FinishReason::Stop, 1001.0).unwrap().parent_fields,
            None
        );
    }
}
