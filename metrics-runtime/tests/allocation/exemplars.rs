//! Exemplars allocate once per series, on the first kept one: recording more (with or without
//! a timestamp, from slices, arrays and a hand-written label type), refusing bad ones and
//! reading them all back allocate nothing.

use std::time::{Duration, UNIX_EPOCH};

use crate::counting::allocations_during;
use metric_handles::exemplar::{
    EncodedLabels, ExemplarBuffer, ExemplarError, ExemplarLabels, ExemplarRead, ExemplarSlots,
};
use metric_handles::histogram::NativeConfig;
use metric_handles::{Counter, Histogram, LabelSet};

/// A trace id kept as a number and pushed as hex from the stack.
struct TraceId(u64);

impl ExemplarLabels for TraceId {
    fn encode_exemplar_labels(&self, out: &mut EncodedLabels) -> Result<(), ExemplarError> {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut hex = [0u8; 16];
        for (i, digit) in hex.iter_mut().enumerate() {
            *digit = HEX[((self.0 >> (60 - 4 * i)) & 15) as usize];
        }
        out.push(
            "trace_id",
            std::str::from_utf8(&hex).map_err(|_| ExemplarError::Unencodable)?,
        )
    }
}

#[test]
fn exemplars_allocate_only_their_slots_once() {
    let buckets = ExemplarSlots::new(4);
    let at = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let first = allocations_during(|| {
        buckets
            .record(0, &[("trace_id", "warm")], 0.1, Some(at))
            .expect("kept");
    });
    assert_eq!(first, 1, "the slots of a series are one allocation");
    for index in 1..4 {
        buckets
            .record(index, &[("t", "x")], 1.0, Some(at))
            .expect("kept");
    }

    let mut buffer = ExemplarBuffer::new();
    let mut seen = 0;
    let allocations = allocations_during(|| {
        for i in 0..10_000u64 {
            let index = (i % 4) as usize;
            let labels: &[(&str, &str)] = &[("trace_id", "3a2f90c9f80b894f"), ("span_id", "é")];
            buckets.record(index, &labels, 0.5, None).expect("kept");
            buckets
                .record(index, &[("trace_id", "x")], 0.5, Some(at))
                .expect("kept");
            buckets.record(index, &TraceId(i), 0.5, None).expect("kept");
            // Refused: a bad name, and an index past the buckets.
            assert!(buckets
                .record(index, &[("bad-name", "x")], 0.5, None)
                .is_err());
            assert!(buckets.record(4, &[("t", "x")], 0.5, None).is_err());
            for slot in 0..4 {
                if let ExemplarRead::Exemplar(view) = buckets.read(slot, &mut buffer) {
                    seen += view.labels().count();
                }
            }
        }
    });
    assert_eq!(allocations, 0);
    assert_eq!(seen, 4 * 10_000, "every read found a one-label exemplar");
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
struct Trace {
    trace_id: String,
}

#[test]
fn recording_with_exemplars_allocates_only_on_the_first() {
    let at = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let classic = Histogram::new([0.1, 1.0]);
    let native = Histogram::new_native(NativeConfig::default());
    let counter: Counter = Counter::default();
    let first = allocations_during(|| {
        classic
            .observe_with_exemplar(0.5, &[("trace_id", "warm")])
            .expect("kept");
        counter
            .inc_with_exemplar(&[("trace_id", "warm")])
            .expect("kept");
    });
    assert_eq!(first, 2, "one allocation per series: its slots");
    let first_native = allocations_during(|| {
        native
            .observe_with_exemplar(0.5, &[("trace_id", "warm")])
            .expect("kept");
    });
    // The classic `+Inf` slot, the ring; the native buckets' first observation may allocate
    // their table.
    assert!(first_native >= 2, "{first_native}");
    native.observe(0.7);
    let checked = EncodedLabels::try_from_pairs(&[("trace_id", "checked")]).expect("valid");
    let mut request = classic.local();
    // The first merge into a histogram makes its merge area (the only allocation of a merge).
    request.observe(0.0);
    request.flush();
    let allocations = allocations_during(|| {
        for i in 0..10_000u32 {
            let value = f64::from(i % 3) * 0.4;
            let trace: &[(&str, &str)] = &[("trace_id", "3a2f90c9f80b894f")];
            classic.observe_with_exemplar(value, trace).expect("kept");
            classic
                .observe_with_exemplar_at(value, &checked, at)
                .expect("kept");
            native
                .observe_with_exemplar(0.7, &[("trace_id", "n")])
                .expect("kept");
            request.observe_with_exemplar(value, trace).expect("kept");
            counter.inc_by_with_exemplar(2, &checked).expect("kept");
            counter
                .inc_by_with_exemplar_at(2, &TraceId(u64::from(i)), at)
                .expect("kept");
            // Refused: a bad name; the observation is recorded all the same.
            assert!(classic
                .observe_with_exemplar(value, &[("bad-name", "x")])
                .is_err());
        }
    });
    assert_eq!(allocations, 0);
    drop(request);
    assert_eq!(classic.snapshot().count(), 2 + 4 * 10_000);
    assert_eq!(counter.get(), 1 + 4 * 10_000);
}

#[test]
fn a_label_set_type_is_written_through_prometheus_client_which_allocates() {
    let histogram = Histogram::new([1.0]);
    let trace = Trace {
        trace_id: "3a2f".into(),
    };
    histogram.observe_with_exemplar(0.5, &trace).expect("kept");
    let allocations = allocations_during(|| {
        histogram.observe_with_exemplar(0.5, &trace).expect("kept");
    });
    assert!(allocations > 0, "a scratch registry per record");
}
