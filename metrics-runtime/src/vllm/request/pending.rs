//! A request's inter-token-latency samples, kept in the tracker and merged into its engine's
//! series in one step every [`FLUSH_INTERVAL_TOKENS`] generated tokens, at the finish (output,
//! abort or drop) and on an explicit flush. `vllm:generation_tokens` is not kept here: the
//! tracker adds each output's tokens to the counter as the output arrives, as vLLM's Rust
//! frontend does (`rust/src/llm/src/request_metrics.rs`), which batches only these samples.

use std::time::SystemTime;

use crate::exemplar::EncodedLabels;
use crate::histogram::HistogramBuffer;
use crate::local::DEFAULT_FLUSH_INTERVAL;

use crate::vllm::request::metrics::RequestHandles;

/// Generated tokens between two merges of a request's inter-token-latency samples: vLLM's
/// Rust frontend's default (`VLLM_RS_ITL_FLUSH_INTERVAL_TOKENS` = 32, vLLM pull request
/// 57582), and the same rule: the first token counts towards it, and an output that reaches
/// it merges once and starts the next interval after itself. It is
/// [`DEFAULT_FLUSH_INTERVAL`], the interval of every request-local view, counted in tokens.
///
/// A scrape during a request therefore lags it by fewer than 32 samples in
/// `vllm:inter_token_latency_seconds` (each sample needs an output with at least one token);
/// `vllm:generation_tokens` does not lag.
pub const FLUSH_INTERVAL_TOKENS: u64 = DEFAULT_FLUSH_INTERVAL as u64;

/// The samples of outputs since the last merge, and the tokens that count towards the next:
/// a plain integer and a fixed buffer, so the per-output path has no locked instruction and
/// allocates nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct PendingItl {
    /// Generated tokens since the last merge: what counts towards the interval.
    tokens_since_merge: u64,
    /// `vllm:inter_token_latency_seconds` samples not merged yet.
    samples: HistogramBuffer,
    /// The last sample pushed: the exemplar value a merge writes when the request has a trace
    /// id (one exemplar per merge, not per token).
    last_sample: f64,
}

impl PendingItl {
    /// Counts one output's tokens towards the interval and keeps its ITL sample; merges into
    /// `handles` when the interval is reached, with `trace` as the exemplar of the last sample.
    #[inline]
    pub(crate) fn record(
        &mut self,
        handles: &RequestHandles,
        generation_tokens: u64,
        itl: Option<f64>,
        trace: Option<&EncodedLabels>,
    ) {
        self.tokens_since_merge = self.tokens_since_merge.saturating_add(generation_tokens);
        if let Some(itl) = itl {
            // Samples never outnumber tokens (a sample needs a token-carrying output), so the
            // interval keeps the buffer from filling; were it full, it is merged, not dropped.
            if !self.samples.push(itl) {
                self.flush(handles, trace);
                let _ = self.samples.push(itl);
            }
            self.last_sample = itl;
        }
        if self.tokens_since_merge >= FLUSH_INTERVAL_TOKENS || self.samples.is_full() {
            self.flush(handles, trace);
        }
    }

    /// Merges every pending sample into `handles` and starts the next interval; with a
    /// `trace`, the last sample merged becomes its bucket's exemplar. Merging nothing touches
    /// nothing.
    #[inline]
    pub(crate) fn flush(&mut self, handles: &RequestHandles, trace: Option<&EncodedLabels>) {
        self.tokens_since_merge = 0;
        if !self.samples.is_empty() {
            handles.inter_token_latency.merge(&mut self.samples);
            if let Some(trace) = trace {
                // Checked when the trace id was set: only a write racing another on the same
                // bucket can fail, and that one is counted in `dropped_exemplars`.
                let _ = handles.inter_token_latency.set_exemplar(
                    self.last_sample,
                    trace,
                    Some(SystemTime::now()),
                );
            }
        }
    }
}
