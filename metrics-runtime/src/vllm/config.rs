//! [`VllmMetricsConfig`]: what the vLLM metrics are registered with, and the bounded
//! `model_name` label.

use crate::descriptor::MetricKind;
use crate::histogram::NativeConfig;
use crate::vllm::buckets::{tokens_buckets, TOKENS_BUCKETS_DEFAULT_MAX};
use crate::vllm::request::metrics::RequestMetrics;
use crate::RegisterOptions;

/// The longest `model_name` label value exported, in bytes. Every series carries the label,
/// and each family keeps its own copy of it: an unbounded name (a path, a prompt pasted by
/// mistake) would multiply into every scrape and every family's memory.
pub const MAX_MODEL_NAME_LEN: usize = 1024;

/// `name` as exported: truncated to [`MAX_MODEL_NAME_LEN`] bytes at a character boundary, with
/// a warning for a truncated or empty name.
pub(crate) fn model_label(name: &str) -> String {
    if name.is_empty() {
        tracing::warn!("vLLM metrics: empty model name; series carry model_name=\"\"");
    }
    if name.len() <= MAX_MODEL_NAME_LEN {
        return name.to_owned();
    }
    let mut end = MAX_MODEL_NAME_LEN;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    tracing::warn!(
        len = name.len(),
        max = MAX_MODEL_NAME_LEN,
        "vLLM metrics: model name too long; the model_name label is truncated"
    );
    name[..end].to_owned()
}

/// Registration-time configuration of the vLLM metrics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VllmMetricsConfig {
    /// The `model_name` label value of every series.
    ///
    /// Any string is accepted; the exposition escapes `\`, `"` and newlines. A name longer
    /// than [`MAX_MODEL_NAME_LEN`] bytes is exported truncated to that length (at a character
    /// boundary) and an empty name is exported as `model_name=""` (which Prometheus treats as
    /// no label); both are logged with `tracing::warn!` at registration.
    /// [`VllmMetrics::config`](crate::vllm::VllmMetrics::config) still returns the name as given.
    pub model_name: String,
    /// Draft positions pre-resolved for `vllm:spec_decode_num_accepted_tokens_per_pos` (and the
    /// log-stats accumulator); positions beyond still record, through a bounded lookup.
    pub num_speculative_tokens: usize,
    /// The model's context length: the last bound of the token-count histograms (0 is treated
    /// as 1).
    pub max_model_len: u32,
    /// vLLM's `--show-hidden-metrics-for-version`: `Some("0.10")` also exposes
    /// `vllm:gpu_cache_usage_perc`, `vllm:gpu_prefix_cache_queries` and
    /// `vllm:gpu_prefix_cache_hits`; `Some("0.11")` exposes `vllm:time_per_output_token_seconds`.
    /// Each alias shares its current metric's series: no second recording path.
    pub show_hidden_metrics_for_version: Option<String>,
    /// Native (sparse exponential) buckets beside the classic ones on every request-latency
    /// histogram (the `_seconds` histograms of a request: time to first token, inter-token
    /// latency, time per output token, end-to-end, queue, prefill, decode and inference time),
    /// laid out and bounded by this configuration; `None` (the default) keeps them classic
    /// only. A text scraper still gets the classic `_bucket` series; a scraper that asks for
    /// protobuf (Prometheus with native histograms on; feature `protobuf`) gets both.
    pub native_latency_histograms: Option<NativeConfig>,
}

impl Default for VllmMetricsConfig {
    fn default() -> Self {
        VllmMetricsConfig {
            model_name: "model".to_owned(),
            num_speculative_tokens: 0,
            max_model_len: TOKENS_BUCKETS_DEFAULT_MAX,
            show_hidden_metrics_for_version: None,
            native_latency_histograms: None,
        }
    }
}

impl VllmMetricsConfig {
    /// The [`RegisterOptions`] this configuration stands for: token buckets up to
    /// `max_model_len`, pre-resolved spec-decode positions, the hidden-metrics version, and
    /// native buckets on the request-latency histograms.
    pub fn register_options(&self) -> RegisterOptions {
        let mut options = RegisterOptions::new().positions(
            "vllm:spec_decode_num_accepted_tokens_per_pos",
            self.num_speculative_tokens,
        );
        for name in crate::vllm::request::metrics::TOKEN_HISTOGRAMS {
            // `tokens_buckets` is non-empty, finite and strictly increasing for every input,
            // so the override cannot be rejected; a rejected one would leave the declared
            // buckets in force.
            let _ = options.buckets(*name, tokens_buckets(self.max_model_len));
        }
        if let Some(version) = &self.show_hidden_metrics_for_version {
            options = options.show_hidden_metrics_for_version(version.clone());
        }
        if let Some(native) = self.native_latency_histograms {
            for name in request_latency_histograms() {
                options = options.native(name, Some(native));
            }
        }
        options
    }
}

/// The request-latency histograms: the request metrics' histograms of seconds (vLLM declares
/// no unit; the names end in `_seconds`).
pub(crate) fn request_latency_histograms() -> impl Iterator<Item = &'static str> {
    RequestMetrics::DESCRIPTORS
        .iter()
        .filter(|d| d.kind == MetricKind::Histogram && d.name.ends_with("_seconds"))
        .map(|d| d.name)
}
