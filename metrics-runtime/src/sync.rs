//! Lock acquisition that tolerates poisoning: the crate's one place for it.
//!
//! A lock is poisoned when a thread panics while holding it. Every lock in this crate guards
//! data that stays structurally valid at every point a panic could occur: a list of families,
//! a map of series, a table of engines, plain counts. The only code that can panic while one
//! is held is a caller's (a `Hash`/`Eq` implementation, a callback), and a metrics library must
//! not turn that one panic into a panic on every later record and scrape. So each helper takes
//! the guard whether or not the lock is poisoned.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Locks `mutex`, ignoring poisoning (see the module documentation).
// Every mutex is in optional code (the vLLM families, the HTTP layer).
pub(crate) fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Takes a shared lock on `lock`, ignoring poisoning (see the module documentation).
pub(crate) fn read<T: ?Sized>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

/// Takes an exclusive lock on `lock`, ignoring poisoning (see the module documentation).
pub(crate) fn write<T: ?Sized>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    #[test]
    fn a_poisoned_mutex_still_locks_with_its_data() {
        let mutex = Mutex::new(1);
        let _ = catch_unwind(AssertUnwindSafe(|| {
            let mut guard = mutex.lock().unwrap();
            *guard = 2;
            panic!("poison");
        }));
        assert!(mutex.is_poisoned());
        assert_eq!(*lock(&mutex), 2);
    }

    #[test]
    fn a_poisoned_rwlock_still_reads_and_writes() {
        let rwlock = RwLock::new(vec![1]);
        let _ = catch_unwind(AssertUnwindSafe(|| {
            let mut guard = rwlock.write().unwrap();
            guard.push(2);
            panic!("poison");
        }));
        assert!(rwlock.is_poisoned());
        write(&rwlock).push(3);
        assert_eq!(*read(&rwlock), vec![1, 2, 3]);
    }
}
