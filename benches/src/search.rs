//! Candidate bucket searches for the histogram, benchmarked in `benches/layout.rs` beside the
//! runtime's slot lookup table. `linear_count` is the runtime's `observe` search (histogram.rs);
//! all three return the index of the first bound `>= value` (`bounds.len()` for NaN and values
//! above every bound).

/// Branch-free: counts the bounds below `value`. Vectorises; no branch depends on `value`.
#[inline]
pub fn linear_count(bounds: &[f64], value: f64) -> usize {
    bounds.iter().filter(|&&b| b < value).count() + usize::from(value.is_nan()) * bounds.len()
}

/// Binary search (std's `partition_point`).
#[inline]
pub fn binary(bounds: &[f64], value: f64) -> usize {
    if value.is_nan() {
        bounds.len()
    } else {
        bounds.partition_point(|&b| b < value)
    }
}

/// Linear scan that stops at the first bound `>= value` (prometheus-client's approach): one
/// branch per bound, mispredicted when values vary.
#[inline]
pub fn linear_early_exit(bounds: &[f64], value: f64) -> usize {
    bounds
        .iter()
        .position(|&b| b >= value)
        .unwrap_or(bounds.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{observations, ITL_BUCKETS};

    #[test]
    fn the_three_searches_agree() {
        let mut values = observations();
        values.extend([f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.01, 80.0, 80.1]);
        for v in values {
            let expected = linear_early_exit(&ITL_BUCKETS, v);
            let expected = if v.is_nan() {
                ITL_BUCKETS.len()
            } else {
                expected
            };
            assert_eq!(linear_count(&ITL_BUCKETS, v), expected, "{v}");
            assert_eq!(binary(&ITL_BUCKETS, v), expected, "{v}");
        }
    }
}
