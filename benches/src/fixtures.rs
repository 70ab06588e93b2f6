//! Inputs shared by every implementation under comparison, so that they do the same work.

/// vLLM's inter-token-latency bucket bounds (19 finite bounds). ITL is the
/// histogram observed most often: once per output batch of every running request.
pub const ITL_BUCKETS: [f64; 19] = [
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
    40.0, 80.0,
];

/// The model name of the label set: a realistic length, since label sets are hashed per
/// lookup by the baselines.
pub const MODEL_NAME: &str = "meta-llama/Llama-3.1-8B-Instruct";

/// How many observation values [`observations`] returns (a power of two, for cheap indexing).
pub const OBSERVATIONS: usize = 1024;

/// Deterministic observation values spread log-uniformly over 1 ms .. 100 s, so they fall in
/// every bucket of [`ITL_BUCKETS`] (and `+Inf`) in an order a branch predictor cannot learn.
/// Benchmarks index it with `i & (OBSERVATIONS - 1)`.
pub fn observations() -> Vec<f64> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..OBSERVATIONS)
        .map(|_| {
            // xorshift64: good enough to scatter values, and identical on every run.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
            10f64.powf(-3.0 + 5.0 * unit)
        })
        .collect()
}

/// vLLM's bucket lists of different lengths, for the bucket-search
/// comparison: PARAMS_N (5), ITERATION_TOKENS (13), ITL (19), TTFT (22).
pub const VLLM_BUCKET_LISTS: [&[f64]; 4] = [
    &[1.0, 2.0, 5.0, 10.0, 20.0],
    &[
        1.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0,
    ],
    &ITL_BUCKETS,
    &[
        0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
        20.0, 40.0, 80.0, 160.0, 640.0, 2560.0,
    ],
];

/// `OBSERVATIONS` values spread log-uniformly from half the first bound to twice the last, so
/// they land in every bucket of `bounds` (which must be positive and increasing).
pub fn observations_for(bounds: &[f64]) -> Vec<f64> {
    let (low, high) = match (bounds.first(), bounds.last()) {
        (Some(&first), Some(&last)) => ((first / 2.0).ln(), (last * 2.0).ln()),
        _ => (0.0, 1.0),
    };
    // `observations()` spans 10^-3 .. 10^2: map its exponent onto low .. high.
    observations()
        .into_iter()
        .map(|v| {
            let unit = (v.log10() + 3.0) / 5.0;
            (low + unit * (high - low)).exp()
        })
        .collect()
}

/// The `prometheus` crate's histogram with [`ITL_BUCKETS`].
pub fn prometheus_itl_histogram() -> prometheus::Histogram {
    prometheus::Histogram::with_opts(
        prometheus::HistogramOpts::new("vllm_inter_token_latency_seconds", "ITL")
            .buckets(ITL_BUCKETS.to_vec()),
    )
    .expect("valid histogram options")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_cover_every_bucket() {
        let values = observations();
        assert_eq!(values.len(), OBSERVATIONS);
        let mut hits = [0usize; ITL_BUCKETS.len() + 1];
        for v in values {
            hits[ITL_BUCKETS.iter().filter(|&&b| b < v).count()] += 1;
        }
        assert!(hits.iter().all(|&h| h > 0), "{hits:?}");
    }

    #[test]
    fn scaled_observations_cover_every_bucket_of_every_list() {
        for bounds in VLLM_BUCKET_LISTS {
            let mut hits = vec![0usize; bounds.len() + 1];
            for v in observations_for(bounds) {
                hits[bounds.iter().filter(|&&b| b < v).count()] += 1;
            }
            assert!(hits.iter().all(|&h| h > 0), "{bounds:?}: {hits:?}");
        }
    }
}
