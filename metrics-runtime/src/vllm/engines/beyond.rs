//! The engines past the table's slots: one immutable list sorted by engine, behind an
//! `arc-swap`, replaced whole when one of them joins or leaves.
//!
//! A lookup is one `arc-swap` load and a binary search: no lock, no hash, no allocation, the
//! same cost class as a slot's. A join or leave copies the list (one `Arc` clone per engine
//! past the slots), which is what makes lookups free of locks; such engines are rare, and
//! joins and leaves are not on the record path.

use std::ops::Deref;
use std::sync::Arc;

use arc_swap::{ArcSwap, Guard};

use super::lock_order::OrderedGuard;

type List<T> = Vec<(u32, Arc<T>)>;

pub(crate) struct BeyondSlots<T> {
    list: ArcSwap<List<T>>,
}

/// A borrowed entry: the list as loaded, and the entry's place in it.
pub(crate) struct BeyondRef<T> {
    list: Guard<Arc<List<T>>>,
    index: usize,
}

impl<T> Deref for BeyondRef<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        &self.list[self.index].1
    }
}

impl<T> BeyondSlots<T> {
    pub(crate) fn new() -> Self {
        BeyondSlots {
            list: ArcSwap::from_pointee(Vec::new()),
        }
    }

    /// `engine`'s entry, if present.
    #[inline]
    pub(crate) fn get(&self, engine: u32) -> Option<BeyondRef<T>> {
        let list = self.list.load();
        let index = position(&list, engine).ok()?;
        Some(BeyondRef { list, index })
    }

    /// `engine`'s entry as an owned `Arc`, if present.
    pub(crate) fn get_arc(&self, engine: u32) -> Option<Arc<T>> {
        let list = self.list.load();
        let index = position(&list, engine).ok()?;
        Some(Arc::clone(&list[index].1))
    }

    /// Adds `engine`'s entry, or replaces it. Writers are serialised by the table's membership
    /// lock, whose guard the caller shows: two writers would lose one another's change.
    pub(crate) fn insert(&self, _membership: &OrderedGuard<'_, ()>, engine: u32, entry: Arc<T>) {
        let mut list = List::clone(&self.list.load());
        match position(&list, engine) {
            Ok(at) => list[at].1 = entry,
            Err(at) => list.insert(at, (engine, entry)),
        }
        self.list.store(Arc::new(list));
    }

    /// Removes `engine`'s entry and returns it, if present (under the membership lock, as
    /// [`insert`](Self::insert)).
    pub(crate) fn remove(&self, _membership: &OrderedGuard<'_, ()>, engine: u32) -> Option<Arc<T>> {
        let current = self.list.load();
        let at = position(&current, engine).ok()?;
        let mut list = List::clone(&current);
        let (_, removed) = list.remove(at);
        self.list.store(Arc::new(list));
        Some(removed)
    }

    /// Every entry, in ascending engine order.
    pub(crate) fn entries(&self) -> List<T> {
        List::clone(&self.list.load())
    }
}

fn position<T>(list: &List<T>, engine: u32) -> Result<usize, usize> {
    list.binary_search_by_key(&engine, |(present, _)| *present)
}
