//! What a request's records write into its engine's request families: each output's tokens,
//! prompt counts and time to first token, the finish's histograms, and the inter-token
//! latencies, merged from a request-local view every [`FLUSH_INTERVAL_TOKENS`] tokens. The
//! request's lifecycle, its parallel-sampling parent and the ignored input are the tracker's
//! ([`RequestMetricsTracker`](crate::vllm::RequestMetricsTracker)).

use std::time::SystemTime;

use crate::exemplar::EncodedLabels;
use crate::local::{LocalHistogram, DEFAULT_FLUSH_INTERVAL};
use crate::vllm::request::lifecycle::{FinishRecord, OutputRecord, ParentFields};
use crate::vllm::request::metrics::{PromptSource, RequestHandles};

/// Generated tokens between two merges of a request's inter-token-latency samples: vLLM's
/// Rust frontend's default (`VLLM_RS_ITL_FLUSH_INTERVAL_TOKENS` = 32, vLLM pull request
/// 57582), and the same rule: the first token counts towards it, and an output that reaches
/// it merges once and starts the next interval after itself. It is
/// [`DEFAULT_FLUSH_INTERVAL`], the interval of every request-local view, counted in tokens
/// ([`LocalHistogram::observe_counting`]).
///
/// A scrape during a request therefore lags it by fewer than 32 samples in
/// `vllm:inter_token_latency_seconds` (each sample needs an output with at least one token);
/// `vllm:generation_tokens` does not lag.
pub const FLUSH_INTERVAL_TOKENS: u64 = DEFAULT_FLUSH_INTERVAL as u64;

impl RequestHandles {
    /// Writes one output's record, with `trace` as the exemplar of its token increment and
    /// time to first token. Its inter-token latency is [`Itl`]'s.
    #[inline]
    pub(crate) fn record_output(&self, record: &OutputRecord, trace: Option<&EncodedLabels>) {
        // Live, as vLLM counts it: a scrape mid-request sees every token generated so far. A
        // token-less output adds nothing, and touches nothing.
        match trace {
            Some(trace) if record.generation_tokens > 0 => {
                // The labels were checked when set: only a write racing another on the same
                // slot fails, and it is counted in `dropped_exemplars`; the tokens are added
                // whatever happens to the exemplar.
                let _ = self
                    .generation_tokens
                    .inc_by_with_exemplar(record.generation_tokens, trace);
            }
            _ => {
                self.generation_tokens.inc_by(record.generation_tokens);
            }
        }
        // Preempted events are rare and not per token: recorded as they happen, so an alert on
        // preemptions does not wait for the request's next merge.
        self.num_preemptions.inc_by(record.preemptions);
        if let Some(prompt) = &record.prompt {
            self.prompt_tokens.inc_by(u64::from(prompt.prompt_tokens));
            let by_source = &self.prompt_tokens_by_source;
            by_source
                .get(PromptSource::LocalCompute)
                .inc_by(u64::from(prompt.local_compute));
            by_source
                .get(PromptSource::LocalCacheHit)
                .inc_by(u64::from(prompt.local_cache_hit));
            by_source
                .get(PromptSource::ExternalKvTransfer)
                .inc_by(u64::from(prompt.external_kv_transfer));
            self.prompt_tokens_cached.inc_by(u64::from(prompt.cached));
        }
        if let Some(ttft) = record.ttft {
            match trace {
                Some(trace) => {
                    let _ = self.time_to_first_token.observe_with_exemplar(ttft, trace);
                }
                None => self.time_to_first_token.observe(ttft),
            }
        }
    }

    /// Writes the finish's record, with `trace` as the exemplar of its end-to-end latency. A
    /// parallel-sampling child's finish carries no parent fields: the parent's are written
    /// once, with [`record_parent_fields`](Self::record_parent_fields).
    pub(crate) fn record_finish(&self, finish: &FinishRecord, trace: Option<&EncodedLabels>) {
        self.request_success.get(finish.reason).inc();
        self.request_prompt_tokens
            .observe(f64::from(finish.prompt_tokens));
        self.request_generation_tokens
            .observe(finish.generation_tokens as f64);
        if let Some(max_tokens) = finish.max_tokens_param {
            self.request_params_max_tokens
                .observe(f64::from(max_tokens));
        }
        self.request_prefill_kv_computed_tokens
            .observe(f64::from(finish.prefill_kv_computed_tokens));
        // u64 -> f64 is exact up to 2^53 preemptions.
        self.request_num_preemptions
            .observe(finish.preemptions as f64);
        match trace {
            Some(trace) => {
                let _ = self
                    .e2e_request_latency
                    .observe_with_exemplar(finish.e2e, trace);
            }
            None => self.e2e_request_latency.observe(finish.e2e),
        }
        self.request_queue_time.observe(finish.queue);
        self.request_prefill_time.observe(finish.prefill);
        self.request_decode_time.observe(finish.decode);
        self.request_inference_time.observe(finish.inference);
        self.request_time_per_output_token
            .observe(finish.time_per_output_token);
        if let Some(fields) = &finish.parent_fields {
            self.record_parent_fields(fields);
        }
    }

    /// Writes what is recorded once per parent request: its `n` and the most tokens a
    /// sequence generated.
    pub(crate) fn record_parent_fields(&self, fields: &ParentFields) {
        self.request_params_n.observe(f64::from(fields.n));
        self.request_max_num_generation_tokens
            .observe(fields.max_generation_tokens as f64);
    }
}

/// The request's `vllm:inter_token_latency_seconds` samples: a request-local view of its
/// engine's histogram, merged every [`FLUSH_INTERVAL_TOKENS`] generated tokens, and the last
/// sample, which becomes the exemplar of each merge when the request has a trace id (one
/// exemplar per merge, not per token).
pub(crate) struct Itl {
    view: LocalHistogram,
    last: f64,
}

impl Itl {
    /// An empty view of `handles`' inter-token-latency histogram.
    pub(crate) fn of(handles: &RequestHandles) -> Self {
        Itl {
            view: handles
                .inter_token_latency
                .local_with_interval(DEFAULT_FLUSH_INTERVAL),
            last: 0.0,
        }
    }

    /// Counts one output's tokens towards the interval and keeps its sample, if it has one.
    #[inline]
    pub(crate) fn record(&mut self, record: &OutputRecord, trace: Option<&EncodedLabels>) {
        if let Some(itl) = record.itl {
            self.last = itl;
        }
        if self
            .view
            .observe_counting(record.itl, record.generation_tokens)
        {
            self.exemplar(trace);
        }
    }

    /// Merges the samples kept so far, if any.
    pub(crate) fn flush(&mut self, trace: Option<&EncodedLabels>) {
        if self.view.flush() {
            self.exemplar(trace);
        }
    }

    /// After a merge: with a `trace`, the last sample merged becomes its bucket's exemplar.
    fn exemplar(&self, trace: Option<&EncodedLabels>) {
        if let Some(trace) = trace {
            // Checked when the trace id was set: only a write racing another on the same
            // bucket can fail, and that one is counted in `dropped_exemplars`.
            let _ = self
                .view
                .histogram()
                .set_exemplar(self.last, trace, Some(SystemTime::now()));
        }
    }
}
