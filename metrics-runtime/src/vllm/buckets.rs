//! vLLM's histogram bucket bounds (spec section 2), exact.
//!
//! The token-count histograms use the 1-2-5 series up to the model's context length
//! ([`one_two_five`](crate::buckets::one_two_five)); their default, for a 131072-token context,
//! is [`TOKENS_BUCKETS_DEFAULT_MAX`], and [`VllmMetricsConfig::max_model_len`] overrides it at
//! registration.
//!
//! [`VllmMetricsConfig::max_model_len`]: super::VllmMetricsConfig::max_model_len

/// Time to first token, seconds (22 bounds).
pub const TTFT_BUCKETS: &[f64] = &[
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
    20.0, 40.0, 80.0, 160.0, 640.0, 2560.0,
];

/// Inter-token latency and time per output token, seconds (19 bounds).
pub const ITL_BUCKETS: &[f64] = &[
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
    40.0, 80.0,
];

/// End-to-end, queue, prefill, decode and inference time, seconds (21 bounds).
pub const REQUEST_LATENCY_BUCKETS: &[f64] = &[
    0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
    480.0, 960.0, 1920.0, 7680.0,
];

/// The `n` sampling parameter (5 bounds).
pub const PARAMS_N_BUCKETS: &[f64] = &[1.0, 2.0, 5.0, 10.0, 20.0];

/// Tokens per engine step (13 bounds).
pub const ITERATION_TOKENS_BUCKETS: &[f64] = &[
    1.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0,
];

/// KV-cache block residency (lifetime, idle before eviction, reuse gap), seconds (21 bounds).
pub const KV_RESIDENCY_BUCKETS: &[f64] = &[
    0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0,
    120.0, 300.0, 600.0, 1200.0, 1800.0,
];

/// The default `max_model_len`, and so the last bound of the default token buckets.
pub const TOKENS_BUCKETS_DEFAULT_MAX: u32 = 131_072;

/// The token-count buckets for a model whose context holds `max_model_len` tokens: the 1-2-5
/// series ending in `max_model_len` (a `max_model_len` of 0 is treated as 1, so the list is
/// never empty).
pub fn tokens_buckets(max_model_len: u32) -> Vec<f64> {
    crate::buckets::one_two_five(f64::from(max_model_len.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buckets::is_valid_bucket_list;

    #[test]
    fn bucket_lists_have_the_spec_lengths_and_are_valid() {
        for (bounds, len) in [
            (TTFT_BUCKETS, 22),
            (ITL_BUCKETS, 19),
            (REQUEST_LATENCY_BUCKETS, 21),
            (PARAMS_N_BUCKETS, 5),
            (ITERATION_TOKENS_BUCKETS, 13),
            (KV_RESIDENCY_BUCKETS, 21),
        ] {
            assert_eq!(bounds.len(), len, "{bounds:?}");
            assert!(is_valid_bucket_list(bounds), "{bounds:?}");
        }
    }

    #[test]
    fn token_buckets_follow_the_one_two_five_rule() {
        assert_eq!(
            tokens_buckets(TOKENS_BUCKETS_DEFAULT_MAX),
            [
                1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0,
                10000.0, 20000.0, 50000.0, 100000.0, 131072.0
            ]
        );
        assert_eq!(
            tokens_buckets(4096),
            [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 4096.0]
        );
        assert_eq!(tokens_buckets(0), [1.0]);
    }
}
