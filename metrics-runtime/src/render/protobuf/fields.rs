//! The fields several messages share: a `LabelPair`, a `google.protobuf.Timestamp`.

use super::wire::{message, string, uint};
use crate::created::Created;

/// `Metric.label`, `Exemplar.label`.
pub(crate) const LABEL: u32 = 1;

/// One `LabelPair` field.
pub(crate) fn label_pair(out: &mut Vec<u8>, field: u32, name: &str, value: &str) {
    message(out, field, 1, |out| {
        string(out, 1, name.as_bytes());
        string(out, 2, value.as_bytes());
    });
}

/// A `google.protobuf.Timestamp` field.
pub(crate) fn timestamp(out: &mut Vec<u8>, field: u32, at: Created) {
    let (seconds, nanos) = at.seconds_and_nanos();
    message(out, field, 1, |out| {
        uint(out, 1, seconds);
        uint(out, 2, u64::from(nanos));
    });
}
