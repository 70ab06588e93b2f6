//! Recording exemplars through a histogram, a request-local view and a counter, and the read
//! API a scrape uses: which slot an exemplar lands in, that the observation is recorded
//! whatever happens to its exemplar, and the native ring's order.

use std::time::{Duration, UNIX_EPOCH};

use crate::exemplar::{ExemplarBuffer, ExemplarError};
use crate::histogram::{NativeConfig, NATIVE_EXEMPLARS};
use crate::{Counter, Histogram};

/// The labels and value of bucket `bucket`'s exemplar, if it has one.
fn bucket(histogram: &Histogram, bucket: usize) -> Option<(Vec<(String, String)>, f64)> {
    let mut buffer = ExemplarBuffer::new();
    let view = histogram.bucket_exemplar(bucket, &mut buffer)?;
    let labels = view
        .labels()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    Some((labels, view.value()))
}

fn trace(id: &str) -> Vec<(String, String)> {
    vec![("trace_id".to_owned(), id.to_owned())]
}

#[test]
fn an_exemplar_lands_in_the_bucket_its_value_is_counted_in_and_the_latest_wins() {
    let h = Histogram::new([0.1, 1.0]);
    assert!(!h.has_exemplars());
    h.observe_with_exemplar(0.5, &[("trace_id", "a")]).unwrap();
    h.observe_with_exemplar(0.7, &[("trace_id", "b")]).unwrap();
    h.observe_with_exemplar(f64::NAN, &[("trace_id", "nan")])
        .unwrap();
    h.observe(0.05);
    assert!(h.has_exemplars());
    assert_eq!(h.snapshot().bucket_counts(), &[1, 2, 1]);
    assert_eq!(bucket(&h, 0), None);
    assert_eq!(bucket(&h, 1), Some((trace("b"), 0.7)));
    let (labels, value) = bucket(&h, 2).unwrap();
    assert_eq!(labels, trace("nan"));
    assert!(value.is_nan());
    assert_eq!(bucket(&h, 3), None);
}

#[test]
fn a_refused_exemplar_keeps_its_observation_and_the_previous_exemplar() {
    let h = Histogram::new([1.0]);
    h.observe_with_exemplar(0.5, &[("trace_id", "kept")])
        .unwrap();
    let before = crate::exemplar::rejected_exemplars();
    let long = "x".repeat(200);
    assert_eq!(
        h.observe_with_exemplar(0.6, &[("trace_id", long.as_str())]),
        Err(ExemplarError::TooLong { chars: 208 })
    );
    assert_eq!(
        h.observe_with_exemplar(0.6, &[("1bad", "x")]),
        Err(ExemplarError::InvalidLabelName)
    );
    assert_eq!(
        h.observe_with_exemplar(0.6, &[("a", "x"), ("a", "y")]),
        Err(ExemplarError::DuplicateLabelName)
    );
    assert!(crate::exemplar::rejected_exemplars() >= before + 3);
    assert_eq!(h.snapshot().count(), 4);
    assert_eq!(bucket(&h, 0), Some((trace("kept"), 0.5)));
}

#[test]
fn multibyte_values_are_counted_in_characters() {
    let h = Histogram::new([1.0]);
    // 8 + 120 = 128 characters in 248 bytes: within the limit.
    let wide = "é".repeat(120);
    assert_eq!(
        h.observe_with_exemplar(0.5, &[("trace_id", wide.as_str())]),
        Ok(())
    );
    let wider = "é".repeat(121);
    assert_eq!(
        h.observe_with_exemplar(0.5, &[("trace_id", wider.as_str())]),
        Err(ExemplarError::TooLong { chars: 129 })
    );
    assert_eq!(bucket(&h, 0).map(|(labels, _)| labels), Some(trace(&wide)));
}

#[test]
fn checked_labels_and_label_sets_record_like_slices() {
    #[derive(Clone, Debug, Hash, PartialEq, Eq, crate::LabelSet)]
    struct Trace {
        trace_id: String,
    }
    let h = Histogram::new([1.0, 2.0]);
    let checked =
        crate::exemplar::EncodedLabels::try_from_pairs(&[("trace_id", "checked")]).unwrap();
    h.observe_with_exemplar(0.5, &checked).unwrap();
    h.observe_with_exemplar(
        1.5,
        &Trace {
            trace_id: "derived".into(),
        },
    )
    .unwrap();
    assert_eq!(bucket(&h, 0), Some((trace("checked"), 0.5)));
    assert_eq!(bucket(&h, 1), Some((trace("derived"), 1.5)));
}

#[test]
fn a_request_local_view_writes_its_exemplar_to_the_shared_slot_at_once() {
    let h = Histogram::new([0.1]);
    let mut request = h.local();
    request
        .observe_with_exemplar(0.05, &[("trace_id", "r1")])
        .unwrap();
    assert_eq!(bucket(&h, 0), Some((trace("r1"), 0.05)));
    assert_eq!(h.snapshot().count(), 0);
    drop(request);
    assert_eq!(h.snapshot().count(), 1);
}

#[test]
fn the_native_ring_keeps_the_most_recent_exemplars_oldest_first() {
    let h = Histogram::new_native(NativeConfig::default());
    let ids: Vec<String> = (0..NATIVE_EXEMPLARS + 3).map(|i| format!("t{i}")).collect();
    for (i, id) in ids.iter().enumerate() {
        let at = UNIX_EPOCH + Duration::from_secs(1_700_000_000 + i as u64);
        h.observe_with_exemplar_at(i as f64, &[("trace_id", id.as_str())], at)
            .unwrap();
    }
    let mut seen = Vec::new();
    h.native_exemplars(&mut ExemplarBuffer::new(), |view| {
        let (_, id) = view.labels().next().unwrap();
        seen.push((id.to_owned(), view.value(), view.timestamp_seconds()));
    });
    let expected: Vec<(String, f64, f64)> = (3..NATIVE_EXEMPLARS + 3)
        .map(|i| (format!("t{i}"), i as f64, 1_700_000_000.0 + i as f64))
        .collect();
    assert_eq!(seen, expected);
    // The classic side of a native-only histogram is `+Inf`: it keeps the latest.
    let last = NATIVE_EXEMPLARS + 2;
    assert_eq!(
        bucket(&h, 0),
        Some((trace(&format!("t{last}")), last as f64))
    );
    // A classic histogram has no ring.
    let classic = Histogram::new([1.0]);
    classic.observe_with_exemplar(0.5, &[("t", "x")]).unwrap();
    classic.native_exemplars(&mut ExemplarBuffer::new(), |_| {
        panic!("no native exemplars")
    });
}

#[test]
fn a_counter_keeps_its_latest_increment_as_exemplar() {
    let c: Counter = Counter::default();
    let mut buffer = ExemplarBuffer::new();
    assert!(c.exemplar(&mut buffer).is_none());
    c.inc_with_exemplar(&[("trace_id", "one")]).unwrap();
    c.inc_by_with_exemplar(5, &[("trace_id", "five")]).unwrap();
    c.inc();
    assert_eq!(c.get(), 7);
    let view = c.exemplar(&mut buffer).unwrap();
    assert_eq!(view.labels().collect::<Vec<_>>(), [("trace_id", "five")]);
    assert_eq!(view.value(), 5.0);

    let seconds: Counter<f64, std::sync::atomic::AtomicU64> = Counter::default();
    seconds
        .inc_by_with_exemplar(0.25, &[("trace_id", "quarter")])
        .unwrap();
    assert_eq!(
        seconds.inc_by_with_exemplar(-1.0, &[("trace_id", "negative")]),
        Err(ExemplarError::RefusedValue)
    );
    assert_eq!(seconds.get(), 0.25);
    let view = seconds.exemplar(&mut buffer).unwrap();
    assert_eq!(view.labels().collect::<Vec<_>>(), [("trace_id", "quarter")]);
}
