//! The atomics and the lock of the histogram: the standard library's, or `loom`'s when the
//! crate is built with `--cfg loom` to model-check the scrape protocol (`loom_model.rs`); and
//! [`LazyBox`], a value allocated by the first thread that needs it.

#[cfg(loom)]
pub(super) use loom::sync::atomic::{AtomicU32, AtomicU64, Ordering};
#[cfg(loom)]
pub(super) use loom::sync::{Mutex, MutexGuard};
#[cfg(not(loom))]
pub(super) use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
#[cfg(not(loom))]
pub(super) use std::sync::{Mutex, MutexGuard};

use once_cell::race::OnceBox;

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

/// A boxed value that is allocated by the first thread that needs it, without a lock: each
/// thread that finds none allocates its own and installs it with a compare-and-swap of the
/// pointer (`AcqRel`); a thread that loses the race frees its own and uses the winner's. A
/// thread that reads the pointer (`Acquire`) sees the value as it was built. Nobody ever waits
/// for another thread, and the value is never replaced.
pub(super) struct LazyBox<T> {
    value: OnceBox<T>,
    /// Under loom, which does not see the standard library's atomics the swap is made with:
    /// the install is made under a lock the model sees, then released on a flag, and a reader
    /// acquires the flag before it looks at the value. The race of two
    /// installs is then one lock taken after the other, and a reader that finds the flag
    /// unset sees no value yet, as a reader of the pointer may: no thread ever spins.
    #[cfg(loom)]
    installed: AtomicU32,
    #[cfg(loom)]
    install: Mutex<()>,
}

impl<T> LazyBox<T> {
    /// No value yet.
    pub(super) fn new() -> Self {
        LazyBox {
            value: OnceBox::new(),
            #[cfg(loom)]
            installed: AtomicU32::new(0),
            #[cfg(loom)]
            install: Mutex::new(()),
        }
    }

    /// The value, if a thread installed one.
    #[inline]
    pub(super) fn get(&self) -> Option<&T> {
        #[cfg(loom)]
        if self.installed.load(Ordering::Acquire) == 0 {
            return None;
        }
        self.value.get()
    }

    /// The value, built by `make` and installed first if there is none (see the type's
    /// documentation: a thread that loses the race drops what `make` built).
    #[inline]
    pub(super) fn get_or_init(&self, make: impl FnOnce() -> T) -> &T {
        #[cfg(not(loom))]
        return self.value.get_or_init(|| Box::new(make()));
        #[cfg(loom)]
        {
            if let Some(value) = self.get() {
                return value;
            }
            let _install = lock(&self.install);
            let value = self.value.get_or_init(|| Box::new(make()));
            self.installed.store(1, Ordering::Release);
            value
        }
    }
}
