//! Values kept once per distinct value and shared by every histogram that has them (bucket
//! bounds, native configurations): a process has a handful, and a series then holds a pointer
//! where it would hold a copy.

use std::sync::{Arc, Mutex};

/// Distinct values kept for sharing, per kind: past this many, a value is kept by each
/// histogram that has it, as without sharing.
const MAX_KEPT: usize = 256;

/// The distinct values of one kind kept so far.
pub(super) struct Interned<T: ?Sized + 'static> {
    kept: Mutex<Vec<Arc<T>>>,
}

impl<T: ?Sized + 'static> Interned<T> {
    /// None kept yet.
    pub(super) const fn new() -> Self {
        Interned {
            kept: Mutex::new(Vec::new()),
        }
    }

    /// The kept value `same` accepts, or else the one `make` builds, kept for the next caller
    /// while there is room.
    pub(super) fn share(&self, same: impl Fn(&T) -> bool, make: impl FnOnce() -> Arc<T>) -> Arc<T> {
        let mut kept = crate::sync::lock(&self.kept);
        if let Some(value) = kept.iter().find(|value| same(value)) {
            return Arc::clone(value);
        }
        let value = make();
        if kept.len() < MAX_KEPT {
            kept.push(Arc::clone(&value));
        }
        value
    }
}
