//! Unit tests of the histogram's cells, merge protocol and snapshot.

use super::shards::{CELLS_PER_LINE, COUNT_MASK, STARTED};
use super::sync::{AtomicU64, Ordering};
use super::thread_shard::{shard_count, thread_index, MAX_SHARDS};
use super::Histogram;
use super::HistogramBuffer;

#[test]
fn values_land_in_the_first_bucket_whose_bound_is_not_below_them() {
    let h = Histogram::new([1.0, 2.0, 5.0]);
    for v in [0.5, 1.0, 1.5, 2.0, 4.9, 5.0, 5.1, -3.0] {
        h.observe(v);
    }
    assert_eq!(h.snapshot().bucket_counts(), &[3, 2, 2, 1]);
    assert_eq!(h.snapshot().count(), 8);
}

#[test]
fn non_finite_observations_count_in_inf_and_never_reach_the_sum() {
    let h = Histogram::new([1.0]);
    h.observe(f64::NAN);
    h.observe(f64::INFINITY);
    h.observe(f64::NEG_INFINITY);
    h.observe(0.25);
    let s = h.snapshot();
    // -Inf is below every bound, so it is counted in the first bucket.
    assert_eq!(s.bucket_counts(), &[2, 2]);
    assert_eq!(s.sum(), 0.25);
}

#[test]
fn the_sum_saturates_instead_of_overflowing_to_infinity() {
    let h = Histogram::new([1.0]);
    h.observe(f64::MAX);
    h.observe(f64::MAX);
    assert_eq!(h.snapshot().sum(), f64::MAX);
    h.observe(-f64::MAX);
    assert_eq!(h.snapshot().sum(), 0.0);
    for _ in 0..3 {
        h.observe(-f64::MAX);
    }
    assert_eq!(h.snapshot().sum(), -f64::MAX);
    assert_eq!(h.snapshot().count(), 6);
}

#[test]
fn bounds_are_sanitised_not_rejected() {
    let h = Histogram::new([5.0, f64::NAN, 1.0, 1.0, f64::INFINITY, 2.0]);
    assert_eq!(h.bounds(), &[1.0, 2.0, 5.0]);
}

#[test]
fn long_bucket_lists_use_the_binary_search_with_the_same_result() {
    let bounds: Vec<f64> = (1..=100).map(f64::from).collect();
    let h = Histogram::new(bounds.clone());
    let short = Histogram::new(bounds[..30].to_vec());
    for v in [0.0, 1.0, 29.5, 30.0, 31.0, 99.9, 100.0, 1e9, f64::NAN] {
        let expected = bounds.iter().position(|&b| b >= v).unwrap_or(bounds.len());
        assert_eq!(h.core.bucket_index(v), expected, "value {v}");
        let expected_short = bounds[..30].iter().position(|&b| b >= v).unwrap_or(30);
        assert_eq!(short.core.bucket_index(v), expected_short, "value {v}");
    }
}

#[test]
fn concurrent_observations_are_all_counted_and_summed() {
    let h = Histogram::new([0.5, 1.5]);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..10_000 {
                    h.observe(1.0);
                }
            });
        }
    });
    let snap = h.snapshot();
    assert_eq!(snap.count(), 40_000);
    assert_eq!(snap.bucket_counts(), &[0, 40_000, 0]);
    assert_eq!(snap.sum(), 40_000.0);
}

#[test]
fn blocks_never_share_a_cache_line_pair() {
    let h = Histogram::new(ITL);
    let core = &*h.core;
    install_shards(&h);
    let shards = core.shards.get().expect("installed");
    let line_of = |cell: &AtomicU64| cell as *const AtomicU64 as usize / 128;
    // The last cell of a block: the second half's `+Inf` bucket.
    let last = core.layout.cells() - 1;
    assert_eq!(last, core.layout.half(1) + ITL.len() + 1);
    let mut blocks = vec![core.base()];
    blocks.extend((0..shards.count()).map(|shard| shards.block(core.layout, shard)));
    for pair in blocks.windows(2) {
        let end = line_of(pair[0].cell(last).expect("last cell of a block"));
        let next = line_of(pair[1].cell(STARTED).expect("first cell of the next block"));
        assert_ne!(
            end, next,
            "a block ends on the line where the next one starts"
        );
    }
    // A block's last cell is inside it, and the next cell is not.
    for block in blocks {
        assert!(block.cell(last).is_some());
        assert!(block.cell(block.lines.len() * CELLS_PER_LINE).is_none());
    }
}

#[test]
fn an_uncontended_series_keeps_one_block_whatever_the_core_count() {
    let h = Histogram::new(ITL);
    let mut pending = HistogramBuffer::new();
    for round in 0..100 {
        h.observe(f64::from(round) * 0.01);
        assert!(pending.push(0.3));
        if pending.is_full() {
            h.merge(&mut pending);
        }
        if round % 10 == 0 {
            let _ = h.snapshot();
        }
    }
    let core = &*h.core;
    assert!(
        core.shards.get().is_none(),
        "one thread never meets another"
    );
    // 19 bounds: a started count and two halves of a sum and 20 buckets, 43 cells on 3 lines.
    assert_eq!(core.base.len(), 3);
    assert_eq!(h.snapshot().count(), 100 + 96);
}

#[test]
fn every_histogram_with_the_same_bounds_shares_one_copy_of_them() {
    let a = Histogram::new(ITL);
    let b = Histogram::new(ITL.iter().rev().copied());
    let c = Histogram::new([1.0, 2.0]);
    assert!(std::sync::Arc::ptr_eq(&a.core.bounds, &b.core.bounds));
    assert!(!std::sync::Arc::ptr_eq(&a.core.bounds, &c.core.bounds));
    assert_eq!(b.bounds(), &ITL);
}

#[test]
fn threads_are_numbered_in_the_order_they_first_record() {
    let first = std::thread::spawn(thread_index).join().expect("thread");
    let second = std::thread::spawn(thread_index).join().expect("thread");
    // Other tests may number threads in between, but a number is never handed out twice.
    assert!(second > first, "{first} then {second}");
}

/// Installs `h`'s shards, as the first record that meets another's does.
fn install_shards(h: &Histogram) {
    h.install_shards();
}

#[test]
fn the_snapshot_adds_the_base_block_and_every_shard_up() {
    let h = Histogram::new([1.0, 2.0]);
    let values = [0.5, 1.5, 2.5, 0.25];
    values.iter().for_each(|&v| h.observe(v));
    install_shards(&h);
    std::thread::scope(|s| {
        for _ in 0..(2 * MAX_SHARDS) {
            s.spawn(|| values.iter().for_each(|&v| h.observe(v)));
        }
    });
    let snap = h.snapshot();
    let n = 1 + 2 * MAX_SHARDS as u64;
    assert_eq!(snap.bucket_counts(), &[2 * n, n, n]);
    assert_eq!(snap.count(), 4 * n);
    assert_eq!(snap.sum(), 4.75 * n as f64);
}

#[test]
fn the_total_of_saturated_blocks_saturates_too() {
    let h = Histogram::new([1.0]);
    h.observe(f64::MAX);
    install_shards(&h);
    // Enough threads that at least one shard saturates besides the base block.
    std::thread::scope(|s| {
        for _ in 0..(2 * MAX_SHARDS) {
            s.spawn(|| h.observe(f64::MAX));
        }
    });
    assert_eq!(h.snapshot().sum(), f64::MAX);
}

#[test]
fn shards_installed_after_a_scrape_start_on_the_hot_half_of_the_base_block() {
    let h = Histogram::new([1.0, 2.0]);
    let mut pending = HistogramBuffer::new();
    h.observe(0.5);
    // The scrape turns half 1 hot: shards installed now must write it too.
    assert_eq!(h.snapshot().bucket_counts(), &[1, 0, 0]);
    install_shards(&h);
    let core = &*h.core;
    let mine = thread_index() & core.shards.get().expect("installed").mask;
    h.observe(1.5);
    for v in [2.5, 0.25] {
        assert!(pending.push(v));
    }
    h.merge(&mut pending);
    let shards = core.shards.get().expect("installed");
    let block = shards.block(core.layout, mine);
    let direct = |cell: usize| block.cell(cell).map(|c| c.load(Ordering::Relaxed));
    let hot = core.layout.half(1);
    // The observation in the shard's own cells, the batch in its merge area; both in half 1.
    assert_eq!(direct(hot + 2), Some(1));
    assert_eq!(f64::from_bits(direct(hot).unwrap_or(0)), 1.5);
    let area = core.merge_area(1 + mine).expect("made by the merge");
    let merged = |cell: usize| area.cell(cell).map(|c| c.load(Ordering::Relaxed));
    assert_eq!((merged(hot + 1), merged(hot + 3)), (Some(1), Some(1)));
    assert_eq!(f64::from_bits(merged(hot).unwrap_or(0)), 2.75);
    assert_eq!(direct(STARTED).map(|s| s & COUNT_MASK), Some(3));
    let snapshot = h.snapshot();
    assert_eq!(snapshot.bucket_counts(), &[2, 1, 1]);
    assert_eq!(snapshot.sum(), 4.75);
    // Nothing new: the same again, from the other half.
    assert_eq!(h.snapshot(), snapshot);
}

#[test]
fn a_record_that_meets_a_scrape_holding_the_lock_goes_on_in_the_base_block() {
    let h = Histogram::new([1.0]);
    let scrape = super::sync::lock(&h.core.scrape);
    h.core.contended();
    assert!(
        h.core.shards.get().is_none(),
        "the record does not wait for the scrape"
    );
    h.observe(0.5);
    drop(scrape);
    h.core.contended();
    assert!(h.core.shards.get().is_some() || shard_count() < 2);
    h.observe(0.5);
    assert_eq!(h.snapshot().bucket_counts(), &[2, 0]);
}

#[test]
fn records_racing_the_install_of_the_shards_and_scrapes_lose_nothing() {
    for native in [false, true] {
        let h = if native {
            Histogram::new_classic_and_native(
                [1.0, 2.0],
                crate::histogram::NativeConfig::with_schema(3),
            )
        } else {
            Histogram::new([1.0, 2.0])
        };
        let per_thread = 20_000u64;
        let mut last = 0;
        std::thread::scope(|s| {
            for t in 0..4 {
                let h = &h;
                s.spawn(move || {
                    let mut pending = HistogramBuffer::new();
                    for i in 0..per_thread {
                        if t % 2 == 0 {
                            h.observe(1.5);
                        } else {
                            assert!(pending.push(1.5));
                            if pending.is_full() || i + 1 == per_thread {
                                h.merge(&mut pending);
                            }
                        }
                    }
                });
            }
            s.spawn(|| install_shards(&h));
            for _ in 0..50 {
                let snapshot = h.snapshot();
                assert!(snapshot.count() >= last, "{snapshot:?}");
                assert_eq!(snapshot.sum(), 1.5 * snapshot.count() as f64);
                last = snapshot.count();
            }
        });
        let snapshot = h.snapshot();
        assert_eq!(snapshot.bucket_counts(), &[0, 4 * per_thread, 0]);
        if let Some(native) = snapshot.native() {
            assert_eq!(native.count(), 4 * per_thread);
        }
    }
}

#[test]
fn snapshots_alternate_halves_and_each_sees_every_record_before_it() {
    let h = Histogram::new([1.0]);
    let mut pending = HistogramBuffer::new();
    for round in 1..=5u64 {
        h.observe(0.5);
        assert!(pending.push(2.0));
        h.merge(&mut pending);
        let s = h.snapshot();
        assert_eq!(s.bucket_counts(), &[round, round], "round {round}");
        assert_eq!(s.sum(), 2.5 * round as f64);
        // Taken again with nothing new, it reads the same.
        assert_eq!(h.snapshot(), s);
    }
}

/// Records into every shard, scrapes until the series is idle, then records on one thread
/// only: a scrape that skips the halves nobody wrote to must keep what the other shards
/// hold, with or without native buckets (which drain each half they read).
fn an_idle_series_then_one_busy_shard(h: &Histogram) {
    let values = [0.5, 1.5, 2.5];
    let every_shard_records = || {
        std::thread::scope(|s| {
            for _ in 0..(2 * MAX_SHARDS) {
                s.spawn(|| values.iter().for_each(|&v| h.observe(v)));
            }
        })
    };
    // Twice, with a scrape between: both halves hold records of every shard.
    every_shard_records();
    let n = 2 * MAX_SHARDS as u64;
    assert_eq!(h.snapshot().count(), 3 * n);
    every_shard_records();
    let n = 2 * n;
    let busy = h.snapshot();
    // A native-only histogram has only the `+Inf` classic bucket.
    let classic = !h.bounds().is_empty();
    assert_eq!(busy.count(), 3 * n);
    if classic {
        assert_eq!(busy.bucket_counts(), &[n, n, n]);
    }
    // Idle: both halves are read once more, then neither is, and nothing changes.
    for _ in 0..4 {
        assert_eq!(h.snapshot(), busy);
    }
    for round in 1..=3u64 {
        h.observe(1.5);
        let s = h.snapshot();
        assert_eq!(s.count(), 3 * n + round, "round {round}");
        if classic {
            assert_eq!(s.bucket_counts(), &[n, n + round, n], "round {round}");
        }
        assert_eq!(s.sum(), 4.5 * n as f64 + 1.5 * round as f64);
        if let Some(native) = s.native() {
            // The native buckets count every observation too, the one shard's included.
            assert_eq!(native.count(), s.count(), "round {round}: {native:?}");
        }
        assert_eq!(h.snapshot(), s, "idle again after round {round}");
    }
}

#[test]
fn a_scrape_of_an_idle_series_keeps_every_shard() {
    an_idle_series_then_one_busy_shard(&Histogram::new([1.0, 2.0]));
}

#[test]
fn a_scrape_of_an_idle_series_keeps_every_shard_with_native_buckets() {
    let native = crate::histogram::NativeConfig::with_schema(3);
    an_idle_series_then_one_busy_shard(&Histogram::new_classic_and_native([1.0, 2.0], native));
}

#[test]
fn a_scrape_of_an_idle_series_keeps_every_shard_with_native_buckets_only() {
    an_idle_series_then_one_busy_shard(&Histogram::new_native(
        crate::histogram::NativeConfig::with_schema(3),
    ));
}

const ITL: [f64; 19] = [
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
    40.0, 80.0,
];
