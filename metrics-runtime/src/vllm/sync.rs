//! The one lock rule of the vLLM recorders: a poisoned lock is taken as it is. A panic while a
//! recorder held a lock leaves data that is still counts (at worst one record short), and a
//! metrics library must not turn one panic into a panic at every later record or scrape.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, poisoned or not.
pub(crate) fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
