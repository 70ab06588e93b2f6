//! [`HandleCache`]: the facade's key to the handle of its series, what makes a
//! `counter!("name", "k" => "v")` call (a lookup every time) cheap.
//!
//! A macro call hands the recorder a `metrics::Key` whose hash the facade computed already (at
//! compile time for literal names and labels). The cache finds the handle by that hash in one
//! of a fixed number of shards, each behind its own read-write lock, so calls on different
//! keys rarely share a lock's cache line. A miss takes the slow path (the family, a new series)
//! and caches what it found.
//!
//! What is never cached, so the cache stays bounded by the series that exist: the overflow
//! series (every label set past a name's limit would be an entry), refused names, and a
//! series that a family with idle expiry has since given up to a new label set (its handle
//! would record into a series nobody exports). The cache holds at most as many entries as the
//! families it serves may have series; when full, it drops the entries such evictions left
//! stale, and if it is still full the key is simply looked up the slow way each time.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use hashbrown::HashTable;

use super::labels::{FacadeLabels, LabelOrder};
use crate::sync;

/// The number of shards: a power of two, fixed (not the core count: the cache's size must not
/// grow with the machine).
const SHARDS: usize = 16;

/// What a cached handle needs to know whether its series is still the one exported: the
/// family's eviction count when it was cached.
pub(crate) trait Evictions: Clone {
    /// How many series the family has given up to new label sets so far (0 forever for a
    /// family without idle expiry).
    fn evictions(&self) -> u64;
}

/// The family a cached handle records into, when it expires idle series: a handle cached
/// before the family evicted anything is still its series' handle.
#[derive(Clone)]
pub(crate) struct Guard<F> {
    family: F,
    evictions: u64,
}

impl<F: Evictions> Guard<F> {
    /// A guard of a handle looked up in `family` once it had evicted `evictions` series (read
    /// before the lookup: an eviction racing the lookup then makes the handle stale, never a
    /// stale handle fresh).
    pub(crate) fn new(family: F, evictions: u64) -> Self {
        Guard { family, evictions }
    }

    fn is_stale(&self) -> bool {
        self.family.evictions() != self.evictions
    }
}

/// How a cached handle recognises the facade's key.
pub(crate) enum CachedKey {
    /// A key whose labels are its series' own (no key renamed or repeated): the key's name,
    /// the series' labels, shared with the series map rather than copied, and the order the
    /// key gave them in.
    Own {
        name: metrics::KeyName,
        labels: FacadeLabels,
        order: LabelOrder,
    },
    /// Any other key: a copy of it.
    Copy(Box<metrics::Key>),
}

impl CachedKey {
    #[inline]
    fn matches(&self, key: &metrics::Key) -> bool {
        match self {
            CachedKey::Own {
                name,
                labels,
                order,
            } => {
                let given = key.labels().as_slice();
                name.as_str() == key.name()
                    && (labels.is_in_order(given, *order) || labels.is_of(given))
            }
            CachedKey::Copy(copy) => **copy == *key,
        }
    }
}

/// One cached handle. Boxed in the table: a table's slots are sized for growth (at times twice
/// the entries it holds), and a pointer is the smallest slot; the extra load is on a line the
/// lookup reads anyway.
struct Entry<H, F> {
    /// The facade's hash of the key.
    hash: u64,
    key: CachedKey,
    handle: H,
    /// Only for a family with idle expiry (boxed: most families have none).
    guard: Option<Box<Guard<F>>>,
}

/// A shard on a cache line of its own.
#[repr(align(128))]
struct Shard<H, F>(RwLock<HashTable<Box<Entry<H, F>>>>);

/// Keys to handles of one metric kind.
pub(crate) struct HandleCache<H, F> {
    shards: Box<[Shard<H, F>]>,
    len: AtomicUsize,
    /// The most entries it holds: the series limits of the families it serves, summed.
    capacity: AtomicUsize,
}

impl<H: Clone, F: Evictions> HandleCache<H, F> {
    pub(crate) fn new() -> Self {
        HandleCache {
            shards: (0..SHARDS)
                .map(|_| Shard(RwLock::new(HashTable::new())))
                .collect(),
            len: AtomicUsize::new(0),
            capacity: AtomicUsize::new(0),
        }
    }

    /// Makes room for `series` more entries (a family was created).
    pub(crate) fn grow(&self, series: usize) {
        self.capacity.fetch_add(series, Ordering::Relaxed);
    }

    /// The handle cached for `key`, if it is still its series'.
    #[inline]
    pub(crate) fn get(&self, key: &metrics::Key) -> Option<H> {
        let hash = key.get_hash();
        let table = self.read(hash);
        let entry = table.find(hash, |entry| entry.hash == hash && entry.key.matches(key))?;
        match &entry.guard {
            Some(guard) if guard.is_stale() => None,
            _ => Some(entry.handle.clone()),
        }
    }

    /// Caches `handle` for `key`, recognised by `cached` (replacing a stale entry), if there
    /// is room.
    pub(crate) fn insert(
        &self,
        key: &metrics::Key,
        cached: CachedKey,
        handle: H,
        guard: Option<Guard<F>>,
    ) {
        if self.len.load(Ordering::Relaxed) >= self.capacity.load(Ordering::Relaxed) {
            self.drop_stale();
        }
        let hash = key.get_hash();
        let mut table = self.write(hash);
        let entry = Box::new(Entry {
            hash,
            key: cached,
            handle,
            guard: guard.map(Box::new),
        });
        match table.find_mut(hash, |entry| entry.hash == hash && entry.key.matches(key)) {
            Some(existing) => *existing = entry,
            None => {
                if self.len.load(Ordering::Relaxed) >= self.capacity.load(Ordering::Relaxed) {
                    return;
                }
                table.insert_unique(hash, entry, |entry| entry.hash);
                self.len.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// How many handles are cached.
    pub(crate) fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }

    /// Drops every entry whose series its family has given up.
    fn drop_stale(&self) {
        for shard in self.shards.iter() {
            let mut table = sync::write(&shard.0);
            let before = table.len();
            table.retain(|entry| !entry.guard.as_ref().is_some_and(|guard| guard.is_stale()));
            self.len.fetch_sub(before - table.len(), Ordering::Relaxed);
        }
    }

    fn shard(&self, hash: u64) -> &Shard<H, F> {
        // The top bits choose the shard; the table uses the whole hash.
        &self.shards[(hash >> (u64::BITS - SHARDS.trailing_zeros())) as usize]
    }

    fn read(&self, hash: u64) -> RwLockReadGuard<'_, HashTable<Box<Entry<H, F>>>> {
        sync::read(&self.shard(hash).0)
    }

    fn write(&self, hash: u64) -> RwLockWriteGuard<'_, HashTable<Box<Entry<H, F>>>> {
        sync::write(&self.shard(hash).0)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;

    use super::*;

    #[derive(Clone, Default)]
    struct Family(Arc<AtomicU64>);

    impl Evictions for Family {
        fn evictions(&self) -> u64 {
            self.0.load(Ordering::Relaxed)
        }
    }

    fn key(value: &str) -> metrics::Key {
        metrics::Key::from_parts("m", vec![metrics::Label::new("k", value.to_owned())])
    }

    fn copy(key: &metrics::Key) -> CachedKey {
        CachedKey::Copy(Box::new(key.clone()))
    }

    fn own(key: &metrics::Key) -> CachedKey {
        let (labels, own) = FacadeLabels::of(key, &[]);
        assert!(own);
        CachedKey::Own {
            name: key.name_shared(),
            order: labels.order_of(key.labels().as_slice()),
            labels,
        }
    }

    #[test]
    fn a_handle_is_found_by_its_key_whatever_the_label_order() {
        let cache: HandleCache<u32, Family> = HandleCache::new();
        cache.grow(10);
        let ab = metrics::Key::from_parts(
            "m",
            vec![metrics::Label::new("a", "1"), metrics::Label::new("b", "2")],
        );
        let ba = metrics::Key::from_parts(
            "m",
            vec![metrics::Label::new("b", "2"), metrics::Label::new("a", "1")],
        );
        cache.insert(&ab, own(&ab), 7, None);
        assert_eq!(cache.get(&ba), Some(7));
        assert_eq!(cache.get(&key("other")), None);
        let renamed = metrics::Key::from_parts("m", vec![metrics::Label::new("a.b", "1")]);
        cache.insert(&renamed, copy(&renamed), 8, None);
        assert_eq!(cache.get(&renamed), Some(8));
        let other_name = metrics::Key::from_parts(
            "n",
            vec![metrics::Label::new("b", "2"), metrics::Label::new("a", "1")],
        );
        assert_eq!(cache.get(&other_name), None);
    }

    #[test]
    fn an_eviction_in_the_family_makes_its_cached_handles_stale() {
        let cache: HandleCache<u32, Family> = HandleCache::new();
        cache.grow(10);
        let family = Family::default();
        cache.insert(
            &key("a"),
            own(&key("a")),
            1,
            Some(Guard::new(family.clone(), family.evictions())),
        );
        assert_eq!(cache.get(&key("a")), Some(1));
        family.0.fetch_add(1, Ordering::Relaxed);
        assert_eq!(
            cache.get(&key("a")),
            None,
            "the series may be gone: look it up again"
        );
        cache.insert(
            &key("a"),
            own(&key("a")),
            2,
            Some(Guard::new(family.clone(), family.evictions())),
        );
        assert_eq!(cache.get(&key("a")), Some(2));
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn a_full_cache_drops_stale_entries_and_otherwise_caches_nothing_more() {
        let cache: HandleCache<u32, Family> = HandleCache::new();
        cache.grow(2);
        let family = Family::default();
        cache.insert(
            &key("a"),
            own(&key("a")),
            1,
            Some(Guard::new(family.clone(), family.evictions())),
        );
        cache.insert(&key("b"), own(&key("b")), 2, None);
        cache.insert(&key("c"), own(&key("c")), 3, None);
        assert_eq!((cache.len(), cache.get(&key("c"))), (2, None));
        family.0.fetch_add(1, Ordering::Relaxed);
        cache.insert(&key("c"), own(&key("c")), 3, None);
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.get(&key("c")), Some(3));
        assert_eq!(cache.get(&key("b")), Some(2));
    }
}
