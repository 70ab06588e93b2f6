//! vLLM's histogram bucket bounds, exact (as defined in `rust/src/metrics/src/scheduler.rs`
//! and `rust/src/metrics/src/request.rs` of the vllm-project/vllm repository).
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

/// Preemptions a finished request went through (7 bounds).
pub const PREEMPTIONS_BUCKETS: &[f64] = &[1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 20.0];

/// NIXL transfer duration, seconds (12 bounds; vLLM's NIXL connector metrics).
pub const NIXL_XFER_TIME_BUCKETS: &[f64] = &[
    0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 5.0,
];

/// NIXL transfer post time, seconds (13 bounds).
pub const NIXL_POST_TIME_BUCKETS: &[f64] = &[
    0.001, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 5.0,
];

/// Bytes per NIXL transfer: 2 KiB to 8 GiB in powers of 4 (12 bounds, `2^(10 + i)` for odd
/// `i` in 1..25).
pub const NIXL_BYTES_BUCKETS: &[f64] = &[
    2048.0,
    8192.0,
    32768.0,
    131072.0,
    524288.0,
    2097152.0,
    8388608.0,
    33554432.0,
    134217728.0,
    536870912.0,
    2147483648.0,
    8589934592.0,
];

/// Descriptors per NIXL transfer (14 bounds).
pub const NIXL_DESCRIPTORS_BUCKETS: &[f64] = &[
    10.0, 20.0, 30.0, 50.0, 75.0, 100.0, 200.0, 400.0, 1000.0, 2000.0, 4000.0, 10000.0, 20000.0,
    50000.0,
];

/// Mooncake-store operation time, seconds (15 bounds; vLLM's Rust frontend,
/// `rust/src/metrics/src/scheduler.rs`, whose list differs from the Python connector's).
pub const MOONCAKE_OPERATION_TIME_BUCKETS: &[f64] = &[
    0.001, 0.005, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0,
];

/// Sleep-mode operation duration, seconds (9 bounds; vLLM's Rust frontend,
/// `rust/src/metrics/src/api_server.rs`).
pub const SLEEP_MODE_DURATION_BUCKETS: &[f64] =
    &[0.01, 0.1, 1.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0];

/// The default `max_model_len`, and so the last bound of the default token buckets.
pub const TOKENS_BUCKETS_DEFAULT_MAX: u32 = 131_072;

/// The token-count buckets for a model whose context holds `max_model_len` tokens: the 1-2-5
/// series ending in `max_model_len` (a `max_model_len` of 0 is treated as 1, so the list is
/// never empty).
pub(crate) fn tokens_buckets(max_model_len: u32) -> Vec<f64> {
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
            (PREEMPTIONS_BUCKETS, 7),
            (NIXL_XFER_TIME_BUCKETS, 12),
            (NIXL_POST_TIME_BUCKETS, 13),
            (NIXL_BYTES_BUCKETS, 12),
            (NIXL_DESCRIPTORS_BUCKETS, 14),
            (MOONCAKE_OPERATION_TIME_BUCKETS, 15),
            (SLEEP_MODE_DURATION_BUCKETS, 9),
        ] {
            assert_eq!(bounds.len(), len, "{bounds:?}");
            assert!(is_valid_bucket_list(bounds), "{bounds:?}");
        }
    }

    #[test]
    fn nixl_byte_buckets_are_two_to_the_ten_plus_each_odd_i_below_25() {
        let expected: Vec<f64> = (1..25)
            .step_by(2)
            .map(|i| f64::from(2u32).powi(10 + i))
            .collect();
        assert_eq!(NIXL_BYTES_BUCKETS, expected.as_slice());
        assert_eq!(NIXL_XFER_TIME_BUCKETS, &NIXL_POST_TIME_BUCKETS[1..]);
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
