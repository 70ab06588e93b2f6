//! The record side of native buckets: per half of the histogram and per *native shard* (see
//! `native_state.rs`), a fixed-capacity open-addressing table of atomic `(key, count)` slots
//! and a zero-bucket count, written by records with atomics only, and drained by a scrape once
//! the half is cold and complete. A table and its slots sit on cache lines of their own, so
//! threads recording into different shards' tables never write a common line.
//!
//! Why this is lock-free and never loses an observation:
//! * A record reads the schema and zero threshold in force (two relaxed loads), computes its
//!   bucket, and looks the bucket's key up in the hot half's table (linear probing from the
//!   key's home slot, see `NativeTable::home`). An existing slot is one `fetch_add`. A missing one is claimed with a
//!   compare-and-swap of its key from empty; a record that loses the race to the same key
//!   counts into it, one that loses to another key probes on.
//! * A key carries the schema it was computed at (and the side), so a record that read the
//!   schema before a scrape lowered it still writes a key the scrape can place: the drain
//!   coarsens each key from its own schema to the histogram's.
//! * The table never fills, by construction. A new key first takes a *reservation* (a
//!   `fetch_add` on the table's key count); there are at least `2 * max_buckets` of them per
//!   table and drain (headroom, so that a scrape can enforce the limit by its strategies
//!   rather than the table by force: every slot the coarsest keys may not need). A record
//!   past them computes its key at the coarsest schema (-4)
//!   instead, which needs no reservation: there are only 2 * 133 such keys. The capacity is
//!   a power of two above both together, so a probe always ends on the key or a free slot.
//!   An observation whose bucket the scrape must coarsen is counted, with less resolution:
//!   never lost.
//! * A scrape drains a half only after turning the other one hot and waiting for every record
//!   started in this one (see `snapshot.rs`): the table is quiescent while it is read and
//!   cleared, and records see the cleared table (they start with an acquiring `fetch_add` on
//!   their shard's started count, which reads the scrape's releasing turn).

use super::native_config::NativeConfig;
use super::native_index::{bucket_index, COARSEST_BUCKETS_PER_SIDE, MIN_SCHEMA};
use super::sync::{AtomicU64, Ordering};

/// A slot's key: [`OCCUPIED`], the side ([`NEGATIVE`]), `schema + 4` in bits 32..36, and the
/// bucket index in the low 32 bits. Never 0, which marks a free slot.
const OCCUPIED: u64 = 1 << 63;
const NEGATIVE: u64 = 1 << 40;

/// One native bucket as a record writes it: side, schema and index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct NativeKey {
    pub(super) negative: bool,
    pub(super) schema: i8,
    pub(super) index: i32,
}

impl NativeKey {
    fn pack(self) -> u64 {
        let schema = u64::from((self.schema - MIN_SCHEMA) as u8);
        OCCUPIED
            | if self.negative { NEGATIVE } else { 0 }
            | schema << 32
            | u64::from(self.index as u32)
    }

    fn unpack(bits: u64) -> Self {
        NativeKey {
            negative: bits & NEGATIVE != 0,
            schema: ((bits >> 32) & 0xf) as i8 + MIN_SCHEMA,
            index: bits as u32 as i32,
        }
    }
}

/// One slot of a [`NativeTable`].
struct Slot {
    key: AtomicU64,
    count: AtomicU64,
}

/// Slots per [`SlotLine`].
const SLOTS_PER_LINE: usize = 8;

/// 128 bytes of slots, aligned as the classic cells' lines are (two cache lines, which
/// adjacent-line prefetchers move together), so that no slot shares a line with another
/// table's.
#[repr(align(128))]
struct SlotLine([Slot; SLOTS_PER_LINE]);

/// The native buckets of every table of a histogram (a table per half and native shard, see
/// the module documentation): the slots of all tables in one block, table after table, so a
/// record reaches its slot through one pointer, and each table's counters on a line of their
/// own.
pub(super) struct NativeTables {
    /// `tables * lines_per_table` lines; slot `i` of table `t` is slot `i % SLOTS_PER_LINE` of
    /// line `t * lines_per_table + i / SLOTS_PER_LINE`.
    lines: Box<[SlotLine]>,
    /// Per table.
    counters: Box<[TableCounters]>,
    lines_per_table: usize,
    /// A table's capacity minus one (a power of two minus one).
    mask: usize,
    /// Reservations per table and drain.
    reservations: u64,
}

/// What records of one table count besides its slots. Aligned so that these counters share
/// no line with another table's.
#[repr(align(128))]
struct TableCounters {
    /// Keys claimed (or tried) since the last drain, at schemas above the coarsest.
    reserved: AtomicU64,
    /// Observations with `|v| <=` the zero threshold the record read.
    zero: AtomicU64,
    /// Bit `b`: a key was claimed since the last drain in block `b` of the table's lines
    /// (`lines_per_block` lines from line `b * lines_per_block`). Only those blocks can hold
    /// keys or counts, so a drain reads them alone: the few lines a series' buckets cluster on
    /// (see [`NativeTable::home`]) instead of the whole table.
    used: AtomicU64,
}

/// Blocks of lines per table that [`TableCounters::used`] tells apart: one a bit.
const BLOCKS: usize = u64::BITS as usize;

/// One table of [`NativeTables`]: what a record or a drain works on.
pub(super) struct NativeTable<'a> {
    lines: &'a [SlotLine],
    counters: &'a TableCounters,
    mask: usize,
    reservations: u64,
    lines_per_block: usize,
}

impl NativeTables {
    /// `tables` tables sized for `config`'s bucket limit.
    pub(super) fn new(config: &NativeConfig, tables: usize) -> Self {
        let limit = config.bucket_limit() as usize;
        // The loom model observes one value: a table of a few slots keeps its executions
        // within loom's bounds.
        let coarsest = if cfg!(loom) {
            2
        } else {
            2 * COARSEST_BUCKETS_PER_SIDE
        };
        let capacity = (2 * limit + coarsest + 1)
            .next_power_of_two()
            .max(SLOTS_PER_LINE);
        // Every slot the coarsest keys may not need (and one, so that a probe always meets a
        // free slot or its key): at least twice the limit.
        let reservations = (capacity - coarsest - 1) as u64;
        let lines_per_table = capacity / SLOTS_PER_LINE;
        NativeTables {
            lines: (0..tables * lines_per_table)
                .map(|_| {
                    SlotLine(std::array::from_fn(|_| Slot {
                        key: AtomicU64::new(0),
                        count: AtomicU64::new(0),
                    }))
                })
                .collect(),
            counters: (0..tables)
                .map(|_| TableCounters {
                    reserved: AtomicU64::new(0),
                    zero: AtomicU64::new(0),
                    used: AtomicU64::new(0),
                })
                .collect(),
            lines_per_table,
            mask: capacity - 1,
            reservations,
        }
    }

    /// Table `table`, if there is one.
    #[inline]
    pub(super) fn table(&self, table: usize) -> Option<NativeTable<'_>> {
        let first = table.checked_mul(self.lines_per_table)?;
        Some(NativeTable {
            lines: self.lines.get(first..first + self.lines_per_table)?,
            counters: self.counters.get(table)?,
            mask: self.mask,
            reservations: self.reservations,
            lines_per_block: self.lines_per_table.div_ceil(BLOCKS),
        })
    }
}

impl NativeTable<'_> {
    /// Counts `n` observations of `value` (not NaN), bucketed at `schema` with
    /// `zero_threshold`.
    #[inline]
    pub(super) fn add(&self, value: f64, schema: i8, zero_threshold: f64, n: u64) {
        let magnitude = value.abs();
        if magnitude <= zero_threshold {
            self.counters.zero.fetch_add(n, Ordering::Release);
            return;
        }
        let negative = value < 0.0;
        let key = NativeKey {
            negative,
            schema,
            index: bucket_index(schema, magnitude),
        };
        if self.add_to_key(key, n, schema > MIN_SCHEMA) {
            return;
        }
        // Past the reservations: the coarsest schema, whose keys need none.
        let coarse = NativeKey {
            negative,
            schema: MIN_SCHEMA,
            index: bucket_index(MIN_SCHEMA, magnitude),
        };
        if !self.add_to_key(coarse, n, false) {
            // Unreachable (the capacity exceeds every key that can exist here); counted in the
            // zero bucket rather than lost.
            self.counters.zero.fetch_add(n, Ordering::Release);
        }
    }

    /// Adds `n` to `key`'s slot, claiming one if it has none. `false` when a new slot needed
    /// a reservation (`reserve`) and none was left, or (never, by construction) no slot was free.
    #[inline]
    fn add_to_key(&self, key: NativeKey, n: u64, reserve: bool) -> bool {
        let packed = key.pack();
        let mut position = self.home(key);
        let mut reserved = false;
        for _ in 0..=self.mask {
            let Some(slot) = self.slot(position) else {
                return false;
            };
            let mut current = slot.key.load(Ordering::Relaxed);
            if current == 0 {
                if reserve && !reserved {
                    if self.counters.reserved.fetch_add(1, Ordering::Relaxed) >= self.reservations {
                        return false;
                    }
                    reserved = true;
                }
                current =
                    match slot
                        .key
                        .compare_exchange(0, packed, Ordering::Relaxed, Ordering::Relaxed)
                    {
                        Ok(_) => {
                            // Before the count, whose release publishes it with the key: a
                            // drain that waited for this record reads the block.
                            self.mark_used(position);
                            packed
                        }
                        Err(actual) => actual,
                    };
            }
            if current == packed {
                // Release: a native-only histogram's record ends here (see `observe.rs`), and
                // a scrape that counts this add must see the record's sum and key.
                slot.count.fetch_add(n, Ordering::Release);
                return true;
            }
            position = (position + 1) & self.mask;
        }
        false
    }

    /// The slot where `key`'s probe starts: its bucket index, so that consecutive buckets
    /// take consecutive slots; the negative side half a table further, and each schema at an
    /// offset of its own.
    ///
    /// Observations cluster in a range of buckets, so a series' busy slots then sit together
    /// on a few lines (16 bytes a bucket) instead of a line each, and the keys of one side at
    /// one schema never collide while they span less than half the table; keys of two sides
    /// or schemas that meet just probe on.
    #[inline]
    fn home(&self, key: NativeKey) -> usize {
        let capacity = self.mask + 1;
        let side = if key.negative { capacity / 2 } else { 0 };
        let schema = (key.schema - MIN_SCHEMA) as usize * (capacity / 16);
        (key.index as u32 as usize)
            .wrapping_add(side)
            .wrapping_add(schema)
            & self.mask
    }

    /// Notes that slot `position` holds a key (see [`TableCounters::used`]). Once per key
    /// and drain, not per record.
    #[inline]
    fn mark_used(&self, position: usize) {
        let block = position / SLOTS_PER_LINE / self.lines_per_block;
        self.counters.used.fetch_or(1 << block, Ordering::Relaxed);
    }

    /// The lines of the blocks where keys were claimed since the last drain: every line that
    /// can hold a key. A record's claim is visible here to a reader that has acquired the
    /// record's count (or a count the record released after it).
    fn used_lines(&self) -> impl Iterator<Item = &SlotLine> {
        let mut blocks = self.counters.used.load(Ordering::Acquire);
        let per_block = self.lines_per_block;
        std::iter::from_fn(move || {
            if blocks == 0 {
                return None;
            }
            let block = blocks.trailing_zeros() as usize;
            blocks &= blocks - 1;
            let first = block * per_block;
            self.lines
                .get(first..(first + per_block).min(self.lines.len()))
        })
        .flatten()
    }

    /// Slot `position` (below the capacity).
    #[inline]
    fn slot(&self, position: usize) -> Option<&Slot> {
        let line = self.lines.get(position / SLOTS_PER_LINE)?;
        line.0.get(position % SLOTS_PER_LINE)
    }

    /// The observations the table holds, zero bucket included. Acquire: once a scrape has
    /// counted a record's add, the record's earlier writes (its key, its sum) are visible.
    ///
    /// Read from the used blocks only, which a record still under way may have yet to mark:
    /// the total can then fall short, never exceed. So when it reaches the records a scrape
    /// waits for, every one of them is counted, and every count outside the blocks read is 0.
    pub(super) fn observations(&self) -> u64 {
        let slots = self.used_lines().flat_map(|line| line.0.iter());
        slots.fold(self.counters.zero.load(Ordering::Acquire), |total, slot| {
            total.wrapping_add(slot.count.load(Ordering::Acquire))
        })
    }

    /// Reads and clears the table: the zero count, and each used slot's key and count passed
    /// to `visit`. Only for a half that no record writes and whose records the caller has
    /// waited for (see the module documentation), so that every claimed key's block is marked.
    pub(super) fn drain(&self, mut visit: impl FnMut(NativeKey, u64)) -> u64 {
        for slot in self.used_lines().flat_map(|line| line.0.iter()) {
            let key = slot.key.load(Ordering::Relaxed);
            if key == 0 {
                continue;
            }
            let count = slot.count.load(Ordering::Relaxed);
            slot.key.store(0, Ordering::Relaxed);
            slot.count.store(0, Ordering::Relaxed);
            if count != 0 {
                visit(NativeKey::unpack(key), count);
            }
        }
        self.counters.reserved.store(0, Ordering::Relaxed);
        self.counters.used.store(0, Ordering::Relaxed);
        let zero = self.counters.zero.load(Ordering::Relaxed);
        self.counters.zero.store(0, Ordering::Relaxed);
        zero
    }

    /// Slots holding a key, found by reading every line (what a drain must leave at 0).
    #[cfg(test)]
    pub(super) fn occupied_slots(&self) -> usize {
        let slots = self.lines.iter().flat_map(|line| line.0.iter());
        slots
            .filter(|slot| slot.key.load(Ordering::Relaxed) != 0)
            .count()
    }

    /// Slots in the table (for the memory figure in the documentation and its test).
    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.mask + 1
    }

    /// New keys per interval above the coarsest schema (see the module documentation).
    #[cfg(test)]
    pub(super) fn reservations(&self) -> u64 {
        self.reservations
    }
}
