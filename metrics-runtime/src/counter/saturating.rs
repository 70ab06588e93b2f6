//! Adding to a counter's atomic so that no reader ever sees it go down or leave the finite
//! range, whatever the interleaving of adds and reads.
//!
//! # `u64`: one `fetch_add`, and a compare-and-swap only near the top
//!
//! A plain `fetch_add` wraps: `u64::MAX - 1 + 5` stores `3`, which a scraper reads as a counter
//! reset. Storing `u64::MAX` after a wrapping `fetch_add` does not help, because a scrape
//! between the two reads the wrapped value (and a saturated counter wraps on every further
//! increment). A compare-and-swap loop is exact but retries under contention, on the crate's
//! hottest path. So [`add`] keeps one `fetch_add` for the increments that matter and gives the
//! top of the range up as headroom:
//!
//! * every raw value at or above [`SATURATED`] (`2^64 - 2^57`, 99.2% of the range) reads as
//!   `u64::MAX` ([`read`]): the counter is saturated;
//! * an increment of 1 to [`FAST_MAX`] (`2^24`) is one `fetch_add`. If the value it returns is
//!   already saturated, the add is taken back (a cold path), so a saturated counter stops
//!   growing;
//! * a larger increment is a compare-and-swap that stores at most `SATURATED`, and nothing
//!   once saturated.
//!
//! Why the raw value never wraps (it stays below `2^64`), under any interleaving. All the
//! operations on one atomic are read-modify-writes in one total order, each seeing the value
//! the previous one left. Call a fast add that returned a saturated value *pending* until its
//! take-back runs. Before the raw value first reaches `SATURATED` no add is pending (pending
//! adds need a saturated value), so it is the sum of the increments, below `SATURATED`. The
//! operation that first reaches it is a fast add from below (leaving at most
//! `SATURATED - 1 + FAST_MAX`) or a compare-and-swap (leaving `SATURATED`). From then on the
//! raw value is that level `S` plus the pending adds: a fast add sees a saturated value (so
//! it becomes pending), a compare-and-swap writes nothing, and a take-back removes exactly
//! one pending add, so the value never drops below `S >= SATURATED`. Each pending add is one
//! call in progress on some thread, and no machine runs `2^32` threads at once (Linux caps a
//! whole system at `2^22`), so the raw value is at most
//! `SATURATED - 1 + FAST_MAX + 2^32 * FAST_MAX = 2^64 - 2^57 - 1 + 2^24 + 2^56 < 2^64`.
//!
//! Why a reader never sees a decrease: below `SATURATED` the raw value only grows, and at or
//! above it every raw value reads `u64::MAX`. A reader's successive loads see values in the
//! same total order (coherence), so what it reads never goes down.
//!
//! The log-stats accumulator drains cells with `swap(0)` between adds. A take-back then
//! subtracts only while the cell stays saturated after it (so it never pulls a drained cell
//! below zero); a drained, saturated interval reads `u64::MAX` either way.
//!
//! # Floating point and 32 bits
//!
//! `f64` and `f32` counters add in a compare-and-swap loop, as prometheus-client's do, but a
//! sum past the largest finite value stores that value instead of `+Inf`. `u32` counters add
//! in a compare-and-swap loop with `saturating_add` (32 bits leave no room for headroom).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// The first raw value of a saturated `u64` counter: every raw value from here up reads as
/// `u64::MAX`.
pub(crate) const SATURATED: u64 = u64::MAX - (1 << 57) + 1;

/// The largest increment added with a plain `fetch_add`.
pub(crate) const FAST_MAX: u64 = 1 << 24;

// The bound of the module's argument: the highest level a saturating add can leave, plus one
// pending fast add for each of 2^32 threads, stays below 2^64.
const _: () = assert!((u64::MAX - SATURATED) >= FAST_MAX + (1 << 32) * FAST_MAX);

/// What a `u64` counter whose atomic holds `raw` reads.
#[inline]
pub(crate) fn read(raw: u64) -> u64 {
    if raw >= SATURATED {
        u64::MAX
    } else {
        raw
    }
}

/// Raises the `u64` counter in `cell` to `value` if it reads less (a count kept elsewhere,
/// copied in): one `fetch_max`, so a raise racing adds and other raises never lowers it. A
/// `value` in the saturated range stores [`SATURATED`], which reads `u64::MAX`.
#[cfg(feature = "metrics-facade")]
#[inline]
pub(crate) fn raise_to(cell: &AtomicU64, value: u64) {
    cell.fetch_max(value.min(SATURATED), Ordering::Relaxed);
}

/// Adds `delta` to the `u64` counter in `cell`, saturating at `u64::MAX` (see the module
/// documentation); returns what the counter read before. An increment of 0 writes nothing.
#[inline]
pub(crate) fn add(cell: &AtomicU64, delta: u64) -> u64 {
    // One comparison for `1..=FAST_MAX` (0 wraps to `u64::MAX`).
    if delta.wrapping_sub(1) < FAST_MAX {
        let previous = cell.fetch_add(delta, Ordering::Relaxed);
        if previous >= SATURATED {
            take_back(cell, delta);
            return u64::MAX;
        }
        previous
    } else {
        add_beyond_fast(cell, delta)
    }
}

/// Removes a fast add that found the counter saturated, unless that would leave the cell
/// unsaturated (it was drained since).
#[cold]
fn take_back(cell: &AtomicU64, delta: u64) {
    let _ = cell.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |raw| {
        (raw >= SATURATED + delta).then(|| raw - delta)
    });
}

/// An increment of 0 or above [`FAST_MAX`]: a compare-and-swap that stores at most
/// [`SATURATED`], and nothing once the counter is saturated.
#[cold]
fn add_beyond_fast(cell: &AtomicU64, delta: u64) -> u64 {
    let previous = cell.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |raw| {
        (delta != 0 && raw < SATURATED).then(|| raw.saturating_add(delta).min(SATURATED))
    });
    read(previous.unwrap_or_else(|raw| raw))
}

/// Adds `delta` to the `u32` counter in `cell`, saturating at `u32::MAX`; returns the value
/// before.
#[inline]
pub(crate) fn add_u32(cell: &AtomicU32, delta: u32) -> u32 {
    let previous = cell.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |value| {
        let sum = value.saturating_add(delta);
        (sum != value).then_some(sum)
    });
    previous.unwrap_or_else(|value| value)
}

/// `value + delta` for a counter (`delta` finite and non-negative), the largest finite value
/// instead of `+Inf`.
macro_rules! saturating_float_add {
    ($name:ident, $float:ty, $atomic:ty) => {
        /// Adds `delta` (finite, non-negative) to the floating-point counter in `cell`,
        /// stopping at the largest finite value instead of reaching `+Inf`; returns the value
        /// before. An add that changes nothing writes nothing.
        #[inline]
        pub(crate) fn $name(cell: &$atomic, delta: $float) -> $float {
            let previous = cell.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |bits| {
                let sum = <$float>::from_bits(bits) + delta;
                let sum = if sum.is_finite() { sum } else { <$float>::MAX };
                (sum.to_bits() != bits).then(|| sum.to_bits())
            });
            <$float>::from_bits(previous.unwrap_or_else(|bits| bits))
        }
    };
}

saturating_float_add!(add_f64, f64, AtomicU64);
saturating_float_add!(add_f32, f32, AtomicU32);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_add_that_would_wrap_saturates_and_reads_the_maximum() {
        // Every start is a value the counter can hold before saturating.
        for (start, delta) in [
            (SATURATED - 1, 1),
            (SATURATED - 1, FAST_MAX),
            (SATURATED - FAST_MAX, FAST_MAX),
            (SATURATED - 1, FAST_MAX + 1),
            (SATURATED - 1, u64::MAX),
            (0, u64::MAX),
            (5, u64::MAX - 4),
        ] {
            let cell = AtomicU64::new(start);
            add(&cell, delta);
            assert_eq!(
                read(cell.load(Ordering::Relaxed)),
                u64::MAX,
                "{start} + {delta}"
            );
            // And it stays there, however much is added and however.
            for more in [1, 7, FAST_MAX, FAST_MAX + 1, u64::MAX] {
                assert_eq!(add(&cell, more), u64::MAX);
                assert_eq!(read(cell.load(Ordering::Relaxed)), u64::MAX);
            }
        }
    }

    #[test]
    fn below_the_top_adds_are_exact_and_return_the_previous_value() {
        let cell = AtomicU64::new(0);
        assert_eq!(add(&cell, 1), 0);
        assert_eq!(add(&cell, FAST_MAX), 1);
        assert_eq!(add(&cell, FAST_MAX + 1), FAST_MAX + 1);
        assert_eq!(add(&cell, 0), 2 * FAST_MAX + 2);
        assert_eq!(cell.load(Ordering::Relaxed), 2 * FAST_MAX + 2);
        let near = AtomicU64::new(SATURATED - 10);
        assert_eq!(add(&near, 9), SATURATED - 10);
        assert_eq!(read(near.load(Ordering::Relaxed)), SATURATED - 1);
    }

    #[test]
    fn a_saturated_counter_stays_saturated_across_every_interleaving_of_pending_adds() {
        // The raw steps of several fast adds that found the counter saturated, interleaved
        // with compare-and-swap adds and reads: every read in between is `u64::MAX`, and the
        // take-backs return the cell to its level.
        let cell = AtomicU64::new(0);
        add(&cell, u64::MAX);
        let level = cell.load(Ordering::Relaxed);
        assert_eq!(level, SATURATED);
        let pending = [FAST_MAX, 1, 3, FAST_MAX];
        for &delta in &pending {
            // The `fetch_add` half of a fast add.
            assert!(cell.fetch_add(delta, Ordering::Relaxed) >= SATURATED);
            assert_eq!(read(cell.load(Ordering::Relaxed)), u64::MAX);
            assert_eq!(add(&cell, u64::MAX), u64::MAX);
        }
        for &delta in pending.iter().rev() {
            take_back(&cell, delta);
            assert_eq!(read(cell.load(Ordering::Relaxed)), u64::MAX);
        }
        assert_eq!(cell.load(Ordering::Relaxed), level);
    }

    #[test]
    fn a_take_back_after_a_drain_never_pulls_the_cell_below_zero() {
        let cell = AtomicU64::new(SATURATED);
        // A fast add finds the counter saturated; before its take-back, the cell is drained
        // and counts again.
        cell.fetch_add(5, Ordering::Relaxed);
        assert_eq!(read(cell.swap(0, Ordering::Relaxed)), u64::MAX);
        add(&cell, 2);
        take_back(&cell, 5);
        assert_eq!(cell.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn floats_stop_at_the_largest_finite_value() {
        let cell = AtomicU64::new(0.0f64.to_bits());
        assert_eq!(add_f64(&cell, 1.5), 0.0);
        add_f64(&cell, f64::MAX);
        assert_eq!(f64::from_bits(cell.load(Ordering::Relaxed)), f64::MAX);
        assert_eq!(add_f64(&cell, f64::MAX), f64::MAX);
        assert_eq!(f64::from_bits(cell.load(Ordering::Relaxed)), f64::MAX);
        let cell32 = AtomicU32::new(f32::MAX.to_bits());
        add_f32(&cell32, f32::MAX);
        assert_eq!(f32::from_bits(cell32.load(Ordering::Relaxed)), f32::MAX);
        let small = AtomicU32::new(u32::MAX - 1);
        assert_eq!(add_u32(&small, 5), u32::MAX - 1);
        assert_eq!(small.load(Ordering::Relaxed), u32::MAX);
    }
}
