//! The atomics and the lock of the histogram: the standard library's, or `loom`'s when the
//! crate is built with `--cfg loom` to model-check the scrape protocol (`loom_model.rs`).

#[cfg(loom)]
pub(super) use loom::sync::atomic::{AtomicU64, Ordering};
#[cfg(loom)]
pub(super) use loom::sync::{Mutex, MutexGuard};
#[cfg(not(loom))]
pub(super) use std::sync::atomic::{AtomicU64, Ordering};
#[cfg(not(loom))]
pub(super) use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, tolerating poisoning: the scrape state is rebuilt from the cells under
/// the lock, so a scrape that panicked leaves nothing half-written that matters.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// One turn of a scrape's wait for in-flight records: a pause hint for the first turns,
/// then the rest of the time slice to whoever needs it (a recorder preempted mid-record
/// may be the one the scrape waits for).
pub(super) fn spin_wait(turn: u32) {
    #[cfg(loom)]
    {
        let _ = turn;
        loom::thread::yield_now();
    }
    #[cfg(not(loom))]
    if turn < 64 {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

/// Locks `mutex` if no one holds it (poisoning tolerated, as by [`lock`]); `None` when it is
/// held: for a record, which never waits on a scrape.
pub(super) fn try_lock<T>(mutex: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    match mutex.try_lock() {
        Ok(guard) => Some(guard),
        Err(std::sync::TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    }
}

/// A value installed at most once and read lock-free from then on: the standard library's
/// `OnceLock`, whose readers acquire what the installer released. Under `loom`, the same
/// release and acquire on an atomic flag the model sees, in front of the `OnceLock`.
pub(super) struct Installed<T> {
    value: std::sync::OnceLock<Box<T>>,
    #[cfg(loom)]
    installed: loom::sync::atomic::AtomicBool,
}

impl<T> Installed<T> {
    pub(super) fn new() -> Self {
        Installed {
            value: std::sync::OnceLock::new(),
            #[cfg(loom)]
            installed: loom::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The value, once installed.
    #[inline]
    pub(super) fn get(&self) -> Option<&T> {
        #[cfg(loom)]
        if !self.installed.load(Ordering::Acquire) {
            return None;
        }
        self.value.get().map(|value| &**value)
    }

    /// Installs `value` unless a value is there already (then `value` is dropped).
    pub(super) fn install(&self, value: T) {
        let _ = self.value.set(Box::new(value));
        #[cfg(loom)]
        self.installed.store(true, Ordering::Release);
    }
}
