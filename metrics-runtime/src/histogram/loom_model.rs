//! A model check of the histogram's scrape protocol: `loom` runs each test under every
//! interleaving of the histogram's atomic operations (up to its preemption bound) and checks
//! that every snapshot holds `_sum`, `_count` and the buckets of one set of observations,
//! that none is lost, and that shards installed while records and scrapes run lose nothing.
//!
//! Built only for the unit tests with `RUSTFLAGS="--cfg loom"` (`.ci/run` runs them so), which
//! builds the histogram on loom's atomics and lock. Every value is 2.0, alone in the `le="4"` bucket, so a snapshot is consistent exactly
//! when its sum is twice its count and every observation sits in that bucket.
use crate::histogram::HistogramSnapshot;
use crate::Histogram;
use loom::thread;

/// Runs `f` under every interleaving loom explores with at most two preemptions per execution
/// (`LOOM_MAX_PREEMPTIONS` overrides it; loom's documentation finds 2 or 3 enough): the
/// protocol's races need two, and without a bound the models with a shard install take hours.
/// At two, these models fail on a scrape that does not wait for the records it turned cold,
/// that leaves out the complete half or a merge area, a bucket count or a merge flag released
/// `Relaxed`, a merge flag never taken, and shards installed on the wrong half; each bound
/// more multiplies their executions (the five took 65 s at four preemptions, 6 s at two).
fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(2);
    }
    // A scrape's wait re-reads the blocks and their merge areas on each turn: more branches
    // per execution than loom's default allows while a preempted merge holds it up.
    builder.max_branches = 100_000;
    builder.check(f);
}

/// The bounds of every model: 2.0 falls in the second bucket.
const BOUNDS: [f64; 2] = [1.0, 4.0];

/// Asserts that `snapshot` is made of whole observations of 2.0, and returns their count.
fn consistent(snapshot: &HistogramSnapshot) -> u64 {
    let count = snapshot.count();
    assert_eq!(snapshot.bucket_counts(), &[0, count, 0], "{snapshot:?}");
    assert_eq!(snapshot.sum(), 2.0 * count as f64, "{snapshot:?}");
    count
}

/// A request-local view merging a batch of `n` observations of 2.0.
fn merge_batch(histogram: &Histogram, n: usize) {
    let mut local = histogram.local_with_interval(n);
    for _ in 0..n {
        local.observe(2.0);
    }
}

#[test]
fn a_snapshot_racing_an_observe_and_a_merge_sees_whole_records() {
    model(|| {
        let histogram = Histogram::new(BOUNDS);
        let observer = {
            let h = histogram.clone();
            thread::spawn(move || h.observe(2.0))
        };
        let merger = {
            let h = histogram.clone();
            thread::spawn(move || merge_batch(&h, 2))
        };
        // Either record, both, or neither; the batch never split.
        let seen = consistent(&histogram.snapshot());
        assert!(matches!(seen, 0 | 1 | 2 | 3), "{seen}");
        observer.join().expect("observer");
        merger.join().expect("merger");
        assert_eq!(consistent(&histogram.snapshot()), 3, "nothing lost");
    });
}

#[test]
fn snapshots_in_a_row_never_go_back_and_miss_nothing() {
    model(|| {
        let histogram = Histogram::new(BOUNDS);
        let recorder = {
            let h = histogram.clone();
            thread::spawn(move || {
                h.observe(2.0);
                merge_batch(&h, 1);
            })
        };
        let first = consistent(&histogram.snapshot());
        let second = consistent(&histogram.snapshot());
        assert!(first <= second, "{first} then {second}");
        recorder.join().expect("recorder");
        assert_eq!(consistent(&histogram.snapshot()), 2, "nothing lost");
    });
}

#[test]
fn two_merges_on_one_block_and_a_snapshot_lose_nothing() {
    // The base block's merge area made before the race (its making races a scrape in the
    // model below): both merges start in the base block, one takes the area's flag, the
    // other finds it taken, adds to the block's own cells and may install the shards, or
    // find the snapshot holding the lock and go on.
    model(|| {
        let histogram = Histogram::new(BOUNDS);
        merge_batch(&histogram, 1);
        let mergers: Vec<_> = (0..2)
            .map(|_| {
                let h = histogram.clone();
                thread::spawn(move || merge_batch(&h, 1))
            })
            .collect();
        let seen = consistent(&histogram.snapshot());
        assert!(matches!(seen, 1..=3), "{seen}");
        for merger in mergers {
            merger.join().expect("merger");
        }
        assert_eq!(consistent(&histogram.snapshot()), 3, "nothing lost");
    });
}

#[test]
fn a_merge_that_makes_the_merge_area_racing_snapshots_is_counted_once() {
    // The first merge makes the area while scrapes turn and wait: a scrape that waits for
    // it must find the area it writes, and one that came before must leave it whole.
    model(|| {
        let histogram = Histogram::new(BOUNDS);
        let merger = {
            let h = histogram.clone();
            thread::spawn(move || merge_batch(&h, 2))
        };
        let first = consistent(&histogram.snapshot());
        let second = consistent(&histogram.snapshot());
        assert!(first <= second && second <= 2, "{first} then {second}");
        merger.join().expect("merger");
        assert_eq!(consistent(&histogram.snapshot()), 2, "nothing lost");
    });
}

#[test]
fn records_racing_the_install_of_the_shards_and_a_snapshot_lose_nothing() {
    // A record in the base block, one that may land in a shard, the install between them, and
    // a snapshot that may come before, between or after any of them.
    model(|| {
        let histogram = Histogram::new(BOUNDS);
        let installer = {
            let h = histogram.clone();
            thread::spawn(move || {
                h.observe(2.0);
                h.core.contended();
            })
        };
        let recorder = {
            let h = histogram.clone();
            thread::spawn(move || h.observe(2.0))
        };
        // Two scrapes, so that one may turn the halves before the install and the other read
        // the shard's half while the second record is under way there.
        let first = consistent(&histogram.snapshot());
        let second = consistent(&histogram.snapshot());
        assert!(first <= second && second <= 2, "{first} then {second}");
        installer.join().expect("installer");
        recorder.join().expect("recorder");
        assert_eq!(consistent(&histogram.snapshot()), 2, "nothing lost");
    });
}

/// Checks `model` under every interleaving with at most `preemptions` preemptions
/// (`LOOM_MAX_PREEMPTIONS` overrides it). A native record may make and install a table (with
/// a compare-and-swap a reader waits to see released under loom), so unbounded, a model of
/// three threads runs for longer than CI allows; three preemptions still put a scrape's turn,
/// wait and drain between any two steps of a record. The scrape model of three threads runs
/// at two, in about a sixth of its time at three, and still fails on a native count added
/// `Relaxed` or a drain that does not wait for the half.
fn native_model(preemptions: usize, model: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(preemptions);
    }
    // A scrape's wait re-reads every table of the half on each turn: more branches per
    // execution than loom's default allows while a preempted record holds it up.
    builder.max_branches = 100_000;
    builder.check(model);
}

/// A histogram with native buckets only, one bucket allowed: 2.0 is native bucket 8 at
/// schema 3, bucket 1 at schema 0.
fn native_histogram() -> Histogram {
    Histogram::new_native(crate::histogram::NativeConfig::with_schema(3).max_buckets(1))
}

/// Asserts that `snapshot`'s native side holds exactly its `_count` observations of 2.0, and
/// returns their count.
fn native_consistent(snapshot: &HistogramSnapshot) -> u64 {
    let count = snapshot.count();
    assert_eq!(snapshot.sum(), 2.0 * count as f64, "{snapshot:?}");
    let native = snapshot.native().expect("native buckets");
    assert_eq!(native.count(), count, "{snapshot:?}");
    assert_eq!(native.zero_count(), 0, "{snapshot:?}");
    count
}

#[test]
fn native_buckets_racing_a_snapshot_hold_whole_records() {
    native_model(2, || {
        let histogram = native_histogram();
        // The first table made before the race (its install races are the models below):
        // this model is the scrape protocol's.
        histogram.observe(2.0);
        let observer = {
            let h = histogram.clone();
            thread::spawn(move || h.observe(2.0))
        };
        let merger = {
            let h = histogram.clone();
            thread::spawn(move || merge_batch(&h, 2))
        };
        let seen = native_consistent(&histogram.snapshot());
        assert!(matches!(seen, 1..=4), "{seen}");
        observer.join().expect("observer");
        merger.join().expect("merger");
        assert_eq!(native_consistent(&histogram.snapshot()), 4, "nothing lost");
    });
}

#[test]
fn a_record_that_read_the_schema_before_a_scrape_lowered_it_is_still_counted() {
    native_model(3, || {
        let histogram = native_histogram();
        // Two buckets over a limit of one: the first scrape halves the schema until they
        // merge, while a third record races it with whichever schema it reads.
        histogram.observe(1.5);
        histogram.observe(3.0);
        let recorder = {
            let h = histogram.clone();
            thread::spawn(move || h.observe(2.5))
        };
        let first = histogram.snapshot();
        let native = first.native().expect("native");
        assert_eq!(native.count(), first.count(), "{first:?}");
        assert!(native.positive().len() <= 1, "{first:?}");
        recorder.join().expect("recorder");
        let last = histogram.snapshot();
        assert_eq!(last.count(), 3);
        assert_eq!(last.native().map(|n| n.count()), Some(3), "{last:?}");
    });
}

/// Asserts that `snapshot`'s native side holds exactly its `_count` observations, none in the
/// zero bucket, and returns their count.
fn native_complete(snapshot: &HistogramSnapshot) -> u64 {
    let count = snapshot.count();
    let native = snapshot.native().expect("native buckets");
    assert_eq!(native.count(), count, "{snapshot:?}");
    assert_eq!(native.zero_count(), 0, "{snapshot:?}");
    count
}

#[test]
fn a_record_that_grows_its_chain_racing_a_drain_is_counted_once() {
    // The first table has one reservation under loom: 2.0 takes it, and 3.0 (another bucket)
    // makes and installs the next table while a scrape turns and drains the half.
    native_model(3, || {
        let histogram = native_histogram();
        histogram.observe(2.0);
        let grower = {
            let h = histogram.clone();
            thread::spawn(move || h.observe(3.0))
        };
        let seen = native_complete(&histogram.snapshot());
        assert!(matches!(seen, 1 | 2), "{seen}");
        grower.join().expect("grower");
        let last = histogram.snapshot();
        assert_eq!(native_complete(&last), 2, "nothing lost: {last:?}");
        assert_eq!(last.sum(), 5.0, "{last:?}");
    });
}

#[test]
fn two_records_racing_to_make_the_same_table_lose_nothing() {
    // Both find the first table's reservation taken and race to install the next table: one
    // wins, the other frees its own and counts in the winner's.
    native_model(3, || {
        let histogram = native_histogram();
        histogram.observe(2.0);
        let growers: Vec<_> = [3.0, 5.0]
            .into_iter()
            .map(|value| {
                let h = histogram.clone();
                thread::spawn(move || h.observe(value))
            })
            .collect();
        for grower in growers {
            grower.join().expect("grower");
        }
        let last = histogram.snapshot();
        assert_eq!(native_complete(&last), 3, "nothing lost: {last:?}");
        assert_eq!(last.sum(), 10.0, "{last:?}");
    });
}

/// Asserts that `snapshot`'s classic and native buckets hold the same whole observations of
/// 2.0, and returns their count.
fn both_consistent(snapshot: &HistogramSnapshot) -> u64 {
    let count = consistent(snapshot);
    assert_eq!(native_consistent(snapshot), count);
    count
}

#[test]
fn a_merge_that_makes_the_merge_area_racing_drains_of_a_classic_and_native_histogram_is_counted_once(
) {
    // Classic buckets beside native ones: a merge goes through the block's merge area, and a
    // scrape drains each half it reads. The first merge makes the area while scrapes turn and
    // drain: a drain that waits for it must find the area it writes (and clear it), one that
    // came before must leave it whole for the next. Fails at two preemptions on a drain that
    // reads the area's pointer once before its wait (it waits for ever) or leaves the area
    // uncleared (a later scrape counts the batch again).
    native_model(2, || {
        let histogram = Histogram::new_classic_and_native(
            BOUNDS,
            crate::histogram::NativeConfig::with_schema(3).max_buckets(1),
        );
        let merger = {
            let h = histogram.clone();
            thread::spawn(move || merge_batch(&h, 2))
        };
        let first = both_consistent(&histogram.snapshot());
        let second = both_consistent(&histogram.snapshot());
        assert!(first <= second && second <= 2, "{first} then {second}");
        merger.join().expect("merger");
        assert_eq!(both_consistent(&histogram.snapshot()), 2, "nothing lost");
        // A batch into each half after the race: a drain that left a half of the area
        // uncleared would count the race's batch again.
        for total in [4, 6] {
            merge_batch(&histogram, 2);
            assert_eq!(
                both_consistent(&histogram.snapshot()),
                total,
                "counted once"
            );
        }
    });
}
