//! The rules, the slot's round trip, its contention outcomes, and a race of writers against a
//! reader that must only ever see whole exemplars.
// Not under the loom model, whose atomics work only inside `loom::model`.
#![cfg(not(loom))]

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use prometheus_client::encoding::text;
use prometheus_client::metrics::exemplar::CounterWithExemplar;
use prometheus_client::registry::Registry;

use super::*;
use crate::LabelSet;

/// A fixed timestamp: 1700000000.5 seconds after the epoch.
fn at() -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(1_700_000_000_500)
}

/// Records `labels` in a fresh slot and reads them back as owned pairs.
fn round_trip(
    labels: &(impl ExemplarLabels + ?Sized),
) -> Result<Vec<(String, String)>, ExemplarError> {
    let slot = ExemplarSlot::new();
    slot.record(labels, 0.31, Some(at()))?;
    let mut buffer = ExemplarBuffer::new();
    let view = slot.read(&mut buffer).exemplar().expect("a whole exemplar");
    Ok(view
        .labels()
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect())
}

fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|&(name, value)| (name.to_owned(), value.to_owned()))
        .collect()
}

#[test]
fn a_slice_round_trips_with_its_value_and_timestamp() {
    let slot = ExemplarSlot::new();
    let labels: &[(&str, &str)] = &[("trace_id", "abc"), ("span_id", "0f")];
    assert_eq!(slot.record(&labels, 0.31, Some(at())), Ok(()));
    let mut buffer = ExemplarBuffer::new();
    let view = slot.read(&mut buffer).exemplar().expect("a whole exemplar");
    assert_eq!(view.labels().collect::<Vec<_>>(), labels);
    assert_eq!(view.value(), 0.31);
    assert_eq!(view.timestamp_seconds(), 1_700_000_000.5);
    assert_eq!(view.timestamp(), Some(at()));
}

#[test]
fn timestamps_keep_every_nanosecond_before_and_after_the_epoch_and_saturate_past_i64() {
    let labels = [("trace_id", "t")];
    let mut buffer = ExemplarBuffer::new();
    let after = UNIX_EPOCH + Duration::new(1_764_770_000, 123_456_789);
    let before = UNIX_EPOCH - Duration::new(86_400, 1);
    for time in [after, before, UNIX_EPOCH] {
        let slot = ExemplarSlot::new();
        assert_eq!(slot.record(&labels, 1.0, Some(time)), Ok(()));
        let view = slot.read(&mut buffer).exemplar().expect("a whole exemplar");
        assert_eq!(view.timestamp(), Some(time));
    }
    let slot = ExemplarSlot::new();
    assert_eq!(slot.record(&labels, 1.0, Some(before)), Ok(()));
    let view = slot.read(&mut buffer).exemplar().expect("a whole exemplar");
    assert_eq!(view.timestamp_seconds(), -86_400.000_000_001);
    // Past the year 2262 the nanoseconds saturate instead of wrapping to the past.
    let far = UNIX_EPOCH + Duration::from_secs(20_000_000_000);
    let slot = ExemplarSlot::new();
    assert_eq!(slot.record(&labels, 1.0, Some(far)), Ok(()));
    let view = slot.read(&mut buffer).exemplar().expect("a whole exemplar");
    assert_eq!(view.timestamp_seconds(), i64::MAX as f64 / 1e9);
}

#[test]
fn an_array_round_trips() {
    let labels = [("trace_id", "x\"y\\z\n")];
    assert_eq!(round_trip(&labels), Ok(owned(&labels)));
}

#[test]
fn an_empty_label_set_is_an_exemplar() {
    let labels: [(&str, &str); 0] = [];
    assert_eq!(round_trip(&labels), Ok(Vec::new()));
}

#[test]
fn the_later_exemplar_replaces_the_earlier() {
    let slot = ExemplarSlot::new();
    slot.record(&[("trace_id", "a long first trace id")], 1.0, Some(at()))
        .unwrap();
    slot.record(&[("t", "b")], 2.0, Some(at())).unwrap();
    let mut buffer = ExemplarBuffer::new();
    let view = slot.read(&mut buffer).exemplar().unwrap();
    assert_eq!(view.labels().collect::<Vec<_>>(), [("t", "b")]);
    assert_eq!(view.value(), 2.0);
}

#[test]
fn without_a_timestamp_the_exemplar_is_stamped_now() {
    let slot = ExemplarSlot::new();
    let before = SystemTime::now();
    slot.record(&[("t", "a")], 1.0, None).unwrap();
    let after = SystemTime::now();
    let mut buffer = ExemplarBuffer::new();
    let stamped = slot
        .read(&mut buffer)
        .exemplar()
        .unwrap()
        .timestamp()
        .unwrap();
    // Through f64 seconds the stamp may round by a microsecond either way.
    let slack = Duration::from_micros(1);
    assert!(
        stamped + slack >= before && stamped <= after + slack,
        "{stamped:?}"
    );
}

#[test]
fn an_empty_slot_reads_empty() {
    let mut buffer = ExemplarBuffer::new();
    assert!(matches!(
        ExemplarSlot::new().read(&mut buffer),
        ExemplarRead::Empty
    ));
}

#[test]
fn the_limit_counts_characters_not_bytes() {
    // "v" + 127 four-byte characters: 128 characters in 509 bytes, the most bytes a valid
    // label set can take (plus its 3 length bytes: 512).
    let widest = "😀".repeat(127);
    assert_eq!(
        round_trip(&[("v", widest.as_str())]),
        Ok(owned(&[("v", &widest)]))
    );
    let three_byte = "€".repeat(126);
    assert_eq!(
        round_trip(&[("ab", three_byte.as_str())]).map(|p| p.len()),
        Ok(1)
    );
    // One character more, in a second label.
    assert_eq!(
        round_trip(&[("v", widest.as_str()), ("w", "")]),
        Err(ExemplarError::TooLong { chars: 129 })
    );
    let ascii = "x".repeat(128);
    assert_eq!(
        round_trip(&[("v", ascii.as_str())]),
        Err(ExemplarError::TooLong { chars: 129 })
    );
}

#[test]
fn many_short_labels_up_to_the_limit_fit() {
    // 64 labels with empty values: 102 characters of names, each pair with its length bytes.
    let names: Vec<String> = (0..64u8).map(name_of).collect();
    let pairs: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "")).collect();
    let chars: usize = pairs.iter().map(|(n, v)| n.len() + v.len()).sum();
    assert_eq!(chars, 102);
    assert_eq!(round_trip(pairs.as_slice()).map(|p| p.len()), Ok(64));
}

/// A distinct label name of one or two characters.
fn name_of(i: u8) -> String {
    let letter = char::from(b'a' + i % 26);
    match i / 26 {
        0 => letter.to_string(),
        n => format!("{letter}{n}"),
    }
}

#[test]
fn invalid_and_repeated_label_names_are_refused() {
    for name in ["", "1a", "a-b", "é", "a b", "trace.id"] {
        assert_eq!(
            round_trip(&[(name, "v")]),
            Err(ExemplarError::InvalidLabelName),
            "{name:?}"
        );
    }
    assert_eq!(round_trip(&[("_a1", "v")]).map(|p| p.len()), Ok(1));
    assert_eq!(
        round_trip(&[("a", "1"), ("b", "2"), ("a", "3")]),
        Err(ExemplarError::DuplicateLabelName)
    );
}

#[test]
fn a_refused_exemplar_is_counted_and_leaves_the_slot_as_it_was() {
    let slot = ExemplarSlot::new();
    slot.record(&[("t", "kept")], 1.0, Some(at())).unwrap();
    let before = rejected_exemplars();
    assert_eq!(
        slot.record(&[("bad-name", "x")], 2.0, Some(at())),
        Err(ExemplarError::InvalidLabelName)
    );
    // Other tests refuse exemplars concurrently: at least this one was counted.
    assert!(rejected_exemplars() > before);
    let mut buffer = ExemplarBuffer::new();
    let view = slot.read(&mut buffer).exemplar().unwrap();
    assert_eq!(view.labels().collect::<Vec<_>>(), [("t", "kept")]);
    assert_eq!(view.value(), 1.0);
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, crate::LabelSet)]
struct Trace {
    trace_id: String,
    span_id: u32,
}

#[test]
fn a_label_set_is_read_as_written_and_unescaped() {
    let trace = Trace {
        trace_id: "a\"b\\c\nd€".to_owned(),
        span_id: 7,
    };
    assert_eq!(<Trace as LabelSet>::KEYS, ["trace_id", "span_id"]);
    assert_eq!(
        round_trip(&trace),
        Ok(owned(&[("trace_id", "a\"b\\c\nd€"), ("span_id", "7")]))
    );
}

#[test]
fn a_label_set_over_the_limit_is_refused() {
    let trace = Trace {
        trace_id: "€".repeat(120),
        span_id: 1_234_567,
    };
    // 8 + 120 + 7 + 7 characters.
    assert_eq!(
        round_trip(&trace),
        Err(ExemplarError::TooLong { chars: 142 })
    );
    let escaped = Trace {
        trace_id: "\"".repeat(1000),
        span_id: 1,
    };
    assert!(matches!(
        round_trip(&escaped),
        Err(ExemplarError::TooLong { .. })
    ));
}

#[test]
fn a_writer_finding_the_slot_claimed_drops_its_exemplar() {
    let slot = ExemplarSlot::new();
    slot.record(&[("t", "first")], 1.0, Some(at())).unwrap();
    // Another writer's claim, as it looks from outside: an odd sequence.
    let published = slot.sequence.load(Ordering::Relaxed);
    slot.sequence.store(published + 1, Ordering::Relaxed);
    let dropped = dropped_exemplars();
    assert_eq!(
        slot.record(&[("t", "second")], 2.0, Some(at())),
        Err(ExemplarError::Contended)
    );
    assert!(dropped_exemplars() > dropped);
    // A read during the claim gives up after its bounded attempts instead of spinning.
    let mut buffer = ExemplarBuffer::new();
    assert!(matches!(slot.read(&mut buffer), ExemplarRead::Contended));
    // The claim published: the slot reads again.
    slot.sequence.store(published + 2, Ordering::Relaxed);
    let view = slot.read(&mut buffer).exemplar().unwrap();
    assert_eq!(view.labels().collect::<Vec<_>>(), [("t", "first")]);
}

#[test]
fn slots_are_allocated_by_the_first_kept_exemplar_only() {
    let slots = ExemplarSlots::new(3);
    let mut buffer = ExemplarBuffer::new();
    assert!(!slots.is_allocated());
    assert!(matches!(slots.read(0, &mut buffer), ExemplarRead::Empty));
    assert_eq!(
        slots.record(0, &[("", "v")], 1.0, None),
        Err(ExemplarError::InvalidLabelName)
    );
    assert_eq!(
        slots.record(3, &[("t", "v")], 1.0, None),
        Err(ExemplarError::NoSuchSlot)
    );
    assert!(
        !slots.is_allocated(),
        "a refused exemplar allocates nothing"
    );
    slots.record(2, &[("t", "two")], 2.0, Some(at())).unwrap();
    assert!(slots.is_allocated());
    assert_eq!(slots.len(), 3);
    assert!(matches!(slots.read(0, &mut buffer), ExemplarRead::Empty));
    assert!(matches!(slots.read(3, &mut buffer), ExemplarRead::Empty));
    let view = slots.read(2, &mut buffer).exemplar().unwrap();
    assert_eq!(view.labels().collect::<Vec<_>>(), [("t", "two")]);
    assert_eq!(ExemplarSlots::single().len(), 1);
}

#[test]
fn a_read_feeds_prometheus_clients_exemplar() {
    // prometheus-client's `Exemplar` has no public constructor: its counter with an exemplar
    // builds one. The buffer outlives the registry.
    let buffer: &'static mut ExemplarBuffer = Box::leak(Box::new(ExemplarBuffer::new()));
    let slot = ExemplarSlot::new();
    slot.record(&[("trace_id", "abc"), ("q", "a\"b")], 0.5, Some(at()))
        .unwrap();
    let view = slot.read(buffer).exemplar().unwrap();
    let counter = CounterWithExemplar::<ExemplarLabelSet<'static>, f64>::default();
    counter.inc_by(view.value(), Some(view.label_set()), view.timestamp());
    let mut registry = Registry::default();
    registry.register("requests", "Requests", counter);
    let mut out = String::new();
    text::encode(&mut out, &registry).unwrap();
    assert!(
        out.contains("requests_total 0.5 # {trace_id=\"abc\",q=\"a\\\"b\"} 0.5 1700000000.5\n"),
        "{out}"
    );
}

/// Writer `w`'s exemplar number `n`: labels, value and timestamp all made from `(w, n)`, with
/// a label length that changes with `n`, so a read mixing two writes is caught.
fn exemplar_of(w: u32, n: u32) -> (String, String, f64, SystemTime) {
    let id = format!("{w}-{n}");
    // 60 to 109 bytes of one letter: a copy torn between two writes mixes letters or lengths.
    let letter = char::from(b'a' + (n % 26) as u8);
    let filler = letter.to_string().repeat(60 + (n % 50) as usize);
    let value = f64::from(w) * 1e6 + f64::from(n);
    (
        id,
        filler,
        value,
        UNIX_EPOCH + Duration::from_secs(u64::from(w) * 1_000_000 + u64::from(n)),
    )
}

#[test]
fn a_reader_racing_writers_sees_only_whole_exemplars() {
    const WRITERS: u32 = 3;
    const WRITES: u32 = 20_000;
    let slot = Arc::new(ExemplarSlot::new());
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let slot = Arc::clone(&slot);
            thread::spawn(move || {
                for n in 0..WRITES {
                    let (id, filler, value, at) = exemplar_of(w, n);
                    // A contended write is dropped by design; anything else is a failure.
                    match slot.record(
                        &[("id", id.as_str()), ("fill", filler.as_str())],
                        value,
                        Some(at),
                    ) {
                        Ok(()) | Err(ExemplarError::Contended) => {}
                        Err(other) => panic!("{other}"),
                    }
                }
            })
        })
        .collect();
    let mut buffer = ExemplarBuffer::new();
    let check = |view: ExemplarView<'_>| {
        let pairs: Vec<_> = view.labels().collect();
        let [("id", id), ("fill", fill)] = pairs[..] else {
            panic!("{view:?}")
        };
        let (w, n) = id.split_once('-').unwrap();
        let expected = exemplar_of(w.parse().unwrap(), n.parse().unwrap());
        assert_eq!(fill, expected.1, "{view:?}");
        assert_eq!(view.value(), expected.2, "{view:?}");
        assert_eq!(view.timestamp(), Some(expected.3), "{view:?}");
    };
    while writers.iter().any(|writer| !writer.is_finished()) {
        if let ExemplarRead::Exemplar(view) = slot.read(&mut buffer) {
            check(view);
        }
    }
    for writer in writers {
        writer.join().expect("writer");
    }
    // Quiet now: the read is whole and is some writer's exemplar.
    check(slot.read(&mut buffer).exemplar().expect("a whole exemplar"));
}
