//! The record side of native buckets: per half of the histogram and per *native shard* (see
//! `native_state.rs`), a [`NativeChain`] of open-addressing tables of atomic `(key, count)`
//! slots, and a zero-bucket count, written by records with atomics only, and drained by a
//! scrape once the half is cold and complete.
//!
//! A chain costs what its series uses: no table until the first record into it, then a first
//! table of 8 slots (160 bytes with its counters), and a table four times larger behind it
//! whenever the keys of one interval between scrapes outgrow those before, up to a last table
//! sized for the bucket limit. Tables stay once made (a drain clears them), so a series whose
//! buckets are those of earlier intervals records into tables it has: no allocation.
//!
//! Why this is lock-free and never loses an observation:
//! * A record reads the schema and zero threshold in force (two relaxed loads), computes its
//!   bucket, and looks the bucket's key up in the first table of the chain (linear probing
//!   from the key's home slot, see `Table::home`). An existing slot is one `fetch_add`. A
//!   missing one is claimed with a compare-and-swap of its key from empty; a record that loses
//!   the race to the same key counts into it, one that loses to another key probes on.
//! * A new key first takes a *reservation* (a `fetch_add` on the table's key count). A table
//!   has no more reservations than slots, and a probe visits each slot once at most, so a
//!   record holding a reservation always finds its key or a free slot (at most `slots - 1`
//!   others claimed one). Larger tables keep a quarter of their slots free: probes stay short. A
//!   record that finds no reservation left goes on to the next table of the chain, allocating
//!   and installing it first if there is none (a compare-and-swap of a pointer, see
//!   `LazyBox`: a record that loses that race frees its table and uses the winner's). A key
//!   can thus sit in two tables of a chain: harmless, as the drain adds counts by key.
//! * The last table has room for every key by construction: at least `2 * max_buckets`
//!   reservations per drain (headroom, so that a scrape can enforce the limit by its
//!   strategies rather than the table by force), and past them a record computes its key at
//!   the coarsest schema (-4) instead, which needs none: there are only 2 * 133 such keys,
//!   and the capacity is a power of two above both together. An observation whose bucket the
//!   scrape must coarsen is counted, with less resolution: never lost.
//! * A key carries the schema it was computed at (and the side), so a record that read the
//!   schema before a scrape lowered it still writes a key the scrape can place: the drain
//!   coarsens each key from its own schema to the histogram's.
//! * A scrape drains a half only after turning the other one hot and waiting for every record
//!   started in this one (see `snapshot.rs`): the chain is quiescent while it is read and
//!   cleared, and records see the cleared tables (they start with an acquiring `fetch_add` on
//!   their shard's started count, which reads the scrape's releasing turn). Records only ever
//!   add tables to a chain, and a drain never removes one, so no record can hold a table a
//!   scrape frees.
//!
//! A table's counters sit on a cache line of their own, and its slots in groups of 8 (keys
//! and counts in 96 bytes, aligned to 32, the keys on one line), so a probe reads one line of
//! keys, and threads recording into different native shards' tables write a common line at
//! most where one table's slots end and another's begin.

use super::native_config::NativeConfig;
use super::native_index::{bucket_index, COARSEST_BUCKETS_PER_SIDE, MIN_SCHEMA};
use super::sync::{AtomicU32, AtomicU64, LazyBox, Ordering};

/// A slot's key: [`OCCUPIED`], the side ([`NEGATIVE`]), `schema + 4` in bits 26..30, and the
/// bucket index, two's complement, in the low 26 bits (every index of every schema fits: at
/// most about 275,000 either way, at schema 8). Never 0, which marks a free slot.
const OCCUPIED: u32 = 1 << 31;
const NEGATIVE: u32 = 1 << 30;
const SCHEMA_SHIFT: u32 = 26;
const INDEX_BITS: u32 = (1 << SCHEMA_SHIFT) - 1;

/// One native bucket as a record writes it: side, schema and index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct NativeKey {
    pub(super) negative: bool,
    pub(super) schema: i8,
    pub(super) index: i32,
}

impl NativeKey {
    pub(super) fn pack(self) -> u32 {
        let schema = u32::from((self.schema - MIN_SCHEMA) as u8);
        OCCUPIED
            | if self.negative { NEGATIVE } else { 0 }
            | schema << SCHEMA_SHIFT
            | (self.index as u32 & INDEX_BITS)
    }

    pub(super) fn unpack(bits: u32) -> Self {
        // The index's 26 bits, sign-extended.
        let unused = 32 - SCHEMA_SHIFT;
        NativeKey {
            negative: bits & NEGATIVE != 0,
            schema: ((bits >> SCHEMA_SHIFT) & 0xf) as i8 + MIN_SCHEMA,
            index: ((bits << unused) as i32) >> unused,
        }
    }
}

/// Slots per [`SlotLine`], and in a chain's first table. The loom model's tables have a few
/// slots, which keeps its executions within loom's bounds.
const SLOTS_PER_LINE: usize = if cfg!(loom) { 2 } else { 8 };

/// The keys and counts of [`SLOTS_PER_LINE`] slots: 96 bytes. Keys apart from counts, and
/// aligned to 32 bytes, so that a probe reads the keys of 8 slots on one cache line.
#[repr(align(32))]
struct SlotLine {
    keys: [AtomicU32; SLOTS_PER_LINE],
    counts: [AtomicU64; SLOTS_PER_LINE],
}

impl SlotLine {
    fn empty() -> Self {
        SlotLine {
            keys: std::array::from_fn(|_| AtomicU32::new(0)),
            counts: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

/// How large a chain's tables are, from the bucket limit.
#[derive(Clone, Copy, Debug)]
pub(super) struct TableSizes {
    /// The first table's slots.
    first: usize,
    /// The last table's slots, and its reservations.
    last: usize,
    last_reservations: u32,
}

impl TableSizes {
    /// The sizes for `config`'s bucket limit.
    pub(super) fn new(config: &NativeConfig) -> Self {
        let limit = config.bucket_limit() as usize;
        let coarsest = if cfg!(loom) {
            2
        } else {
            2 * COARSEST_BUCKETS_PER_SIDE
        };
        let last = (2 * limit + coarsest + 1)
            .next_power_of_two()
            .max(SLOTS_PER_LINE);
        TableSizes {
            first: SLOTS_PER_LINE.min(last),
            last,
            // Every slot the coarsest keys may not need (and one, so that a probe always meets
            // a free slot or its key): at least twice the limit.
            last_reservations: (last - coarsest - 1) as u32,
        }
    }

    /// The table after one of `capacity` slots: four times larger, and the last one from its
    /// size on.
    fn table(&self, capacity: usize) -> Table {
        if capacity >= self.last {
            Table::new(self.last, self.last_reservations, true)
        } else if capacity <= SLOTS_PER_LINE {
            // A first table of one line: every slot. A probe reads the line's keys whole, and
            // it ends on its key or a free slot all the same (a key is claimed only with a
            // reservation, so a record holding one finds at most `capacity - 1` taken).
            Table::new(capacity, capacity as u32, false)
        } else {
            // Three quarters of the slots: probes stay short.
            let reservations = capacity - capacity / 4;
            Table::new(capacity, reservations as u32, false)
        }
    }
}

/// One table of a [`NativeChain`]. Aligned so that its counters share no line with another
/// table's.
#[repr(align(64))]
struct Table {
    /// `capacity / SLOTS_PER_LINE` lines; slot `i` is slot `i % SLOTS_PER_LINE` of line
    /// `i / SLOTS_PER_LINE`.
    lines: Box<[SlotLine]>,
    /// The table after this one, made when this one's reservations run out.
    next: LazyBox<Table>,
    /// Observations with `|v| <=` the zero threshold the record read (the first table's only).
    zero: AtomicU64,
    /// Keys claimed (or tried) since the last drain that needed a reservation.
    reserved: AtomicU32,
    /// 1 once a key was claimed since the last drain: a drain reads the slots of such a
    /// table only (a steady series' keys fill the first tables of its chain).
    used: AtomicU32,
    /// Reservations per drain.
    reservations: u32,
    /// The last table of the chain: keys at the coarsest schema need no reservation, and
    /// there is no table after it.
    last: bool,
}

/// The tables of one native shard's half (see the module documentation): none until the first
/// record, then a chain that grows with the keys of an interval between scrapes.
pub(super) struct NativeChain {
    first: LazyBox<Table>,
}

impl NativeChain {
    /// No table yet.
    pub(super) fn new() -> Self {
        NativeChain {
            first: LazyBox::new(),
        }
    }

    /// Counts `n` observations of `value` (not NaN), bucketed at `schema` with
    /// `zero_threshold`, making the first table (sized for `config`) if there is none yet.
    #[inline]
    pub(super) fn add(
        &self,
        config: &NativeConfig,
        value: f64,
        schema: i8,
        zero_threshold: f64,
        n: u64,
    ) {
        let first = self.first.get_or_init(|| {
            let sizes = TableSizes::new(config);
            sizes.table(sizes.first)
        });
        let magnitude = value.abs();
        if magnitude <= zero_threshold {
            first.zero.fetch_add(n, Ordering::Release);
            return;
        }
        let negative = value < 0.0;
        let key = NativeKey {
            negative,
            schema,
            index: bucket_index(schema, magnitude),
        };
        let mut table = first;
        loop {
            if table.last {
                return table.add_to_last(key, magnitude, n);
            }
            // A table whose reservations are used up is passed by without a probe: a key it
            // holds may then be counted in a later table too, which a drain adds up by key.
            if !table.exhausted() && table.add_to_key(key, n, true) {
                return;
            }
            // Past the reservations: the next table, made by the first record that needs it.
            let capacity = table.capacity();
            table = table
                .next
                .get_or_init(|| TableSizes::new(config).table(capacity.saturating_mul(4)));
        }
    }

    /// The tables made so far, first to last.
    fn tables(&self) -> impl Iterator<Item = &Table> {
        std::iter::successors(self.first.get(), |table| table.next.get())
    }

    /// The observations the chain holds, zero bucket included. Acquire: once a scrape has
    /// counted a record's add, the record's earlier writes (its key, its sum) are visible.
    ///
    /// The slots of a table a record still under way has yet to mark used are left out: the
    /// total can then fall short, never exceed. So when it reaches the records a scrape waits
    /// for, every one of them is counted.
    pub(super) fn observations(&self) -> u64 {
        self.tables().fold(0u64, |total, table| {
            let zero = table.zero.load(Ordering::Acquire);
            let slots = table.used_counts().fold(0u64, |sum, count| {
                sum.wrapping_add(count.load(Ordering::Acquire))
            });
            total.wrapping_add(zero).wrapping_add(slots)
        })
    }

    /// Reads and clears the chain: the zero count (returned), and each claimed slot's key and
    /// count passed to `visit`. Only for a half that no record writes and whose records the
    /// caller has waited for (see the module documentation), so that every claimed key's
    /// table is marked used.
    pub(super) fn drain(&self, mut visit: impl FnMut(NativeKey, u64)) -> u64 {
        let mut zero = 0u64;
        for table in self.tables() {
            if table.used.load(Ordering::Relaxed) != 0 {
                for line in table.lines.iter() {
                    for (key, count) in line.keys.iter().zip(&line.counts) {
                        let bits = key.load(Ordering::Relaxed);
                        if bits == 0 {
                            continue;
                        }
                        let added = count.load(Ordering::Relaxed);
                        key.store(0, Ordering::Relaxed);
                        count.store(0, Ordering::Relaxed);
                        if added != 0 {
                            visit(NativeKey::unpack(bits), added);
                        }
                    }
                }
                table.used.store(0, Ordering::Relaxed);
            }
            table.reserved.store(0, Ordering::Relaxed);
            zero = zero.wrapping_add(table.zero.load(Ordering::Relaxed));
            table.zero.store(0, Ordering::Relaxed);
        }
        zero
    }

    /// The slots of each table made so far, first to last (for the tests of growth).
    #[cfg(test)]
    pub(super) fn capacities(&self) -> Vec<usize> {
        self.tables().map(Table::capacity).collect()
    }

    /// Slots holding a key, found by reading every table (what a drain must leave at 0).
    #[cfg(test)]
    pub(super) fn occupied_slots(&self) -> usize {
        let keys = self
            .tables()
            .flat_map(|table| table.lines.iter())
            .flat_map(|line| line.keys.iter());
        keys.filter(|key| key.load(Ordering::Relaxed) != 0).count()
    }

    /// The last table's reservations per interval (see the module documentation).
    #[cfg(test)]
    pub(super) fn last_reservations(sizes: &TableSizes) -> (usize, u32) {
        (sizes.last, sizes.last_reservations)
    }
}

impl Table {
    /// A table of `capacity` slots (a power of two, at least [`SLOTS_PER_LINE`]).
    fn new(capacity: usize, reservations: u32, last: bool) -> Self {
        Table {
            lines: (0..capacity / SLOTS_PER_LINE)
                .map(|_| SlotLine::empty())
                .collect(),
            next: LazyBox::new(),
            zero: AtomicU64::new(0),
            reserved: AtomicU32::new(0),
            used: AtomicU32::new(0),
            reservations,
            last,
        }
    }

    fn capacity(&self) -> usize {
        self.lines.len() * SLOTS_PER_LINE
    }

    /// Adds `n` to `key` in the last table: at the key's schema while reservations last (a key
    /// at the coarsest schema needs none), else at the coarsest schema.
    fn add_to_last(&self, key: NativeKey, magnitude: f64, n: u64) {
        if self.add_to_key(key, n, key.schema > MIN_SCHEMA) {
            return;
        }
        let coarse = NativeKey {
            negative: key.negative,
            schema: MIN_SCHEMA,
            index: bucket_index(MIN_SCHEMA, magnitude),
        };
        if !self.add_to_key(coarse, n, false) {
            // Unreachable (the capacity exceeds every key that can exist here); counted in the
            // zero bucket rather than lost.
            self.zero.fetch_add(n, Ordering::Release);
        }
    }

    /// Adds `n` to `key`'s slot, claiming one if it has none. `false` when a new slot needed
    /// a reservation (`reserve`) and none was left, or (never, by construction) no slot was
    /// free.
    #[inline]
    fn add_to_key(&self, key: NativeKey, n: u64, reserve: bool) -> bool {
        let packed = key.pack();
        let mask = self.capacity() - 1;
        let mut position = self.home(key);
        let mut reserved = false;
        for _ in 0..=mask {
            let Some((slot, count)) = self.slot(position) else {
                return false;
            };
            let mut current = slot.load(Ordering::Relaxed);
            if current == 0 {
                if reserve && !reserved {
                    if self.exhausted()
                        || self.reserved.fetch_add(1, Ordering::Relaxed) >= self.reservations
                    {
                        return false;
                    }
                    reserved = true;
                }
                current =
                    match slot.compare_exchange(0, packed, Ordering::Relaxed, Ordering::Relaxed) {
                        Ok(_) => {
                            // Before the count, whose release publishes it with the key: a
                            // drain that waited for this record reads the table's slots.
                            if self.used.load(Ordering::Relaxed) == 0 {
                                self.used.store(1, Ordering::Relaxed);
                            }
                            packed
                        }
                        Err(actual) => actual,
                    };
            }
            if current == packed {
                // Release: a native-only histogram's record ends here (see `observe.rs`), and
                // a scrape that counts this add must see the record's sum and key.
                count.fetch_add(n, Ordering::Release);
                return true;
            }
            position = (position + 1) & mask;
        }
        false
    }

    /// Whether every reservation of the table was taken since its last drain (a relaxed read:
    /// a stale answer costs a probe, or a key counted in the next table, never a count).
    ///
    /// Under loom, always no: a yes only takes the path a failed reservation takes (on to the
    /// next table), which the models cover, and the extra relaxed read multiplied the native
    /// models' executions a hundredfold.
    #[inline]
    fn exhausted(&self) -> bool {
        if cfg!(loom) {
            return false;
        }
        self.reserved.load(Ordering::Relaxed) >= self.reservations
    }

    /// The slot where `key`'s probe starts: its bucket index, so that consecutive buckets
    /// take consecutive slots; the negative side half a table further, and each schema at an
    /// offset of its own.
    ///
    /// Observations cluster in a range of buckets, so the keys of one side at one schema never
    /// collide while they span less than half the table; keys of two sides or schemas that
    /// meet just probe on.
    #[inline]
    fn home(&self, key: NativeKey) -> usize {
        let capacity = self.capacity();
        let side = if key.negative { capacity / 2 } else { 0 };
        let schema = (key.schema - MIN_SCHEMA) as usize * (capacity / 16);
        (key.index as u32 as usize)
            .wrapping_add(side)
            .wrapping_add(schema)
            & (capacity - 1)
    }

    /// Slot `position` (below the capacity): its key and count.
    #[inline]
    fn slot(&self, position: usize) -> Option<(&AtomicU32, &AtomicU64)> {
        let line = self.lines.get(position / SLOTS_PER_LINE)?;
        let at = position % SLOTS_PER_LINE;
        Some((line.keys.get(at)?, line.counts.get(at)?))
    }

    /// The counts of the slots, if a key was claimed in the table since the last drain (as far
    /// as a relaxed read of [`Table::used`] tells), else none.
    fn used_counts(&self) -> impl Iterator<Item = &AtomicU64> {
        let used = self.used.load(Ordering::Relaxed) != 0;
        let lines = if used { &self.lines[..] } else { &[] };
        lines.iter().flat_map(|line| line.counts.iter())
    }
}
