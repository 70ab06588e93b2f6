//! Candidate bucket searches for the histogram, benchmarked against each other in
//! `benches/layout.rs`. `linear_count` is the runtime's algorithm (histogram.rs); all three
//! return the index of the first bound `>= value` (`bounds.len()` for NaN and values above
//! every bound).

/// Branch-free: counts the bounds below `value`. Vectorises; no branch depends on `value`.
#[inline]
pub fn linear_count(bounds: &[f64], value: f64) -> usize {
    bounds.iter().filter(|&&b| b < value).count() + usize::from(value.is_nan()) * bounds.len()
}

/// The bounds grouped by binary exponent: the value's exponent (its top bits) says how many
/// bounds lie in lower octaves (one table load), and only the few bounds of its own octave are
/// compared, as a fixed window of [`WINDOW`] branch-free comparisons. For positive bounds with
/// at most `WINDOW` bounds per octave (every vLLM list: at most 2); `None` otherwise.
///
/// Measured, and not adopted: in isolation it is 35% faster than the linear count at 19
/// bounds, but inside `Histogram::observe` it made the observation slightly slower (7.8 ->
/// 8.0 ns): its dependent chain (exponent -> table load -> window -> count -> the atomic's
/// address) cannot overlap with the atomics the way the linear count's independent SIMD
/// comparisons do.
pub struct OctaveIndex {
    /// The bounds followed by `WINDOW` times `+Inf` (a window never reads past the end, and
    /// `+Inf < value` is false for every value).
    padded: Box<[f64]>,
    /// `below[k]`: how many bounds have a biased exponent below `first + k`.
    below: Box<[u16]>,
    /// The biased exponent of the first bound.
    first: usize,
    len: usize,
}

/// Bounds compared per lookup in an [`OctaveIndex`].
pub const WINDOW: usize = 4;

fn biased_exponent(value: f64) -> usize {
    // 0..=2047 for a non-negative value (the sign bit is 0).
    (value.to_bits() >> 52) as usize
}

impl OctaveIndex {
    /// The index of sorted, finite `bounds`, if they suit it.
    pub fn new(bounds: &[f64]) -> Option<Self> {
        let (&lowest, &highest) = (bounds.first()?, bounds.last()?);
        if lowest <= 0.0 || bounds.len() > usize::from(u16::MAX) {
            return None;
        }
        let (first, last) = (biased_exponent(lowest), biased_exponent(highest));
        let below: Box<[u16]> = (first..=last + 1)
            .map(|e| bounds.iter().filter(|&&b| biased_exponent(b) < e).count() as u16)
            .collect();
        if below.windows(2).any(|w| usize::from(w[1] - w[0]) > WINDOW) {
            return None;
        }
        let padded = bounds
            .iter()
            .copied()
            .chain(std::iter::repeat_n(f64::INFINITY, WINDOW))
            .collect();
        Some(OctaveIndex {
            padded,
            below,
            first,
            len: bounds.len(),
        })
    }

    /// The index of the first bound `>= value` (`len` for NaN and values above every bound).
    #[inline]
    pub fn index(&self, value: f64) -> usize {
        if value.is_nan() {
            return self.len;
        }
        // The sign bit lands in bit 11: every negative value (and -0.0) takes slot 0, where
        // every bound compares greater, as it must.
        let exponent = (value.to_bits() >> 52) as usize;
        let slot = if exponent >= 2048 {
            0
        } else {
            exponent.clamp(self.first, self.first + self.below.len() - 1) - self.first
        };
        let below = self.below.get(slot).map_or(self.len, |&b| usize::from(b));
        let window = self.padded.get(below..below + WINDOW).unwrap_or(&[]);
        below + window.iter().filter(|&&b| b < value).count()
    }
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
    #[test]
    fn the_octave_index_agrees_on_every_vllm_list_and_edge_value() {
        use crate::fixtures::{observations_for, VLLM_BUCKET_LISTS};
        for bounds in VLLM_BUCKET_LISTS {
            let octaves = OctaveIndex::new(bounds).expect("every vLLM list suits the index");
            let mut values = observations_for(bounds);
            values.extend(bounds.iter().flat_map(|&b| [b, b.next_up(), b.next_down()]));
            values.extend([0.0, -0.0, -1.0, f64::MIN_POSITIVE, 5e-324, f64::MAX]);
            values.extend([f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN]);
            for v in values {
                assert_eq!(
                    octaves.index(v),
                    linear_count(bounds, v),
                    "{v} in {bounds:?}"
                );
            }
        }
        assert!(OctaveIndex::new(&[-1.0, 1.0]).is_none());
        assert!(OctaveIndex::new(&[1.0, 1.1, 1.2, 1.3, 1.4, 1.5]).is_none());
    }

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
            let octaves = OctaveIndex::new(&ITL_BUCKETS).expect("ITL suits the octave index");
            assert_eq!(octaves.index(v), expected, "{v}");
        }
    }
}
