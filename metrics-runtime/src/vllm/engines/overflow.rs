//! The overflow groups, and the count of present engines recording into each group's shared
//! overflow series, behind the joins-and-leaves lock.

use super::lock_order::{Level, OrderedMutex};

/// A set of families an engine resolves together, and whose shared overflow series it may
/// record into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OverflowGroup {
    /// The derived families, resolved when the engine joins (2048 label sets each).
    Derived,
    /// The sleep-state families, resolved with the engine's first sleep snapshot (2048 label
    /// sets each): an engine's snapshot may come after engines that joined later.
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
/// families go through one lock, the joins-and-leaves lock (second in the lock order of
/// [`engines`](super)), so an engine cannot pick up overflow handles that a concurrent last
/// leave is removing. Each method below takes it, and runs its closure under it: a closure may
/// take the families' own locks, never an engine table's membership lock.
#[derive(Debug)]
pub(crate) struct OverflowedEngines(OrderedMutex<[usize; OverflowGroup::COUNT]>);

impl Default for OverflowedEngines {
    fn default() -> Self {
        OverflowedEngines(OrderedMutex::new(
            Level::JoinsAndLeaves,
            [0; OverflowGroup::COUNT],
        ))
    }
}

impl OverflowedEngines {
    /// Runs `join`, which resolves an engine's series of `group` and says whether they are the
    /// overflow series, counting the engine in `group` if they are.
    pub(crate) fn join<T>(&self, group: OverflowGroup, join: impl FnOnce() -> (T, bool)) -> T {
        let mut present = self.0.lock();
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
        let _present = self.0.lock();
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
        let mut present = self.0.lock();
        for group in leave() {
            let count = &mut present[group.index()];
            *count = count.saturating_sub(1);
            if *count == 0 {
                last_left(group);
            }
        }
    }
}
