//! The bucket search of a merged batch: bounds grouped by binary exponent.
//!
//! A value's exponent (its top bits) says how many bounds lie in lower octaves (one table
//! load); only the few bounds of its own octave are then compared, as a fixed window of
//! [`WINDOW`] branch-free comparisons. It needs positive bounds with at most `WINDOW` of them
//! per octave (every vLLM list has at most 2).
//!
//! Measured in `benches/` (`bucket_search_*`): for one value it is about 1.5x faster than the
//! linear count at 19 bounds, but its steps depend on each other (exponent, table load,
//! window), so inside `Histogram::observe`, where the atomics wait on the index, it did not
//! pay. A merge searches a whole batch of independent values back to back, where only
//! throughput counts: there it does.

/// Bounds compared per search.
const WINDOW: usize = 4;

/// The index of a histogram's bounds by binary exponent.
pub(crate) struct OctaveIndex {
    /// The bounds followed by `WINDOW` times `+Inf` (a window never reads past the end, and
    /// `+Inf < value` is false for every value).
    padded: Box<[f64]>,
    /// `below[k]`: how many bounds have a biased exponent below `first + k`.
    below: Box<[u16]>,
    /// The biased exponent of the first bound.
    first: usize,
    len: usize,
}

/// `0..=2047` for a non-negative value; the sign bit makes it `>= 2048` for a negative one.
fn biased_exponent(value: f64) -> usize {
    (value.to_bits() >> 52) as usize
}

impl OctaveIndex {
    /// The index of sorted, finite, distinct `bounds`, when they suit it.
    pub(crate) fn new(bounds: &[f64]) -> Option<Self> {
        let (&lowest, &highest) = (bounds.first()?, bounds.last()?);
        if lowest <= 0.0 || bounds.len() > usize::from(u16::MAX) {
            return None;
        }
        let (first, last) = (biased_exponent(lowest), biased_exponent(highest));
        let below = (first..=last + 1)
            .map(|e| u16::try_from(bounds.iter().filter(|&&b| biased_exponent(b) < e).count()))
            .collect::<Result<Box<[u16]>, _>>()
            .ok()?;
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

    /// The index of the first bound `>= value` (`len` for NaN and values above every bound):
    /// the same answer as counting the bounds below `value`.
    #[inline]
    pub(crate) fn index(&self, value: f64) -> usize {
        if value.is_nan() {
            return self.len;
        }
        // Every negative value (and -0.0) has an "exponent" >= 2048 and takes slot 0, where
        // every bound compares greater, as it must.
        let exponent = biased_exponent(value);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn count_below(bounds: &[f64], value: f64) -> usize {
        bounds.iter().filter(|&&b| b < value).count() + usize::from(value.is_nan()) * bounds.len()
    }

    #[test]
    fn it_agrees_with_counting_on_every_vllm_list_and_edge_value() {
        // vLLM's PARAMS_N, ITL, TTFT, REQUEST_LATENCY and KV_RESIDENCY bounds.
        let lists: [&[f64]; 5] = [
            &[1.0, 2.0, 5.0, 10.0, 20.0],
            &[
                0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
                10.0, 20.0, 40.0, 80.0,
            ],
            &[
                0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
                7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0,
            ],
            &[
                0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
                120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0,
            ],
            &[
                0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0,
                30.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 1800.0,
            ],
        ];
        for bounds in lists {
            let index = OctaveIndex::new(bounds).expect("every vLLM list suits the index");
            let mut values: Vec<f64> = (0..2000)
                .map(|i| 10f64.powf(-4.0 + f64::from(i) * 0.004))
                .collect();
            values.extend(bounds.iter().flat_map(|&b| [b, b.next_up(), b.next_down()]));
            values.extend([0.0, -0.0, -1.0, f64::MIN_POSITIVE, 5e-324, f64::MAX]);
            values.extend([f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN]);
            for v in values {
                assert_eq!(index.index(v), count_below(bounds, v), "{v} in {bounds:?}");
            }
        }
    }

    #[test]
    fn unsuitable_bounds_are_declined() {
        assert!(OctaveIndex::new(&[]).is_none());
        assert!(OctaveIndex::new(&[-1.0, 1.0]).is_none());
        assert!(OctaveIndex::new(&[0.0, 1.0]).is_none());
        assert!(OctaveIndex::new(&[1.0, 1.1, 1.2, 1.3, 1.4, 1.5]).is_none());
    }
}
