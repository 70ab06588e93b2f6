//! Labels checked in place on the record path against the same labels pushed into
//! `EncodedLabels`: the same answer for every label set, valid or not.
// Not under the loom model, whose atomics work only inside `loom::model`.
#![cfg(not(loom))]

use proptest::prelude::*;

use super::labels::check_pairs;
use super::{EncodedLabels, ExemplarLabels};

/// A label name: valid ones, a repeated one, and invalid ones.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("trace_id".to_owned()),
        Just("span_id".to_owned()),
        "[a-z_][a-z0-9_]{0,40}",
        Just("1bad".to_owned()),
        Just("bad-name".to_owned()),
        Just("é".to_owned()),
        Just(String::new()),
    ]
}

/// A value of one-byte and multi-byte characters, up to past the limit on its own.
fn value() -> impl Strategy<Value = String> {
    "[a-f0-9é\u{1F600}\"\\\\\n]{0,140}"
}

proptest! {
    /// Slices are checked in place on the record path; the answer must be the one pushing
    /// the pairs into `EncodedLabels` gives (same error, same stored size).
    #[test]
    fn checking_in_place_answers_as_encoding_does(
        pairs in proptest::collection::vec((name(), value()), 0..4)
    ) {
        let pairs: Vec<(&str, &str)> =
            pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        let mut encoded = EncodedLabels::new();
        let expected = pairs
            .as_slice()
            .encode_exemplar_labels(&mut encoded)
            .map(|()| encoded.pairs().map(|(n, v)| 3 + n.len() + v.len()).sum::<usize>());
        prop_assert_eq!(check_pairs(&pairs), expected);
    }
}
