//! Inputs shared by every implementation under comparison, so that they do the same work.

/// vLLM's inter-token-latency bucket bounds (19 finite bounds; spec section 2). ITL is the
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
}
