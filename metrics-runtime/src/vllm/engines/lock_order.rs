//! The engine locks, each with its place in the lock order (the "Lock order" section of
//! [`engines`](super)), and a check of that order on every acquisition in debug builds.
//!
//! A thread that takes an earlier lock while holding a later one can deadlock with a thread
//! taking them the other way round, but only when both meet at the wrong moment: the mistake
//! hides until it hangs a server. The check turns it into a panic, naming both locks, the
//! first time any test takes the locks in the wrong order, on one thread, whatever the timing.
//! Release builds do not check.

use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, MutexGuard};

use crate::vllm::sync::lock;

/// A lock's place in the order: a thread takes a lock only while it holds no lock of the same
/// or a later level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    /// An engine table's membership lock (one table per model): joins and leaves of its
    /// engines.
    Membership,
    /// The joins-and-leaves lock, shared by every model of a registration: resolving and
    /// removing engines' series.
    JoinsAndLeaves,
}

#[cfg(debug_assertions)]
impl Level {
    fn name(self) -> &'static str {
        match self {
            Level::Membership => "engine table's membership",
            Level::JoinsAndLeaves => "joins-and-leaves",
        }
    }
}

/// A mutex with its [`Level`].
#[derive(Debug)]
pub(crate) struct OrderedMutex<T> {
    level: Level,
    mutex: Mutex<T>,
}

impl<T> OrderedMutex<T> {
    pub(crate) fn new(level: Level, value: T) -> Self {
        OrderedMutex {
            level,
            mutex: Mutex::new(value),
        }
    }

    /// Locks, after checking (debug builds) that the current thread holds no lock of the same
    /// or a later level: a wrong order panics here rather than waiting.
    pub(crate) fn lock(&self) -> OrderedGuard<'_, T> {
        held::acquire(self.level);
        OrderedGuard {
            level: self.level,
            guard: lock(&self.mutex),
        }
    }
}

/// The guard of an [`OrderedMutex`]; the thread counts as holding its level until it drops.
pub(crate) struct OrderedGuard<'a, T> {
    level: Level,
    guard: MutexGuard<'a, T>,
}

impl<T> Deref for OrderedGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> DerefMut for OrderedGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

impl<T> Drop for OrderedGuard<'_, T> {
    fn drop(&mut self) {
        held::release(self.level);
    }
}

/// The levels the current thread holds (debug builds only).
#[cfg(debug_assertions)]
mod held {
    use std::cell::Cell;

    use super::Level;

    thread_local! {
        /// Bit `level` is set while the thread holds a lock of that level.
        static HELD: Cell<u8> = const { Cell::new(0) };
    }

    pub(super) fn acquire(level: Level) {
        let held = HELD.get();
        // Every level from `level` on.
        let same_or_later = held & !((1u8 << level as u8) - 1);
        if same_or_later != 0 {
            let holding = [Level::Membership, Level::JoinsAndLeaves]
                .into_iter()
                .filter(|l| same_or_later & (1 << *l as u8) != 0)
                .map(Level::name)
                .collect::<Vec<_>>()
                .join(", ");
            panic!(
                "lock order: taking the {} lock while holding the {holding} lock \
                 (see \"Lock order\" in vllm/engines)",
                level.name()
            );
        }
        HELD.set(held | 1 << level as u8);
    }

    pub(super) fn release(level: Level) {
        HELD.set(HELD.get() & !(1 << level as u8));
    }
}

#[cfg(not(debug_assertions))]
mod held {
    use super::Level;

    #[inline(always)]
    pub(super) fn acquire(_: Level) {}

    #[inline(always)]
    pub(super) fn release(_: Level) {}
}

#[cfg(all(test, debug_assertions))]
mod tests {
    use std::panic::{catch_unwind, AssertUnwindSafe};

    use super::*;

    fn panic_message(result: std::thread::Result<()>) -> String {
        let payload = result.expect_err("a panic");
        payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default()
    }

    #[test]
    fn locks_taken_in_order_are_granted_and_released() {
        let membership = OrderedMutex::new(Level::Membership, 1);
        let joins = OrderedMutex::new(Level::JoinsAndLeaves, 2);
        for _ in 0..2 {
            let m = membership.lock();
            let j = joins.lock();
            assert_eq!((*m, *j), (1, 2));
        }
        // Released: the later lock alone, then the earlier one, each on its own.
        drop(joins.lock());
        drop(membership.lock());
    }

    #[test]
    fn an_earlier_lock_taken_under_a_later_one_panics_naming_both() {
        let membership = OrderedMutex::new(Level::Membership, ());
        let joins = OrderedMutex::new(Level::JoinsAndLeaves, ());
        let message = panic_message(catch_unwind(AssertUnwindSafe(|| {
            let _joins = joins.lock();
            let _membership = membership.lock();
        })));
        assert_eq!(
            message,
            "lock order: taking the engine table's membership lock while holding the \
             joins-and-leaves lock (see \"Lock order\" in vllm/engines)"
        );
        // The unwinding released the held lock: the order starts afresh.
        drop(membership.lock());
        drop(joins.lock());
    }

    #[test]
    fn a_lock_of_the_same_level_taken_twice_panics() {
        let joins = OrderedMutex::new(Level::JoinsAndLeaves, ());
        let other_model = OrderedMutex::new(Level::JoinsAndLeaves, ());
        let message = panic_message(catch_unwind(AssertUnwindSafe(|| {
            let _joins = joins.lock();
            let _again = other_model.lock();
        })));
        assert!(
            message.contains(
                "taking the joins-and-leaves lock while holding the joins-and-leaves lock"
            ),
            "{message}"
        );
    }
}
