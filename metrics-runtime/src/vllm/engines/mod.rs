//! The engine → entry table: read without a lock, written on join and leave.
//!
//! Engines join at run time (data-parallel scale-up) and leave. Every record looks its engine
//! up here, so the lookup must be free of hashing, locks and allocation: it is on every
//! record's path. Engine indices below [`ENGINE_SLOTS`] index an array of `ArcSwapOption`s: a
//! lookup is an array index plus an `arc-swap` load (a few atomic operations), and an engine
//! that leaves can be replaced safely while other threads still read its old entry. Indices
//! at or above [`ENGINE_SLOTS`] (not seen in practice) are found in one immutable list sorted
//! by engine, behind an `arc-swap` too ([`beyond`]): an `arc-swap` load and a binary search.
//! Either way, once an engine has joined, looking it up takes no lock.
//!
//! # Lock order
//!
//! What changes which engines are present, and which series they have, takes these locks, in
//! this order only: a thread holding one never takes an earlier one (nor another of the same
//! level).
//!
//! 1. **The membership lock** of an [`EngineTable`] (one table per model): a join (an
//!    engine's first record, `track` or `add_engine`) and a leave (`remove_engine`) hold it
//!    throughout, so two threads seeing a new engine build its entry once, and the lock-free
//!    lists are written by one thread at a time.
//! 2. **The joins-and-leaves lock** ([`OverflowedEngines`], shared by every model of one
//!    registration): taken, under the membership lock, to resolve a joining engine's series
//!    and to remove a leaving engine's; and on its own to resolve an engine's series later:
//!    its sleep-state gauges with its first snapshot, its Mooncake maps with its first
//!    Mooncake record, a connector's series in `VllmMetrics::resolve_for_engine`. (A Mooncake
//!    pair needs none: it is created in the engine's maps, which a leave detaches whole.) A leave removes the engine
//!    from the table before it takes this lock, so whoever holds it and finds the engine
//!    present (a lock-free read) knows its series stay until it lets go.
//! 3. **The families' own locks**: taken last, the list of plug-in families before a family's
//!    series map (a plug-in family registered, or an engine joining, creates zero series
//!    under the list's lock); no engine lock is taken while one of them is held.
//!
//! Recording, looking an engine up, `is_present` and `entries` take none of them. The locks
//! are [`OrderedMutex`]es: debug builds check this order on every acquisition and panic,
//! naming both locks, when a thread takes them the wrong way round ([`lock_order`]), so a
//! mistake fails the first test that takes that path instead of deadlocking one run in many.
//! Every function that takes one of these locks says so and points here.

use std::ops::Deref;
use std::sync::Arc;

use arc_swap::{ArcSwapOption, Guard};

mod beyond;
pub(crate) mod lock_order;
mod overflow;
pub(crate) mod test_points;

use beyond::{BeyondRef, BeyondSlots};
use lock_order::{Level, OrderedMutex};
pub(crate) use overflow::{OverflowGroup, OverflowedEngines};
use test_points::TestPoint;

/// Engine indices with a lock-free slot.
pub const ENGINE_SLOTS: usize = 256;

pub(crate) struct EngineTable<T> {
    slots: Box<[ArcSwapOption<T>]>,
    /// Engines with an index of `ENGINE_SLOTS` or more.
    beyond: BeyondSlots<T>,
    /// The membership lock: first in the lock order (see the module documentation).
    membership: OrderedMutex<()>,
}

/// A borrowed entry: an `arc-swap` guard for slot engines, the loaded list for the engines
/// past the slots, an `Arc` for an engine that has just joined.
pub(crate) enum EntryRef<T> {
    Slot(Guard<Option<Arc<T>>>),
    Beyond(BeyondRef<T>),
    Owned(Arc<T>),
}

impl<T> Deref for EntryRef<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        match self {
            // A `Slot` guard is only constructed holding `Some`.
            EntryRef::Slot(guard) => guard.as_deref().unwrap_or_else(|| unreachable!()),
            EntryRef::Beyond(entry) => entry,
            EntryRef::Owned(arc) => arc,
        }
    }
}

impl<T> EngineTable<T> {
    pub(crate) fn new() -> Self {
        EngineTable {
            slots: (0..ENGINE_SLOTS).map(|_| ArcSwapOption::empty()).collect(),
            beyond: BeyondSlots::new(),
            membership: OrderedMutex::new(Level::Membership, ()),
        }
    }

    /// The entry of `engine`, built by `join` on first sight. Lock-free once the engine has
    /// joined; a join takes the locks [`join_cold`](Self::join_cold) says.
    #[inline]
    pub(crate) fn get_or_join(&self, engine: u32, join: impl FnOnce() -> T) -> EntryRef<T> {
        if let Some(slot) = self.slot(engine) {
            let guard = slot.load();
            if guard.is_some() {
                return EntryRef::Slot(guard);
            }
        }
        self.get_or_join_beyond(engine, join)
    }

    /// [`get_or_join`](Self::get_or_join) past the slots, or for an engine that has not
    /// joined: out of line, so the slot path stays as short as it can be.
    #[inline(never)]
    fn get_or_join_beyond(&self, engine: u32, join: impl FnOnce() -> T) -> EntryRef<T> {
        if self.slot(engine).is_none() {
            if let Some(entry) = self.beyond.get(engine) {
                return EntryRef::Beyond(entry);
            }
        }
        EntryRef::Owned(self.join_cold(engine, join))
    }

    /// The entry of `engine` as an owned `Arc` (one reference-count increment); locks as
    /// [`get_or_join`](Self::get_or_join).
    pub(crate) fn get_or_join_arc(&self, engine: u32, join: impl FnOnce() -> T) -> Arc<T> {
        match self.present(engine) {
            Some(entry) => entry,
            None => self.join_cold(engine, join),
        }
    }

    /// Builds and stores `engine`'s entry, unless another thread did first. Takes the
    /// membership lock; `join` runs under it and may take the joins-and-leaves lock, nothing
    /// earlier (the "Lock order" of the module documentation).
    #[cold]
    fn join_cold(&self, engine: u32, join: impl FnOnce() -> T) -> Arc<T> {
        let membership = self.membership.lock();
        if let Some(entry) = self.present(engine) {
            return entry;
        }
        test_points::reached(TestPoint::JoinAboutToResolve);
        let entry = Arc::new(join());
        match self.slot(engine) {
            Some(slot) => slot.store(Some(Arc::clone(&entry))),
            None => self.beyond.insert(&membership, engine, Arc::clone(&entry)),
        }
        entry
    }

    /// Removes `engine`'s entry and calls `leave` with it while joins are held off, so a
    /// concurrent join cannot interleave with the removal of the engine's series. Takes the
    /// membership lock; `leave` runs under it and may take the joins-and-leaves lock (the
    /// "Lock order" of the module documentation).
    pub(crate) fn remove(&self, engine: u32, leave: impl FnOnce(&T)) -> bool {
        let membership = self.membership.lock();
        let removed = match self.slot(engine) {
            Some(slot) => slot.swap(None),
            None => self.beyond.remove(&membership, engine),
        };
        match removed {
            Some(entry) => {
                leave(&entry);
                true
            }
            None => false,
        }
    }

    /// Whether `entry` is `engine`'s present entry: `false` once the engine has left, even if
    /// it has joined again since (a new entry). Lock-free, so that a holder of the
    /// joins-and-leaves lock may ask.
    pub(crate) fn is_present(&self, engine: u32, entry: &Arc<T>) -> bool {
        match self.slot(engine) {
            Some(slot) => slot
                .load()
                .as_ref()
                .is_some_and(|present| Arc::ptr_eq(present, entry)),
            None => self
                .beyond
                .get(engine)
                .is_some_and(|present| std::ptr::eq(&*present, &**entry)),
        }
    }

    /// Every present engine and its entry, in ascending engine order. Lock-free.
    pub(crate) fn entries(&self) -> Vec<(u32, Arc<T>)> {
        let mut out: Vec<(u32, Arc<T>)> = self
            .slots
            .iter()
            .zip(0u32..)
            .filter_map(|(slot, engine)| slot.load_full().map(|e| (engine, e)))
            .collect();
        out.extend(self.beyond.entries());
        out
    }

    /// `engine`'s present entry, if any. Lock-free.
    fn present(&self, engine: u32) -> Option<Arc<T>> {
        match self.slot(engine) {
            Some(slot) => slot.load_full(),
            None => self.beyond.get_arc(engine),
        }
    }

    fn slot(&self, engine: u32) -> Option<&ArcSwapOption<T>> {
        usize::try_from(engine).ok().and_then(|i| self.slots.get(i))
    }
}

#[cfg(test)]
mod tests;
