//! The bucket search of merged batches: a lookup table keyed by a value's top bits.
//!
//! For a non-negative `f64`, the bit pattern read as an integer grows with the value, so its
//! top bits (the exponent and the first few mantissa bits) cut the number line into *slots*:
//! each octave `[2^e, 2^(e+1))` split into `2^sub_bits` equal parts. The table is built with
//! enough sub-bits that no slot holds more than one bound. A value's bucket is then the number
//! of bounds below its slot (one table load) plus one comparison with the first bound at or
//! above the slot's start: no loop, no branch on the value, and nothing one value's search
//! waits for from another's, so a batch's searches overlap.
//!
//! Values outside the table's slots need no special case: the slot is clamped, which sends
//! everything below the first bound's slot (zero, negatives, -Inf) to slot 0, where the count
//! is 0 and the comparison with the first bound is false, and everything above the last
//! bound's slot (+Inf, a positive NaN) to the slot past it, where the count is every bound and
//! the comparison is with the `+Inf` sentinel. NaN is the one value it gets wrong (a NaN with
//! its sign bit set lands in slot 0): the merge, which searches batches with it, finds out
//! from the batch's sum (NaN makes it non-finite) and counts such a batch again the slow way.
//!
//! It suits positive bounds that are not crowded (every vLLM list needs at most 2 sub-bits and
//! at most 64 slots); [`BucketLookup::new`] declines the others, which keep the linear count.

/// Sub-bits tried at most: 64 slots per octave.
const MAX_SUB_BITS: u32 = 6;

/// Slots a table may have at most (16 bytes each).
const MAX_SLOTS: usize = 1024;

/// What a value in one slot needs: its bucket is `below`, plus one if it exceeds `candidate`.
#[derive(Clone, Copy, Debug)]
struct Slot {
    /// The first bound at or above the slot's start (`+Inf` past the highest bound): the only
    /// bound the slot can hold.
    candidate: f64,
    /// How many bounds lie below the slot's start.
    below: u8,
}

/// Bits of an `f64` below the exponent.
const MANTISSA_BITS: u32 = 52;

/// The lookup table of one histogram's bounds.
#[derive(Debug)]
pub struct BucketLookup {
    /// One entry per slot; the last slot is the one past the highest bound's.
    slots: Box<[Slot]>,
    /// A value's slot key is its bits shifted right by this.
    shift: u32,
    /// The slot key of the lowest bound (slot 0).
    first_key: i64,
}

impl BucketLookup {
    /// The table of sorted, finite, distinct `bounds`, when they suit it: every bound
    /// positive, fewer than 256 of them, and at most one per slot within [`MAX_SLOTS`].
    pub fn new(bounds: &[f64]) -> Option<Self> {
        let (&lowest, &highest) = (bounds.first()?, bounds.last()?);
        if lowest <= 0.0 || bounds.len() > usize::from(u8::MAX) {
            return None;
        }
        (0..=MAX_SUB_BITS).find_map(|sub_bits| {
            let shift = MANTISSA_BITS - sub_bits;
            let key = |bound: f64| slot_key(bound) >> shift;
            let first_key = key(lowest);
            let slots = usize::try_from(key(highest) - first_key).ok()? + 2;
            let one_per_slot = bounds.windows(2).all(|pair| key(pair[0]) != key(pair[1]));
            if !one_per_slot || slots > MAX_SLOTS {
                return None;
            }
            let slots = (0..slots)
                .map(|slot| {
                    let start = first_key + slot as i64;
                    let below = bounds.iter().filter(|&&b| key(b) < start).count();
                    Some(Slot {
                        candidate: bounds.get(below).copied().unwrap_or(f64::INFINITY),
                        below: u8::try_from(below).ok()?,
                    })
                })
                .collect::<Option<Box<[Slot]>>>()?;
            Some(BucketLookup {
                slots,
                shift,
                first_key,
            })
        })
    }

    /// The index of the first bound `>= value` (`bounds.len()` for values above every bound):
    /// the same answer as counting the bounds below `value`, for any value but NaN (whose
    /// answer is unspecified; callers that may meet one check for it).
    #[inline]
    pub fn index(&self, value: f64) -> usize {
        let last = self.slots.len() as i64 - 1;
        let slot = (slot_key(value) >> self.shift)
            .wrapping_sub(self.first_key)
            .clamp(0, last);
        self.slots.get(slot as usize).map_or(0, |slot| {
            usize::from(slot.below) + usize::from(value > slot.candidate)
        })
    }
}

/// The bits of `value` as a signed integer: ordered like the values for non-negative ones,
/// and negative for negative ones (below every bound's). Shifted right, it keeps the exponent
/// and the top mantissa bits: the slot key.
#[inline]
fn slot_key(value: f64) -> i64 {
    value.to_bits() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count_below(bounds: &[f64], value: f64) -> usize {
        bounds.iter().filter(|&&b| b < value).count() + usize::from(value.is_nan()) * bounds.len()
    }

    /// vLLM's PARAMS_N, ITL, TTFT, REQUEST_LATENCY and KV_RESIDENCY bounds, and a list with
    /// bounds one ulp apart.
    const LISTS: [&[f64]; 6] = [
        &[1.0, 2.0, 5.0, 10.0, 20.0],
        &[
            0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
            10.0, 20.0, 40.0, 80.0,
        ],
        &[
            0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
            10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0,
        ],
        &[
            0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
            120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0,
        ],
        &[
            0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0,
            60.0, 120.0, 300.0, 600.0, 1200.0, 1800.0,
        ],
        &[1.0, 1.5, 1.75, 1.875],
    ];

    #[test]
    fn it_agrees_with_counting_on_every_vllm_list_and_edge_value() {
        for bounds in LISTS {
            let table = BucketLookup::new(bounds).expect("every vLLM list suits the table");
            let mut values: Vec<f64> = (0..4000)
                .map(|i| 10f64.powf(-5.0 + f64::from(i) * 0.002))
                .collect();
            values.extend(bounds.iter().flat_map(|&b| [b, b.next_up(), b.next_down()]));
            values.extend([
                0.0,
                -0.0,
                -1.0,
                f64::MIN_POSITIVE,
                5e-324,
                f64::MAX,
                f64::MIN,
            ]);
            values.extend([f64::INFINITY, f64::NEG_INFINITY]);
            for v in values.into_iter().filter(|v| !v.is_nan()) {
                assert_eq!(table.index(v), count_below(bounds, v), "{v} in {bounds:?}");
            }
        }
    }

    #[test]
    fn vllm_lists_need_small_tables() {
        for bounds in LISTS.iter().take(5) {
            let table = BucketLookup::new(bounds).expect("suits");
            assert!(table.slots.len() <= 64, "{} slots", table.slots.len());
        }
    }

    #[test]
    fn unsuitable_bounds_are_declined() {
        assert!(BucketLookup::new(&[]).is_none());
        assert!(BucketLookup::new(&[-1.0, 1.0]).is_none());
        assert!(BucketLookup::new(&[0.0, 1.0]).is_none());
        // Two bounds one ulp apart share a slot at every table size.
        assert!(BucketLookup::new(&[1.0, 1.0f64.next_up()]).is_none());
        // Bounds closer than 1/64 of their octave share a slot at every sub-bit count tried.
        assert!(BucketLookup::new(&[1.0, 1.01]).is_none());
        // Too wide a range for the slot budget.
        assert!(BucketLookup::new(&[1e-300, 1.0, 1e300]).is_none());
        let many: Vec<f64> = (1..=300).map(f64::from).collect();
        assert!(BucketLookup::new(&many).is_none());
    }
}
