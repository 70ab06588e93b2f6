//! The bucket bounds of a histogram: sanitised from what the caller gave, and kept once per
//! distinct list, shared by every histogram with the same bounds (the series of a family all
//! have them), so a series does not carry a copy of its family's bounds.

use std::sync::Arc;

use super::interned::Interned;

/// `bounds` sanitised: non-finite bounds dropped (the `+Inf` bucket always exists), the rest
/// sorted and de-duplicated. Construction thus never fails or panics.
pub(super) fn sanitise(bounds: impl IntoIterator<Item = f64>) -> Vec<f64> {
    let mut bounds: Vec<f64> = bounds.into_iter().filter(|b| b.is_finite()).collect();
    bounds.sort_by(f64::total_cmp);
    bounds.dedup();
    bounds
}

/// The shared copy of `bounds` (sanitised): the same allocation for every caller with the same
/// list, bit for bit.
pub(super) fn shared(bounds: &[f64]) -> Arc<[f64]> {
    static LISTS: Interned<[f64]> = Interned::new();
    let same = |list: &[f64]| {
        list.len() == bounds.len()
            && list
                .iter()
                .zip(bounds)
                .all(|(a, b)| a.to_bits() == b.to_bits())
    };
    LISTS.share(same, || bounds.into())
}
