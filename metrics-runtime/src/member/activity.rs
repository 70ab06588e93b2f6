//! A member's activity fingerprint: what idle expiry compares between two sweeps to tell a
//! quiet series from a busy one.

/// A value type of a counter or gauge, as an activity fingerprint: its bits, so that every
/// change of the value is a change of the fingerprint.
pub trait ActivityValue: Copy {
    /// The value's bits.
    fn activity_bits(self) -> u64;
}

macro_rules! activity_value {
    ($($t:ty => |$v:ident| $bits:expr),* $(,)?) => {$(
        impl ActivityValue for $t {
            #[inline]
            fn activity_bits(self) -> u64 {
                let $v = self;
                $bits
            }
        }
    )*};
}

activity_value!(
    u64 => |v| v,
    u32 => |v| u64::from(v),
    i64 => |v| v as u64,
    i32 => |v| i64::from(v) as u64,
    f64 => |v| v.to_bits(),
    f32 => |v| u64::from(v.to_bits()),
);

/// Folds a child's activity into a container's, so that a change of any child changes the
/// result (two changes cancelling out has a chance of 2^-64, and would only make the series
/// look quiet for one sweep, its values kept).
#[inline]
pub(crate) fn fold(acc: u64, child: u64) -> u64 {
    (acc.rotate_left(7) ^ child).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The activity of a container: its children's folded, or `None` if any child cannot tell.
pub(crate) fn fold_all(children: impl IntoIterator<Item = Option<u64>>) -> Option<u64> {
    children
        .into_iter()
        .try_fold(0u64, |acc, child| child.map(|c| fold(acc, c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_container_changes_when_any_child_does_and_cannot_tell_if_one_cannot() {
        let before = fold_all([Some(1), Some(2), Some(3)]);
        assert_ne!(before, fold_all([Some(1), Some(3), Some(3)]));
        assert_ne!(before, fold_all([Some(2), Some(1), Some(3)]));
        assert_eq!(fold_all([Some(1), None]), None);
    }
}
