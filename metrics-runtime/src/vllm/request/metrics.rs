//! The request metrics, one set per engine, declared with the derive.

use crate::vllm::buckets::{
    ITL_BUCKETS, PARAMS_N_BUCKETS, PREEMPTIONS_BUCKETS, REQUEST_LATENCY_BUCKETS,
    TOKENS_BUCKETS_DEFAULT_MAX, TTFT_BUCKETS,
};
use crate::vllm::labels::EngineLabels;
use crate::vllm::request::input::FinishReason;
use crate::{ByLabel, Counter, Family, Histogram, LabelEnum, MetricHandles};

/// The last bound of the token-count histograms as declared: the default `max_model_len`.
const TOKENS_MAX: f64 = TOKENS_BUCKETS_DEFAULT_MAX as f64;

/// Every request metric of one engine. Token-count histograms are declared with the default
/// `max_model_len` ([`TOKENS_BUCKETS_DEFAULT_MAX`]);
/// [`VllmMetrics::register`](crate::vllm::VllmMetrics::register) replaces their buckets with the
/// configured one's. Help texts are vLLM's.
///
/// `vllm:time_per_output_token_seconds` was deprecated in vLLM 0.11 (renamed
/// `vllm:inter_token_latency_seconds`, same observations) and is re-enabled there with
/// `--show-hidden-metrics-for-version=0.11`.
#[derive(Debug, MetricHandles)]
#[metric_handles(handles = RequestHandles, labels = EngineLabels)]
pub struct RequestMetrics {
    /// Count of successfully processed requests
    ///
    /// # Computed
    ///
    /// +1 for the finish reason when a request finishes (every reason counts, despite the name). A
    /// tracker dropped without a finish counts as `abort`, once. All five reasons are exported at 0
    /// from the engine's first sight.
    #[metric(name = "vllm:request_success", label = "finished_reason")]
    pub request_success: Family<EngineLabels, ByLabel<FinishReason, Counter>>,

    /// Prompt tokens summed over sequences, including prefix-cache hits; each parallel-sampling child counts its prompt separately. Equals the sum of vllm:prompt_tokens_by_source_total
    ///
    /// # Computed
    ///
    /// Increased by `prefill_stats.num_prompt_tokens` of the request's first token-carrying output,
    /// when that output has prefill stats (once per request).
    #[metric(name = "vllm:prompt_tokens")]
    pub prompt_tokens: Family<EngineLabels, Counter>,

    /// Number of prompt tokens by source
    ///
    /// # Computed
    ///
    /// Once per request, with the prompt counters: `local_compute` += `num_computed_tokens`,
    /// `local_cache_hit` += `num_local_cached_tokens`, `external_kv_transfer` +=
    /// `num_external_cached_tokens`.
    #[metric(name = "vllm:prompt_tokens_by_source", label = "source")]
    pub prompt_tokens_by_source: Family<EngineLabels, ByLabel<PromptSource, Counter>>,

    /// Number of prompt tokens with prefix cache hits
    ///
    /// # Computed
    ///
    /// Increased by `num_cached_tokens` with the prompt counters (once per request).
    #[metric(name = "vllm:prompt_tokens_cached")]
    pub prompt_tokens_cached: Family<EngineLabels, Counter>,

    /// Number of generation tokens processed
    ///
    /// # Computed
    ///
    /// Increased by the number of new tokens of every output, as the output arrives (only the
    /// inter-token-latency samples are merged in batches).
    #[metric(name = "vllm:generation_tokens")]
    pub generation_tokens: Family<EngineLabels, Counter>,

    /// Cumulative number of preemption events
    ///
    /// # Computed
    ///
    /// +1 per Preempted event in a request's outputs.
    #[metric(name = "vllm:num_preemptions")]
    pub num_preemptions: Family<EngineLabels, Counter>,

    /// Prompt length of each finished sequence; each parallel-sampling child is one observation
    ///
    /// # Computed
    ///
    /// Observes `prompt_len` when the request finishes.
    #[metric(
        name = "vllm:request_prompt_tokens",
        buckets = one_two_five(max = TOKENS_MAX)
    )]
    pub request_prompt_tokens: Family<EngineLabels, Histogram>,

    /// Number of generation tokens processed
    ///
    /// # Computed
    ///
    /// Observes the request's generated tokens when it finishes.
    #[metric(
        name = "vllm:request_generation_tokens",
        buckets = one_two_five(max = TOKENS_MAX)
    )]
    pub request_generation_tokens: Family<EngineLabels, Histogram>,

    /// Histogram of maximum number of requested generation tokens
    ///
    /// # Computed
    ///
    /// Observes the generated tokens when the request finishes; for a parallel-sampling parent
    /// (`track_parallel`), the most any child generated, once, when the last child finishes.
    #[metric(
        name = "vllm:request_max_num_generation_tokens",
        buckets = one_two_five(max = TOKENS_MAX)
    )]
    pub request_max_num_generation_tokens: Family<EngineLabels, Histogram>,

    /// Histogram of the max_tokens request parameter
    ///
    /// # Computed
    ///
    /// Observes `max_tokens_param` when the request finishes, only when it was given.
    #[metric(
        name = "vllm:request_params_max_tokens",
        buckets = one_two_five(max = TOKENS_MAX)
    )]
    pub request_params_max_tokens: Family<EngineLabels, Histogram>,

    /// Histogram of the n request parameter
    ///
    /// # Computed
    ///
    /// Observes `n_param` when the request finishes; for a parallel-sampling parent, the real `n`
    /// once, when the last child finishes.
    #[metric(name = "vllm:request_params_n", buckets = PARAMS_N_BUCKETS)]
    pub request_params_n: Family<EngineLabels, Histogram>,

    /// Histogram of new KV tokens computed during prefill (excluding cached tokens)
    ///
    /// # Computed
    ///
    /// Observes `prompt_len` minus the latest `prefill_stats.num_cached_tokens` seen (saturating
    /// at 0) when the request finishes.
    #[metric(
        name = "vllm:request_prefill_kv_computed_tokens",
        buckets = one_two_five(max = TOKENS_MAX)
    )]
    pub request_prefill_kv_computed_tokens: Family<EngineLabels, Histogram>,

    /// Histogram of the number of times a request was preempted
    ///
    /// # Computed
    ///
    /// Observes, when the request finishes, the number of Preempted events it went through (0 for
    /// most requests): one observation per finished request or child sequence.
    #[metric(name = "vllm:request_num_preemptions", buckets = PREEMPTIONS_BUCKETS)]
    pub request_num_preemptions: Family<EngineLabels, Histogram>,

    /// Histogram of time to first token in seconds
    ///
    /// # Computed
    ///
    /// Observes `received_at - arrival_time` on the request's first output that carries a token
    /// (never on a token-less output).
    #[metric(name = "vllm:time_to_first_token_seconds", buckets = TTFT_BUCKETS)]
    pub time_to_first_token: Family<EngineLabels, Histogram>,

    /// Histogram of inter-token latency in seconds
    ///
    /// # Computed
    ///
    /// Observes `batch_timestamp - last token's batch_timestamp` on every later output that carries
    /// a token: one sample per output batch, however many tokens it carries. The tracker keeps the
    /// samples and merges them every 32 generated tokens and at the finish, as vLLM's Rust frontend
    /// does (`VLLM_RS_ITL_FLUSH_INTERVAL_TOKENS`).
    #[metric(
        name = "vllm:inter_token_latency_seconds",
        buckets = ITL_BUCKETS,
        alias(name = "vllm:time_per_output_token_seconds", deprecated_in = "0.11")
    )]
    pub inter_token_latency: Family<EngineLabels, Histogram>,

    /// Histogram of time_per_output_token_seconds per request
    ///
    /// # Computed
    ///
    /// Observes decode time / (generated tokens - 1) when the request finishes with more than one
    /// token, else 0.
    #[metric(
        name = "vllm:request_time_per_output_token_seconds",
        buckets = ITL_BUCKETS
    )]
    pub request_time_per_output_token: Family<EngineLabels, Histogram>,

    /// Histogram of e2e request latency in seconds
    ///
    /// # Computed
    ///
    /// Observes `received_at - arrival_time` of the finishing output (or of the abort).
    #[metric(
        name = "vllm:e2e_request_latency_seconds",
        buckets = REQUEST_LATENCY_BUCKETS
    )]
    pub e2e_request_latency: Family<EngineLabels, Histogram>,

    /// Histogram of time spent in WAITING phase for request
    ///
    /// # Computed
    ///
    /// Observes `diff_or_zero(scheduled, queued)`: the first Scheduled event and the last Queued
    /// event; 0 unless both were seen.
    #[metric(
        name = "vllm:request_queue_time_seconds",
        buckets = REQUEST_LATENCY_BUCKETS
    )]
    pub request_queue_time: Family<EngineLabels, Histogram>,

    /// Histogram of time spent in PREFILL phase for request
    ///
    /// # Computed
    ///
    /// Observes `diff_or_zero(first token, scheduled)`: includes time spent preempted, since the
    /// first Scheduled event is kept.
    #[metric(
        name = "vllm:request_prefill_time_seconds",
        buckets = REQUEST_LATENCY_BUCKETS
    )]
    pub request_prefill_time: Family<EngineLabels, Histogram>,

    /// Histogram of time spent in DECODE phase for request
    ///
    /// # Computed
    ///
    /// Observes `diff_or_zero(last token, first token)` (engine clock).
    #[metric(
        name = "vllm:request_decode_time_seconds",
        buckets = REQUEST_LATENCY_BUCKETS
    )]
    pub request_decode_time: Family<EngineLabels, Histogram>,

    /// Histogram of time spent in RUNNING phase for request
    ///
    /// # Computed
    ///
    /// Observes `diff_or_zero(last token, scheduled)` (engine clock).
    #[metric(
        name = "vllm:request_inference_time_seconds",
        buckets = REQUEST_LATENCY_BUCKETS
    )]
    pub request_inference_time: Family<EngineLabels, Histogram>,
}

/// The primary names of the token-count histograms, whose buckets follow `max_model_len`.
pub(crate) const TOKEN_HISTOGRAMS: &[&str] = &[
    "vllm:request_prompt_tokens",
    "vllm:request_generation_tokens",
    "vllm:request_max_num_generation_tokens",
    "vllm:request_params_max_tokens",
    "vllm:request_prefill_kv_computed_tokens",
];

/// Where prompt tokens came from: the `source` label of `vllm:prompt_tokens_by_source`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum PromptSource {
    /// Computed by this engine's prefill.
    LocalCompute,
    /// Served from this engine's prefix cache.
    LocalCacheHit,
    /// Transferred from an external KV store (KV connector).
    ExternalKvTransfer,
}
