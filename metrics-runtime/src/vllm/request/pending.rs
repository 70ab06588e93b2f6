//! A request's per-output records, kept in the tracker and merged into its engine's series in
//! one step every [`FLUSH_INTERVAL_TOKENS`] generated tokens, at the finish (output, abort or
//! drop) and on an explicit flush.

use crate::HistogramBuffer;

use crate::vllm::request::metrics::RequestHandles;
use crate::vllm::values::saturating_inc_by;

/// Generated tokens between two merges of a request's per-output records: vLLM's Rust
/// frontend's default (`VLLM_RS_ITL_FLUSH_INTERVAL_TOKENS` = 32, vLLM pull request 57582),
/// and the same rule: the first token counts towards it, and an output that reaches it merges
/// once and starts the next interval after itself.
///
/// A scrape during a request therefore lags it by fewer than 32 generated tokens in
/// `vllm:generation_tokens` and fewer than 32 samples in `vllm:inter_token_latency_seconds`
/// (each sample needs an output with at least one token).
pub const FLUSH_INTERVAL_TOKENS: u64 = 32;

/// The records of outputs since the last merge: plain integers and a fixed buffer, so the
/// per-output path has no locked instruction and allocates nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct PendingOutputs {
    /// `vllm:generation_tokens` not merged yet; also what counts towards the interval.
    generation_tokens: u64,
    /// `vllm:inter_token_latency_seconds` samples not merged yet.
    inter_token_latency: HistogramBuffer,
}

impl PendingOutputs {
    /// Records one output's tokens and ITL sample, and merges into `handles` when the
    /// interval is reached.
    #[inline]
    pub(crate) fn record(
        &mut self,
        handles: &RequestHandles,
        generation_tokens: u64,
        itl: Option<f64>,
    ) {
        self.generation_tokens = self.generation_tokens.saturating_add(generation_tokens);
        if let Some(itl) = itl {
            // Samples never outnumber tokens (a sample needs a token-carrying output), so the
            // interval keeps the buffer from filling; were it full, it is merged, not dropped.
            if !self.inter_token_latency.push(itl) {
                self.flush(handles);
                let _ = self.inter_token_latency.push(itl);
            }
        }
        if self.generation_tokens >= FLUSH_INTERVAL_TOKENS || self.inter_token_latency.is_full() {
            self.flush(handles);
        }
    }

    /// Merges everything pending into `handles` and clears it. Merging nothing touches
    /// nothing.
    #[inline]
    pub(crate) fn flush(&mut self, handles: &RequestHandles) {
        saturating_inc_by(&handles.generation_tokens, self.generation_tokens);
        self.generation_tokens = 0;
        if !self.inter_token_latency.is_empty() {
            handles
                .inter_token_latency
                .merge(&mut self.inter_token_latency);
        }
    }
}
