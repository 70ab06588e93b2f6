//! A model check of the slot's sequence lock: `loom` runs each test under every interleaving
//! of the slot's atomic operations and fences (up to its preemption bound) and checks that a
//! read is always one written exemplar whole (or empty, or an honest "contended"), and that a
//! write loses only to another write in progress.
//!
//! Built only for the unit tests with `RUSTFLAGS="--cfg loom"` (`.ci/run` runs them so), which
//! builds the slot on loom's atomics. Each exemplar's labels, value and timestamp come from one
//! number, and the two writers' labels have different lengths (one word and two), so a read
//! mixing them is caught.
use loom::model::Builder;
use loom::sync::Arc;
use loom::thread;

use super::*;

/// Checks `model` under every interleaving with at most 2 preemptions (`LOOM_MAX_PREEMPTIONS`
/// overrides it): enough to interleave a read with two writes (the mix a relaxed claim allows
/// is found with 2), small enough to finish in seconds.
fn check(model: impl Fn() + Sync + Send + 'static) {
    let mut builder = Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(2);
    }
    builder.check(model);
}

/// Writer `n`'s labels, value and timestamp (nanoseconds since the epoch).
fn exemplar(n: u32) -> ([(&'static str, &'static str); 1], f64, i64) {
    match n {
        1 => ([("t", "one")], 1.0, 10_000_000_000),
        _ => ([("t", "two-and-longer")], 2.0, 20_500_000_000),
    }
}

fn write(slot: &ExemplarSlot, n: u32) -> Result<(), ExemplarError> {
    let (labels, value, nanos) = exemplar(n);
    with_checked(&labels, |labels| slot.store(labels, value, nanos))?
}

/// The writer whose exemplar `read` is, asserting that it is that exemplar whole.
fn whole(read: ExemplarRead<'_>) -> Option<u32> {
    let view = read.exemplar()?;
    let n = if view.value() == 1.0 { 1 } else { 2 };
    let (labels, value, nanos) = exemplar(n);
    assert_eq!(view.labels().collect::<Vec<_>>(), labels, "{view:?}");
    assert_eq!(view.value(), value, "{view:?}");
    assert_eq!(view.timestamp_seconds(), nanos as f64 / 1e9, "{view:?}");
    Some(n)
}

#[test]
fn a_read_racing_a_write_sees_nothing_or_the_whole_exemplar() {
    check(|| {
        let slot = Arc::new(ExemplarSlot::new());
        let writer = {
            let slot = Arc::clone(&slot);
            thread::spawn(move || write(&slot, 2))
        };
        let mut buffer = ExemplarBuffer::new();
        match slot.read(&mut buffer) {
            ExemplarRead::Empty | ExemplarRead::Contended => {}
            read => assert_eq!(whole(read), Some(2)),
        }
        assert_eq!(
            writer.join().expect("writer"),
            Ok(()),
            "a lone writer is never dropped"
        );
        assert_eq!(whole(slot.read(&mut buffer)), Some(2));
    });
}

#[test]
fn two_writers_and_a_read_never_mix_and_one_exemplar_stays() {
    check(|| {
        let slot = Arc::new(ExemplarSlot::new());
        write(&slot, 1).expect("first write, alone");
        let writers: Vec<_> = [1, 2]
            .map(|n| {
                let slot = Arc::clone(&slot);
                thread::spawn(move || write(&slot, n))
            })
            .into_iter()
            .collect();
        let mut buffer = ExemplarBuffer::new();
        match slot.read(&mut buffer) {
            ExemplarRead::Empty => panic!("the slot held an exemplar"),
            ExemplarRead::Contended => {}
            read => assert!(whole(read).is_some()),
        }
        let kept: Vec<u32> = [1, 2]
            .into_iter()
            .zip(writers)
            .filter_map(|(n, writer)| writer.join().expect("writer").ok().map(|()| n))
            .collect();
        assert!(!kept.is_empty(), "at most one write is dropped");
        let last = whole(slot.read(&mut buffer)).expect("quiet: a whole exemplar");
        assert!(
            kept.contains(&last),
            "{last} is not a kept write of {kept:?}"
        );
    });
}
