//! Which shard a thread records into once a histogram has shards: how many it gets (the
//! machine's parallelism, bounded) and a per-thread index handed out in the order threads
//! first record. Shared by the classic cells (`shards.rs`) and the native tables
//! (`native_state.rs`), so neither names the other.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The most shards a contended histogram gets (see `shards.rs`): enough that a handful of
/// threads recording into one series at once rarely meet on a line, few enough that a
/// contended series stays within a small multiple of an uncontended one's memory (each shard
/// is as large as the series' own block), however many cores the machine has.
pub(super) const MAX_SHARDS: usize = 4;

/// Shards of a contended histogram: the machine's parallelism rounded up to a power of two,
/// at most [`MAX_SHARDS`]. Computed once (it may read cgroup files). The `loom` model runs
/// with one shard, where every record of every thread meets on the same cells.
pub(super) fn shard_count() -> usize {
    if cfg!(loom) {
        return 1;
    }
    static SHARDS: OnceLock<usize> = OnceLock::new();
    *SHARDS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, usize::from)
            .next_power_of_two()
            .min(MAX_SHARDS)
    })
}

/// A per-thread number, handed out in the order threads first record (masked into a shard
/// by the caller): consecutive threads get consecutive numbers, so with as many shards as
/// cores, the busy threads of a runtime land on different shards.
#[inline]
pub(super) fn thread_index() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static INDEX: Cell<usize> = const { Cell::new(usize::MAX) };
    }
    // `try_with` cannot fail for a `const`-initialised `Cell` (it has no destructor); the
    // fallback keeps `observe` panic-free regardless.
    INDEX
        .try_with(|index| {
            let current = index.get();
            if current != usize::MAX {
                return current;
            }
            // Never `usize::MAX` in practice: that would take 2^64 threads.
            let assigned = NEXT.fetch_add(1, Ordering::Relaxed);
            index.set(assigned);
            assigned
        })
        .unwrap_or(0)
}
