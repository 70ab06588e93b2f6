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
