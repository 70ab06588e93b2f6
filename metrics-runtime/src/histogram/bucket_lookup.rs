//! The bucket search: a lookup table indexed by a value's top bits, and the linear count of bounds below a value that the table falls back on.
//!
//! An `f64`'s bit pattern, read as an integer, grows with the value for non-negative values,
//! so its top bits (the sign, the exponent and two mantissa bits) cut the number line into
//! *slots*: each octave `[2^e, 2^(e+1))` in four equal parts. When no slot holds two of a
//! histogram's bounds, a value's bucket is the number of bounds below its slot's start (one
//! table load) plus one comparison with the one bound the slot can hold: no loop, no branch
//! on the value, no bounds check (the table has a slot for every key), and nothing one
//! value's search waits for from another's, so a batch's searches overlap.
//!
//! The table covers every bit pattern, so no value needs a special case: zero, subnormals and
//! every value below the lowest bound find 0 bounds below them and compare below the lowest
//! bound; a negative value (sign bit set) finds 0 and compares below it too; +Inf and
//! everything above the highest bound find every bound below them and compare with the `+Inf`
//! sentinel. NaN is the one value it gets wrong (a NaN with its sign bit set lands with the
//! negatives): the merge, which searches batches with it, finds out from the batch's sum (NaN
//! makes it non-finite) and counts such a batch again the slow way.
//!
//! A table is 16 KiB of slots and 2 KiB of bounds, shared by every histogram with the same
//! bounds (every series of a family). It suits positive bounds no two of which share an octave
//! quarter (every vLLM list); [`BucketLookup::new`] declines the others, which keep the linear
//! count.

use std::fmt;
use std::sync::{Arc, Mutex};

/// Bits of a value's bit pattern that make its slot: the sign, the 11 exponent bits and
/// [`SUB_BITS`] mantissa bits.
const KEY_BITS: u32 = 1 + 11 + SUB_BITS;

/// Slots per octave: `2^SUB_BITS`. Two bits suit every vLLM list (no octave quarter holds two
/// of its bounds).
const SUB_BITS: u32 = 2;

/// Slots in a table: one per key, so that any value's key indexes the table directly.
const SLOTS: usize = 1 << KEY_BITS;

/// Tables kept for reuse, one per distinct bound list: a family's series all share their
/// bounds, so a process needs a handful. Past this many, further lists get no table (their
/// merges use the linear count), which bounds the memory at 18 KiB a list.
const MAX_SHARED_TABLES: usize = 64;

/// A table kept for reuse, with the bounds it was built from.
type SharedTable = (Box<[f64]>, Arc<BucketLookup>);

/// The lookup table of one bound list.
pub struct BucketLookup {
    /// `below[key]`: how many bounds lie below the start of the slot `key`. A negative value's
    /// key (sign bit set) has 0, and so does every slot below the lowest bound.
    below: Box<[u8; SLOTS]>,
    /// The bounds followed by `+Inf`: `padded[below[key]]` is the only bound slot `key` can
    /// hold (or a higher one, or `+Inf`).
    padded: Box<[f64; 256]>,
}

impl fmt::Debug for BucketLookup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BucketLookup").finish_non_exhaustive()
    }
}

impl BucketLookup {
    /// The table of sorted, finite, distinct `bounds`, when they suit it: every bound
    /// positive, fewer than 256 of them, and at most one in each slot.
    pub fn new(bounds: &[f64]) -> Option<Self> {
        let lowest = *bounds.first()?;
        let suits = lowest > 0.0
            && bounds.len() < 256
            && bounds
                .windows(2)
                .all(|pair| slot_key(pair[0]) != slot_key(pair[1]));
        if !suits {
            return None;
        }
        let keys: Vec<usize> = bounds.iter().map(|&b| slot_key(b)).collect();
        let mut below = Box::new([0u8; SLOTS]);
        let mut count = 0usize;
        // Keys of non-negative values are ordered like the values; those with the sign bit
        // (the upper half) keep 0.
        for (key, slot) in below.iter_mut().enumerate().take(SLOTS / 2) {
            while keys.get(count).is_some_and(|&k| k < key) {
                count += 1;
            }
            *slot = u8::try_from(count).ok()?;
        }
        let mut padded = Box::new([f64::INFINITY; 256]);
        for (slot, &bound) in padded.iter_mut().zip(bounds) {
            *slot = bound;
        }
        Some(BucketLookup { below, padded })
    }

    /// The table of `bounds`, shared with every other histogram of the same bounds (see
    /// [`MAX_SHARED_TABLES`]).
    pub(crate) fn shared(bounds: &[f64]) -> Option<Arc<Self>> {
        static TABLES: Mutex<Vec<SharedTable>> = Mutex::new(Vec::new());
        let mut tables = crate::sync::lock(&TABLES);
        if let Some((_, table)) = tables.iter().find(|(b, _)| **b == *bounds) {
            return Some(Arc::clone(table));
        }
        if tables.len() >= MAX_SHARED_TABLES {
            return None;
        }
        let table = Arc::new(Self::new(bounds)?);
        tables.push((bounds.into(), Arc::clone(&table)));
        Some(table)
    }

    /// The index of the first bound `>= value` (`bounds.len()` for values above every bound):
    /// the same answer as counting the bounds below `value`, for any value but NaN (whose
    /// answer is unspecified; callers that may meet one check for it). Two loads and one
    /// comparison, with no bounds check: a key indexes the table whatever the value.
    #[inline]
    pub fn index(&self, value: f64) -> usize {
        self.tables().index(value)
    }

    /// The two tables, borrowed: what a loop over many values looks them up in. Held in
    /// registers, their addresses are not reloaded from the lookup on every value (which the
    /// compiler otherwise may do, not knowing that the loop's own stores never reach them).
    #[inline]
    pub(super) fn tables(&self) -> LookupTables<'_> {
        LookupTables {
            below: &self.below,
            padded: &self.padded,
        }
    }
}

/// A [`BucketLookup`]'s tables, borrowed (see [`BucketLookup::tables`]).
#[derive(Clone, Copy)]
pub(super) struct LookupTables<'a> {
    below: &'a [u8; SLOTS],
    padded: &'a [f64; 256],
}

impl LookupTables<'_> {
    /// See [`BucketLookup::index`].
    #[inline]
    pub(super) fn index(self, value: f64) -> usize {
        let below = self.below[slot_key(value)];
        let candidate = self.padded[usize::from(below)];
        usize::from(below) + usize::from(value > candidate)
    }
}

/// Index of the first bucket whose upper bound is `>= value`; NaN and values above every
/// bound go to the `+Inf` bucket at index `bounds.len()`.
#[inline]
pub(super) fn linear_index(bounds: &[f64], value: f64) -> usize {
    // Bucket lists are short (vLLM's longest has 22 bounds). A branch-free linear count
    // beats a binary search at these sizes and is exactly the right answer for NaN: every
    // comparison with NaN is false, so NaN lands in +Inf.
    if bounds.len() <= 32 {
        bounds.iter().filter(|&&b| b < value).count() + usize::from(value.is_nan()) * bounds.len()
    } else if value.is_nan() {
        bounds.len()
    } else {
        bounds.partition_point(|&b| b < value)
    }
}

/// The slot of `value`: the top [`KEY_BITS`] of its bit pattern, which for non-negative values
/// grow with the value.
#[inline]
fn slot_key(value: f64) -> usize {
    (value.to_bits() >> (64 - KEY_BITS)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count_below(bounds: &[f64], value: f64) -> usize {
        bounds.iter().filter(|&&b| b < value).count() + usize::from(value.is_nan()) * bounds.len()
    }

    /// vLLM's PARAMS_N, ITL, TTFT, REQUEST_LATENCY and KV_RESIDENCY bounds, one bound in each
    /// quarter of an octave, and a list spanning the whole exponent range.
    const LISTS: [&[f64]; 7] = [
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
        &[1.0, 1.25, 1.5, 1.75, 2.0],
        &[1e-300, 1.0, 1e300],
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
    fn histograms_with_the_same_bounds_share_one_table() {
        let bounds = [0.5, 1.0, 2.0, 4.0, 8.0, 16.5];
        // Only this test fills the cache, after this point.
        let one = BucketLookup::shared(&bounds).expect("the cache has room");
        let two = BucketLookup::shared(&bounds).expect("found again");
        assert!(Arc::ptr_eq(&one, &two));
        // Past the cap, new lists get no table (and merge with the linear count).
        let declined = (0..=MAX_SHARED_TABLES)
            .map(|i| BucketLookup::shared(&[1.0, 2.0 + i as f64]))
            .any(|table| table.is_none());
        assert!(declined, "the cache grew past {MAX_SHARED_TABLES} lists");
    }

    #[test]
    fn unsuitable_bounds_are_declined() {
        assert!(BucketLookup::new(&[]).is_none());
        assert!(BucketLookup::new(&[-1.0, 1.0]).is_none());
        assert!(BucketLookup::new(&[0.0, 1.0]).is_none());
        // Two bounds in one quarter of an octave share a slot.
        assert!(BucketLookup::new(&[1.0, 1.0f64.next_up()]).is_none());
        assert!(BucketLookup::new(&[1.0, 1.2]).is_none());
        assert!(BucketLookup::new(&[1.75, 1.875]).is_none());
        let many: Vec<f64> = (1..=300).map(f64::from).collect();
        assert!(BucketLookup::new(&many).is_none());
    }
}
