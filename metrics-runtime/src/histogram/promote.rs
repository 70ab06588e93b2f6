//! When a histogram gets its shards, and how they are installed.
//!
//! A histogram starts with its base block alone, which every record writes: one block per
//! series, whatever the core count. Threads that record into it at the same moment meet on
//! its lines, and the first sign of that is a compare-and-swap of the sum that finds another
//! thread's add in between (in `observe` or a merge; as Java's `LongAdder` adds cells when
//! the CAS on its base fails). That record then installs the histogram's [`Shards`], a block
//! per shard, and every later record writes the block of its thread's shard.
//!
//! The shards are installed under the scrape lock, taken with `try_lock`: a record never
//! waits, and when a scrape holds the lock the record just goes on in the base block (the next
//! collision tries again). Under the lock no scrape is turning halves, so the new blocks are
//! created with the hot half every other block has, and the next scrape turns them with the
//! rest. Records that read "no shards" before the install may still be writing the base
//! block: a scrape reads it always, with the same protocol, so nothing is lost.

use super::observe::Histogram;
use super::shards::{HistogramCore, Shards, HOT_BIT};
use super::sync::{lock, try_lock, Ordering};
use super::thread_shard::shard_count;

impl HistogramCore {
    /// Installs the shards after a record in the base block met another thread's, unless they
    /// are there already or a scrape holds the lock. Out of line: it happens once per series.
    #[cold]
    #[inline(never)]
    pub(super) fn contended(&self) {
        // On one core, threads meet only by preemption, and shards would not keep them apart.
        if self.shards.get().is_some() || (shard_count() < 2 && !cfg!(loom)) {
            return;
        }
        let Some(_scrape) = try_lock(&self.scrape) else {
            return;
        };
        self.install_shards();
    }

    /// Installs the shards, with the lock held (by the caller's guard on `self.scrape`).
    pub(super) fn install_shards(&self) {
        // Every block has the same hot half while no scrape turns them: the base block's.
        let hot = self.base().started().map_or(0, |started| {
            usize::from(started.load(Ordering::Relaxed) & HOT_BIT != 0)
        });
        self.shards
            .get_or_init(|| Shards::new(self.layout, shard_count(), hot));
    }
}

impl Histogram {
    /// Installs the shards now, as the first record that meets another thread's would (for
    /// the memory benchmark's contended series). Waits for a scrape that holds the lock.
    pub(crate) fn install_shards(&self) {
        let _scrape = lock(&self.core.scrape);
        self.core.install_shards();
    }
}
