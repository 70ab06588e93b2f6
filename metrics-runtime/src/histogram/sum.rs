//! The rules of `_sum`: non-finite values are not added, and the total saturates at
//! `±f64::MAX`; values are added in the order they were recorded.

use super::sync::{AtomicU64, Ordering};

/// Adds a finite `delta` to an `f64` stored as bits, with a compare-and-swap loop, saturating
/// at `±f64::MAX`: the cell starts at 0 and only ever holds finite values, so the sum of two
/// finite values is finite or `±Inf`, never NaN, and the clamp keeps it finite.
///
/// Returns whether the first compare-and-swap failed: another thread wrote the cell between
/// the load and the swap, the sign that threads record into it at the same time.
#[inline]
#[must_use = "a failed first swap is the histogram's sign of contention"]
pub(super) fn add_to_f64_bits(cell: &AtomicU64, delta: f64) -> bool {
    let mut current = cell.load(Ordering::Relaxed);
    let mut met = false;
    loop {
        let next = (f64::from_bits(current) + delta)
            .clamp(-f64::MAX, f64::MAX)
            .to_bits();
        match cell.compare_exchange_weak(current, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return met,
            Err(actual) => {
                current = actual;
                met = true;
            }
        }
    }
}

/// `total + value` with the rules of [`Histogram::observe`](crate::Histogram::observe): a non-finite value is not added,
/// and the result saturates at `±f64::MAX`. Skipping zeros as `observe` does changes nothing:
/// the total is never `-0.0` (non-zero additions that cancel give `+0.0`), and adding `±0.0`
/// to anything else leaves it as it is. The saturation is a branch that is never taken in
/// practice, so a batch's additions form a chain of plain `addsd`s.
#[inline]
pub(super) fn add_observation(total: f64, value: f64) -> f64 {
    let value = if value.is_finite() { value } else { 0.0 };
    let next = total + value;
    if next.is_finite() {
        next
    } else {
        next.clamp(-f64::MAX, f64::MAX)
    }
}

/// `start` plus `values` added one by one in order (see [`add_observation`]): exactly what
/// observing them one by one adds, so a merged batch sums as its values would.
#[inline]
pub(super) fn add_in_order(start: f64, values: &[f64]) -> f64 {
    values
        .iter()
        .fold(start, |total, &v| add_observation(total, v))
}

/// Adds `values` in order (see [`add_in_order`]) to an `f64` stored as bits, in one
/// compare-and-swap (retried as a whole if another thread's add came in between). Returns
/// whether it was retried (see [`add_to_f64_bits`]).
#[must_use = "a failed first swap is the histogram's sign of contention"]
pub(super) fn add_all_to_f64_bits(cell: &AtomicU64, values: &[f64]) -> bool {
    let mut current = cell.load(Ordering::Relaxed);
    let mut met = false;
    loop {
        let total = add_in_order(f64::from_bits(current), values);
        match cell.compare_exchange_weak(
            current,
            total.to_bits(),
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(_) => return met,
            Err(actual) => {
                current = actual;
                met = true;
            }
        }
    }
}
