//! The engine → entry table: read without a lock, written on join and leave.
//!
//! Engines join at run time (data-parallel scale-up) and leave. Every record looks its engine
//! up here, so the lookup must be free of hashing, locks and allocation: it is on every record's path. Engine
//! indices below [`ENGINE_SLOTS`] index an array of `ArcSwapOption`s: a lookup is an array index
//! plus an `arc-swap` load (a few atomic operations, no lock, no allocation), and an engine that
//! leaves can be replaced safely while other threads still read its old entry. Indices at or
//! above [`ENGINE_SLOTS`] (not seen in practice) fall back to a locked map.

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::{Arc, Mutex, RwLock};

use arc_swap::{ArcSwapOption, Guard};

use crate::sync::{lock, read, write};

/// Engine indices with a lock-free slot.
pub(crate) const ENGINE_SLOTS: usize = 256;

pub(crate) struct EngineTable<T> {
    slots: Box<[ArcSwapOption<T>]>,
    /// Engines with an index of `ENGINE_SLOTS` or more.
    beyond: RwLock<HashMap<u32, Arc<T>>>,
    /// Serialises joins and leaves, so two threads seeing a new engine build it once.
    membership: Mutex<()>,
}

/// A borrowed entry: an `arc-swap` guard for slot engines, an `Arc` for the others.
pub(crate) enum EntryRef<T> {
    Slot(Guard<Option<Arc<T>>>),
    Owned(Arc<T>),
}

impl<T> Deref for EntryRef<T> {
    type Target = T;

    fn deref(&self) -> &T {
        match self {
            // A `Slot` guard is only constructed holding `Some`.
            EntryRef::Slot(guard) => guard.as_deref().unwrap_or_else(|| unreachable!()),
            EntryRef::Owned(arc) => arc,
        }
    }
}

impl<T> EngineTable<T> {
    pub(crate) fn new() -> Self {
        EngineTable {
            slots: (0..ENGINE_SLOTS).map(|_| ArcSwapOption::empty()).collect(),
            beyond: RwLock::new(HashMap::new()),
            membership: Mutex::new(()),
        }
    }

    /// The entry of `engine`, built by `join` on first sight.
    #[inline]
    pub(crate) fn get_or_join(&self, engine: u32, join: impl FnOnce() -> T) -> EntryRef<T> {
        if let Some(slot) = self.slot(engine) {
            let guard = slot.load();
            if guard.is_some() {
                return EntryRef::Slot(guard);
            }
        }
        EntryRef::Owned(self.join_cold(engine, join))
    }

    /// The entry of `engine` as an owned `Arc` (one reference-count increment).
    pub(crate) fn get_or_join_arc(&self, engine: u32, join: impl FnOnce() -> T) -> Arc<T> {
        if let Some(slot) = self.slot(engine) {
            if let Some(entry) = slot.load_full() {
                return entry;
            }
        }
        self.join_cold(engine, join)
    }

    #[cold]
    fn join_cold(&self, engine: u32, join: impl FnOnce() -> T) -> Arc<T> {
        let _membership = lock(&self.membership);
        match self.slot(engine) {
            Some(slot) => {
                if let Some(entry) = slot.load_full() {
                    return entry;
                }
                let entry = Arc::new(join());
                slot.store(Some(Arc::clone(&entry)));
                entry
            }
            None => {
                let mut beyond = write(&self.beyond);
                Arc::clone(beyond.entry(engine).or_insert_with(|| Arc::new(join())))
            }
        }
    }

    /// Removes `engine`'s entry and calls `leave` with it while joins are held off, so a
    /// concurrent join cannot interleave with the removal of the engine's series.
    pub(crate) fn remove(&self, engine: u32, leave: impl FnOnce(&T)) -> bool {
        let _membership = lock(&self.membership);
        let removed = match self.slot(engine) {
            Some(slot) => slot.swap(None),
            None => write(&self.beyond).remove(&engine),
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
    /// it has joined again since (a new entry).
    pub(crate) fn is_present(&self, engine: u32, entry: &Arc<T>) -> bool {
        match self.slot(engine) {
            Some(slot) => slot
                .load()
                .as_ref()
                .is_some_and(|present| Arc::ptr_eq(present, entry)),
            None => read(&self.beyond)
                .get(&engine)
                .is_some_and(|present| Arc::ptr_eq(present, entry)),
        }
    }

    /// Every present engine and its entry, in ascending engine order.
    pub(crate) fn entries(&self) -> Vec<(u32, Arc<T>)> {
        let mut out: Vec<(u32, Arc<T>)> = self
            .slots
            .iter()
            .zip(0u32..)
            .filter_map(|(slot, engine)| slot.load_full().map(|e| (engine, e)))
            .collect();
        let beyond = read(&self.beyond);
        let mut rest: Vec<(u32, Arc<T>)> =
            beyond.iter().map(|(&k, v)| (k, Arc::clone(v))).collect();
        rest.sort_by_key(|(k, _)| *k);
        out.extend(rest);
        out
    }

    fn slot(&self, engine: u32) -> Option<&ArcSwapOption<T>> {
        usize::try_from(engine).ok().and_then(|i| self.slots.get(i))
    }
}

/// A set of families an engine resolves together, and whose shared overflow series it may
/// record into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OverflowGroup {
    /// The derived families, resolved when the engine joins (2048 label sets each).
    Derived,
    /// The sleep-state plug-in families, resolved with the engine's first sleep snapshot. Nine
    /// series per engine under a 2048-series limit: they overflow from about the 228th engine,
    /// long before the derived families.
    SleepState,
}

impl OverflowGroup {
    const COUNT: usize = 2;

    fn index(self) -> usize {
        self as usize
    }
}

/// How many present engines record into each group's shared overflow series.
///
/// The overflow series outlive any one of those engines, so the last one of a group to leave
/// takes the group's overflow gauges with it: they would otherwise go on claiming its running
/// requests, cache use or sleep state. Joins, resolutions and leaves of every model sharing the
/// families go through one lock, so an engine cannot pick up overflow handles that a concurrent
/// last leave is removing.
#[derive(Debug, Default)]
pub(crate) struct OverflowedEngines(Mutex<[usize; OverflowGroup::COUNT]>);

impl OverflowedEngines {
    /// Runs `join`, which resolves an engine's series of `group` and says whether they are the
    /// overflow series, counting the engine in `group` if they are.
    pub(crate) fn join<T>(&self, group: OverflowGroup, join: impl FnOnce() -> (T, bool)) -> T {
        let mut present = lock(&self.0);
        let (entry, overflowed) = join();
        if overflowed {
            present[group.index()] += 1;
        }
        entry
    }

    /// Runs `resolve`, which creates series of an engine that joined earlier, while no engine
    /// can leave: `resolve` checks whether its engine left, as leaves run under the same lock.
    /// For series whose overflow stays when its engines leave (counters and histograms): no
    /// engine is counted.
    pub(crate) fn resolve<T>(&self, resolve: impl FnOnce() -> T) -> T {
        let _present = lock(&self.0);
        resolve()
    }

    /// Runs `leave` for an engine that left, which returns the groups whose overflow series the
    /// engine recorded into; for each group it was the last such engine of, runs `last_left`
    /// with it too, before any other engine can join or resolve.
    pub(crate) fn leave<G: IntoIterator<Item = OverflowGroup>>(
        &self,
        leave: impl FnOnce() -> G,
        mut last_left: impl FnMut(OverflowGroup),
    ) {
        let mut present = lock(&self.0);
        for group in leave() {
            let count = &mut present[group.index()];
            *count = count.saturating_sub(1);
            if *count == 0 {
                last_left(group);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_join_once_leave_and_rejoin() {
        let table: EngineTable<String> = EngineTable::new();
        let mut joins = 0;
        for _ in 0..3 {
            let e = table.get_or_join(3, || {
                joins += 1;
                "three".to_owned()
            });
            assert_eq!(&*e, "three");
        }
        assert_eq!(joins, 1);
        let far = table.get_or_join_arc(u32::MAX, || "far".to_owned());
        assert_eq!(*far, "far");
        assert_eq!(
            table.entries().iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            [3, u32::MAX]
        );
        let mut left = Vec::new();
        assert!(table.remove(3, |e| left.push(e.clone())));
        assert!(!table.remove(3, |_| unreachable!()));
        assert_eq!(left, ["three"]);
        assert!(table.remove(u32::MAX, |_| {}));
        assert!(table.entries().is_empty());
        assert_eq!(&*table.get_or_join(3, || "again".to_owned()), "again");
    }

    #[test]
    fn the_last_overflowed_engine_of_a_group_to_leave_runs_its_cleanup_once() {
        use OverflowGroup::{Derived, SleepState};

        let engines = OverflowedEngines::default();
        assert_eq!(engines.join(Derived, || ("a", true)), "a");
        engines.join(Derived, || ((), true));
        engines.join(Derived, || ((), false));
        engines.join(SleepState, || ((), true));
        let mut cleanups = Vec::new();
        engines.leave(|| [], |group| cleanups.push(group));
        engines.leave(|| [Derived], |group| cleanups.push(group));
        assert_eq!(cleanups, []);
        engines.leave(|| [Derived, SleepState], |group| cleanups.push(group));
        assert_eq!(cleanups, [Derived, SleepState]);
    }
}
