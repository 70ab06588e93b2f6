//! A label-set → series map with a cardinality limit and an overflow series.
//!
//! Shared by [`Family`](crate::Family) (keyed by the common label set) and
//! [`Dynamic`](crate::Dynamic) (keyed by record-time labels). Past `max_series` label sets, a
//! lookup returns the single overflow series instead of growing the map, as OpenTelemetry's SDK
//! does: memory stays bounded under any label stream, and no record is ever lost.

use std::fmt;
use std::hash::{BuildHasher, Hash, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError};
use std::time::Duration;

use hashbrown::HashTable;
use prometheus_client::encoding::{EncodeLabelSet, MetricEncoder};

use crate::created::Created;
use crate::labels::{WithLabel, OVERFLOW_LABEL};
use crate::member::{FamilyMember, SeriesSpec};
use crate::render::{once, Label};
use crate::series::idle::{self, Expiry, IdleState, Swept};
use crate::sync::{read, write};

/// Encodes a map's overflow series under `labels` plus `otel_metric_overflow="true"`: the one
/// place the overflow label is written (a `Family`'s, a run-time family's, an axis's).
pub(crate) fn encode_overflow<M: FamilyMember, L: EncodeLabelSet>(
    overflow: &M,
    labels: &L,
    encoder: &mut MetricEncoder<'_>,
) -> Result<(), fmt::Error> {
    let labels = WithLabel {
        base: labels,
        key: OVERFLOW_LABEL,
        value: "true",
    };
    overflow.encode_member(&labels, encoder)
}

/// The overflow label as the text encoder writes it, after the labels of the series.
pub(crate) const OVERFLOW: Label<'static> = Label::Pair(OVERFLOW_LABEL, "true");

/// The most series one map holds: its index keeps positions as `u32` (4 bytes a slot rather
/// than 8). A larger `max_series` is this many.
const MAX_POSITIONS: usize = u32::MAX as usize;

pub(crate) struct BoundedSeries<K, M> {
    max_series: usize,
    /// Hashes the keys for the table's index (std's `HashMap` hasher, seeded per map).
    hasher: RandomState,
    /// Renders a new key's labels for the text encoder, once, as its series is created (for
    /// the maps keyed by label sets: a family's, a `Dynamic` axis's).
    render: Option<RenderLabels<K>>,
    table: RwLock<Table<K, M>>,
    /// Created by the first lookup past the limit (with its creation time); removed again by
    /// [`remove_overflow`](Self::remove_overflow). A lock of its own, so an overflow storm
    /// only ever takes it for reading.
    overflow: RwLock<Option<(M, Created)>>,
    /// How many lookups were routed to the overflow series.
    overflowed_lookups: AtomicU64,
    /// Idle-series expiry, when the map has an idle timeout (see `series::idle`).
    expiry: Option<Expiry<M>>,
}

/// How a map renders a key's labels (`k="v",...`, escaped and sanitised); `None` when the
/// key's label encoder failed, which fails the scrapes that reach it, as it always did.
pub(crate) type RenderLabels<K> = fn(&K) -> Option<Box<str>>;

/// Insertion-ordered map: `entries` keeps the exposition stable from scrape to scrape. Each key
/// is stored once, in its entry: the index holds only the entry's position and finds it by
/// hashing the key the entry holds.
struct Table<K, M> {
    /// Positions in `entries`, each hashed by its entry's key.
    index: HashTable<u32>,
    entries: Vec<Entry<K, M>>,
    /// The expiry state of each entry, position for position, in a map with an idle timeout;
    /// empty in one without (which pays nothing for expiry).
    idle: Vec<IdleState>,
}

/// One series: its key, its member, its rendered labels and when it was created.
struct Entry<K, M> {
    key: K,
    series: M,
    rendered: Option<Box<str>>,
    created: Created,
}

impl<K: Clone + Hash + Eq, M: Clone> BoundedSeries<K, M> {
    pub(crate) fn new(max_series: usize) -> Self {
        BoundedSeries::with_render(max_series, None)
    }

    /// A map that renders each new key's labels with `render` as it creates its series.
    pub(crate) fn rendering(max_series: usize, render: RenderLabels<K>) -> Self {
        BoundedSeries::with_render(max_series, Some(render))
    }

    fn with_render(max_series: usize, render: Option<RenderLabels<K>>) -> Self {
        BoundedSeries {
            max_series: max_series.min(MAX_POSITIONS),
            hasher: RandomState::new(),
            render,
            table: RwLock::new(Table {
                index: HashTable::new(),
                entries: Vec::new(),
                idle: Vec::new(),
            }),
            overflow: RwLock::new(None),
            overflowed_lookups: AtomicU64::new(0),
            expiry: None,
        }
    }

    /// The map with series that were not recorded nor looked up for `timeout` leaving the
    /// exposition at the next sweep (see `series::idle`); `activity` reads a series'
    /// fingerprint. `None` keeps every series until it is removed. Called on a new map, before
    /// any series is created.
    pub(crate) fn expiring(
        mut self,
        timeout: Option<Duration>,
        activity: fn(&M) -> Option<u64>,
    ) -> Self {
        self.expiry = timeout.map(|timeout| Expiry::new(timeout, activity));
        self
    }

    /// One sweep at the current time: marks the series quiet for the idle timeout dormant and
    /// brings back the dormant ones that were recorded since; returns how many it marked.
    /// Nothing without an idle timeout. Takes the read lock only: lookups go on meanwhile.
    pub(crate) fn sweep(&self) -> usize {
        if self.expiry.is_none() {
            return 0;
        }
        self.sweep_at(idle::now_ms())
    }

    pub(crate) fn sweep_at(&self, now_ms: u64) -> usize {
        let Some(expiry) = &self.expiry else {
            return 0;
        };
        // A sweep runs no caller code, so a poisoned lock only means an earlier sweep
        // panicked (it cannot leave the states half-written): sweep anyway.
        let _sweeping = match expiry.sweeping.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => return 0,
        };
        let table = self.read();
        let (mut expired, mut revived) = (0, 0);
        // A pinned series is declared in use until its owner removes it, recorded or not.
        for (entry, idle) in table.entries.iter().zip(&table.idle) {
            if idle.is_pinned() {
                continue;
            }
            // A member that cannot tell whether it was recorded never expires.
            let Some(activity) = (expiry.activity)(&entry.series) else {
                continue;
            };
            match idle.sweep(activity, now_ms, expiry.timeout_ms) {
                Swept::Expired => expired += 1,
                Swept::Revived => revived += 1,
                Swept::Active | Swept::Quiet => {}
            }
        }
        expiry.swept(expired, revived);
        expired as usize
    }

    /// How many series sweeps marked dormant, and how many dormant series gave their slot up
    /// to a new label set; `(0, 0)` without an idle timeout.
    pub(crate) fn expiry_counts(&self) -> (u64, u64) {
        self.expiry.as_ref().map_or((0, 0), Expiry::counts)
    }

    /// Notes a lookup of the series at `position` for the sweeps (and brings it back if it was
    /// dormant).
    #[inline]
    fn touch(&self, table: &Table<K, M>, position: usize) {
        if let (Some(expiry), Some(idle)) = (&self.expiry, table.idle.get(position)) {
            if idle.touch() {
                expiry.less_dormant(1);
            }
        }
    }

    /// Whether a new label set could get a series of its own: the map is not full, or a
    /// dormant series may give its slot up.
    pub(crate) fn has_room(&self) -> bool {
        !self.is_full() || self.may_evict()
    }

    /// Whether a full map may have a dormant series to give its slot up (decided under the
    /// write lock); `false` without expiry.
    fn may_evict(&self) -> bool {
        self.expiry.as_ref().is_some_and(Expiry::has_dormant)
    }

    /// Under the write lock of a full map: drops the dormant series quiet for longest (after
    /// a last look at its fingerprint) so a new label set can have its slot; returns whether
    /// one was dropped.
    fn evict_one(&self, table: &mut Table<K, M>) -> bool {
        let Some(expiry) = &self.expiry else {
            return false;
        };
        let oldest = table
            .entries
            .iter()
            .zip(&table.idle)
            .enumerate()
            .filter(|(_, (entry, idle))| {
                !idle.is_pinned() && idle.evictable((expiry.activity)(&entry.series))
            })
            .min_by_key(|(_, (_, idle))| idle.quiet_since())
            .map(|(position, _)| position);
        let Some(position) = oldest else {
            return false;
        };
        let hash = self.hasher.hash_one(&table.entries[position].key);
        table.remove_at(hash, position);
        expiry.evicted_one();
        true
    }

    /// The series for `key`, created with `build` on first sight; the overflow series once the
    /// map holds `max_series` label sets.
    ///
    /// A full map answers a new key under the read lock: an overflow storm (every record a new
    /// label set) never takes the write lock, so scrapes and other lookups are not held up.
    pub(crate) fn resolve(&self, key: &K, build: impl Fn() -> M) -> M {
        self.resolve_or_overflow(key, build).0
    }

    /// [`resolve`](Self::resolve), and whether the series returned is the overflow series: for
    /// an owner that must know when nothing records into it any more (see
    /// [`remove_overflow`](Self::remove_overflow)).
    pub(crate) fn resolve_or_overflow(&self, key: &K, build: impl Fn() -> M) -> (M, bool) {
        let hash = self.hasher.hash_one(key);
        {
            let table = self.read();
            if let Some(i) = table.find(hash, key) {
                self.touch(&table, i);
                return (table.entries[i].series.clone(), false);
            }
            // A map that expires series may have a dormant one to give its slot up: that is
            // decided under the write lock.
            if table.entries.len() >= self.max_series && !self.may_evict() {
                drop(table);
                return (self.overflow_series(&build), true);
            }
        }
        // Rendered before the write lock, so lookups of other label sets are not held up by it.
        let rendered = self.render.and_then(|render| render(key));
        let mut table = self.write();
        if let Some(i) = table.find(hash, key) {
            self.touch(&table, i);
            return (table.entries[i].series.clone(), false);
        }
        if table.entries.len() >= self.max_series && !self.evict_one(&mut table) {
            drop(table);
            return (self.overflow_series(&build), true);
        }
        // A label set whose series expired and was dropped starts again from zero here (a
        // counter reset, to Prometheus' `rate()`), with a new created time. A dormant series
        // brought back (above, or by a sweep) keeps its values and its created time.
        let series = build();
        self.insert(&mut table, hash, key, series.clone(), rendered, false);
        (series, false)
    }

    /// Adds `key`'s new series at the end, under the write lock of a map with room for it.
    fn insert(
        &self,
        table: &mut Table<K, M>,
        hash: u64,
        key: &K,
        series: M,
        rendered: Option<Box<str>>,
        pinned: bool,
    ) {
        let entry = Entry {
            key: key.clone(),
            series,
            rendered,
            created: Created::now(),
        };
        let Table {
            index,
            entries,
            idle,
        } = table;
        // Below `max_series`, which is at most `MAX_POSITIONS`: the position fits.
        let position = entries.len() as u32;
        // Only a growing index rehashes, and only the entries already there.
        index.insert_unique(hash, position, |&i| {
            self.hasher.hash_one(&entries[i as usize].key)
        });
        entries.push(entry);
        if self.expiry.is_some() {
            idle.push(if pinned {
                IdleState::pinned()
            } else {
                IdleState::new()
            });
        }
    }

    /// Creates `key`'s series with `build` if it is missing and the map has room for it (never
    /// the overflow series), and pins it: idle expiry never takes it out of the exposition nor
    /// gives its slot to another label set; only [`remove`](Self::remove) or
    /// [`retain`](Self::retain) drop it. An existing series is pinned as it is (brought back
    /// if it was dormant). Returns whether `key` has a pinned series now.
    pub(crate) fn pin(&self, key: &K, build: impl Fn() -> M) -> bool {
        let hash = self.hasher.hash_one(key);
        let mut table = self.write();
        if let Some(i) = table.find(hash, key) {
            self.touch(&table, i);
            if let Some(idle) = table.idle.get(i) {
                idle.pin();
            }
            return true;
        }
        if table.entries.len() >= self.max_series && !self.evict_one(&mut table) {
            return false;
        }
        let rendered = self.render.and_then(|render| render(key));
        self.insert(&mut table, hash, key, build(), rendered, true);
        true
    }

    /// The overflow series (created on first use), counting the lookup routed to it.
    pub(crate) fn overflow_series(&self, build: impl Fn() -> M) -> M {
        self.overflowed_lookups.fetch_add(1, Ordering::Relaxed);
        if let Some((series, _)) = &*read(&self.overflow) {
            return series.clone();
        }
        write(&self.overflow)
            .get_or_insert_with(|| (build(), Created::now()))
            .0
            .clone()
    }

    /// Removes the overflow series from the exposition; returns whether it existed. Handles
    /// resolved to it earlier keep working but are no longer exported, and the next lookup
    /// past the limit creates a fresh one. For owners that know nobody records into it any
    /// more (every label set routed there is gone).
    pub(crate) fn remove_overflow(&self) -> bool {
        write(&self.overflow).take().is_some()
    }

    /// The series of `key` if it exists; a dormant one is brought back (the caller is about
    /// to record into it).
    pub(crate) fn get(&self, key: &K) -> Option<M> {
        let hash = self.hasher.hash_one(key);
        let table = self.read();
        table.find(hash, key).map(|i| {
            self.touch(&table, i);
            table.entries[i].series.clone()
        })
    }

    /// Removes `key`'s series; returns whether it existed.
    pub(crate) fn remove(&self, key: &K) -> bool {
        let hash = self.hasher.hash_one(key);
        let mut table = self.write();
        let Some(position) = table.find(hash, key) else {
            return false;
        };
        let dormant = table.idle.get(position).is_some_and(IdleState::is_dormant);
        table.remove_at(hash, position);
        self.forget_dormant(u64::from(dormant));
        true
    }

    /// Takes `n` removed dormant series off the count.
    fn forget_dormant(&self, n: u64) {
        if let Some(expiry) = &self.expiry {
            expiry.less_dormant(n);
        }
    }

    /// Removes every series whose key fails `keep`; returns how many were removed.
    pub(crate) fn retain(&self, keep: impl Fn(&K) -> bool) -> usize {
        let mut table = self.write();
        let Table {
            index,
            entries,
            idle,
        } = &mut *table;
        let before = entries.len();
        // Moves each kept entry (and its state) down over the removed ones, in order.
        let (mut kept, mut dormant) = (0, 0);
        for position in 0..before {
            if keep(&entries[position].key) {
                entries.swap(kept, position);
                if !idle.is_empty() {
                    idle.swap(kept, position);
                }
                kept += 1;
            } else {
                dormant += u64::from(idle.get(position).is_some_and(IdleState::is_dormant));
            }
        }
        entries.truncate(kept);
        idle.truncate(kept);
        self.forget_dormant(dormant);
        let removed = before - entries.len();
        if removed > 0 {
            index.clear();
            for (position, entry) in entries.iter().enumerate() {
                // At most `MAX_POSITIONS` entries: the position fits.
                index.insert_unique(self.hasher.hash_one(&entry.key), position as u32, |&i| {
                    self.hasher.hash_one(&entries[i as usize].key)
                });
            }
        }
        removed
    }

    /// Whether the map holds `max_series` label sets (a new one would overflow, unless a
    /// dormant series gives its slot up).
    pub(crate) fn is_full(&self) -> bool {
        self.read().entries.len() >= self.max_series
    }

    /// How many series the exposition shows (the dormant ones and the overflow series not
    /// counted).
    pub(crate) fn len(&self) -> usize {
        let table = self.read();
        table.entries.len() - table.idle.iter().filter(|s| s.is_dormant()).count()
    }

    pub(crate) fn overflowed_lookups(&self) -> u64 {
        self.overflowed_lookups.load(Ordering::Relaxed)
    }

    /// Calls `f` for every series in insertion order, then for the overflow series if any
    /// lookup ever reached it (`None` as the key).
    pub(crate) fn for_each<E>(
        &self,
        mut f: impl FnMut(Option<&K>, &M) -> Result<(), E>,
    ) -> Result<(), E> {
        self.for_each_rendered(|series, member, _| f(series.map(|(key, _)| key), member))
    }

    /// [`for_each`](Self::for_each), with each series' rendered labels (`None` in a map that
    /// does not render them) and creation time.
    pub(crate) fn for_each_rendered<E>(
        &self,
        mut f: impl FnMut(Option<(&K, Option<&str>)>, &M, Created) -> Result<(), E>,
    ) -> Result<(), E> {
        let table = self.read();
        for entry in table.exported() {
            f(
                Some((&entry.key, entry.rendered.as_deref())),
                &entry.series,
                entry.created,
            )?;
        }
        drop(table);
        let overflow = read(&self.overflow).clone();
        if let Some((overflow, created)) = overflow {
            f(None, &overflow, created)?;
        }
        Ok(())
    }

    /// Every series sorted by key (positions numerically), and the overflow series if any
    /// lookup reached it. Clones the handles, so encoding holds no lock.
    pub(crate) fn sorted(&self) -> (Vec<(K, M)>, Option<M>)
    where
        K: Ord,
    {
        let mut entries: Vec<(K, M)> = self
            .read()
            .exported()
            .map(|e| (e.key.clone(), e.series.clone()))
            .collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let overflow = read(&self.overflow).clone().map(|(series, _)| series);
        (entries, overflow)
    }

    /// Calls `f` for every series in key order (positions numerically) with its creation
    /// time, then for the overflow series if any lookup reached it (`None` as the key),
    /// holding the read lock as [`for_each`](Self::for_each) does. `order` is scratch for the
    /// sort: once it has room for the series, nothing is allocated (what a scrape needs).
    pub(crate) fn for_each_sorted<E>(
        &self,
        order: &mut Vec<usize>,
        mut f: impl FnMut(Option<&K>, &M, Created) -> Result<(), E>,
    ) -> Result<(), E>
    where
        K: Ord,
    {
        let table = self.read();
        order.clear();
        order.extend((0..table.entries.len()).filter(|&i| table.is_exported(i)));
        order.sort_unstable_by(|&a, &b| table.entries[a].key.cmp(&table.entries[b].key));
        for &i in order.iter() {
            let entry = &table.entries[i];
            f(Some(&entry.key), &entry.series, entry.created)?;
        }
        drop(table);
        let overflow = read(&self.overflow).clone();
        if let Some((overflow, created)) = overflow {
            f(None, &overflow, created)?;
        }
        Ok(())
    }

    // A panic while a lock is held is only possible inside a user's `Hash`/`Eq`; the table is
    // still structurally valid after it (see `crate::sync`).
    fn read(&self) -> RwLockReadGuard<'_, Table<K, M>> {
        read(&self.table)
    }

    fn write(&self) -> RwLockWriteGuard<'_, Table<K, M>> {
        write(&self.table)
    }
}

impl<K: Eq, M> Table<K, M> {
    /// The position of `key`, whose hash is `hash`: one probe of the index, comparing the
    /// keys of the entries it points at.
    #[inline]
    fn find(&self, hash: u64, key: &K) -> Option<usize> {
        let entries = &self.entries;
        self.index
            .find(hash, |&i| entries[i as usize].key == *key)
            .map(|&i| i as usize)
    }

    /// Whether the exposition shows the series at `position` (not expired, or brought back).
    #[inline]
    fn is_exported(&self, position: usize) -> bool {
        self.idle
            .get(position)
            .is_none_or(|state| !state.is_dormant())
    }

    /// The entries the exposition shows, in insertion order.
    fn exported(&self) -> impl Iterator<Item = &Entry<K, M>> {
        self.entries
            .iter()
            .enumerate()
            .filter(|&(i, _)| self.is_exported(i))
            .map(|(_, entry)| entry)
    }

    /// Removes the entry at `position`, whose key hashes to `hash`.
    fn remove_at(&mut self, hash: u64, position: usize) {
        if let Ok(slot) = self.index.find_entry(hash, |&i| i as usize == position) {
            slot.remove();
        }
        self.entries.remove(position);
        if !self.idle.is_empty() {
            self.idle.remove(position);
        }
        // Entries after the removed one moved down by one.
        for slot in self.index.iter_mut() {
            if *slot as usize > position {
                *slot -= 1;
            }
        }
    }
}

/// The series of one family or axis and what builds them, behind one `Arc`: the state
/// [`Family`](crate::Family), [`Dynamic`](crate::Dynamic) and
/// [`RuntimeFamily`](crate::family::RuntimeFamily) share (each adds its own lookups and
/// `about`: what it needs beside the series). Cloning is cheap; clones share the series.
pub(crate) struct SeriesMap<K, M, X = ()>(Arc<Shared<K, M, X>>);

pub(crate) struct Shared<K, M, X> {
    /// What builds a member.
    pub(crate) spec: SeriesSpec,
    pub(crate) series: BoundedSeries<K, M>,
    /// Lookups of label sets over the size limits, routed to the overflow series.
    oversized_lookups: AtomicU64,
    pub(crate) about: X,
}

impl<K, M, X> SeriesMap<K, M, X> {
    /// A map of at most `max_series` series whose members are built from `spec`, expiring
    /// series idle for `idle_timeout` (see `series::idle`).
    pub(crate) fn new(
        spec: SeriesSpec,
        max_series: usize,
        idle_timeout: Option<Duration>,
        about: X,
    ) -> Self
    where
        K: Clone + Hash + Eq,
        M: FamilyMember,
    {
        let series = BoundedSeries::new(max_series).expiring(idle_timeout, M::activity);
        Self::from_series(spec, series, about)
    }

    /// A map keyed by label sets, whose labels are rendered once per new series for the text
    /// encoder.
    pub(crate) fn rendering(
        spec: SeriesSpec,
        max_series: usize,
        idle_timeout: Option<Duration>,
        about: X,
    ) -> Self
    where
        K: EncodeLabelSet + Clone + Hash + Eq + fmt::Debug + Send + Sync + 'static,
        M: FamilyMember,
    {
        let render: RenderLabels<K> = |key| once::label_set(key).ok();
        let series =
            BoundedSeries::rendering(max_series, render).expiring(idle_timeout, M::activity);
        Self::from_series(spec, series, about)
    }

    fn from_series(spec: SeriesSpec, series: BoundedSeries<K, M>, about: X) -> Self {
        SeriesMap(Arc::new(Shared {
            spec,
            series,
            oversized_lookups: AtomicU64::new(0),
            about,
        }))
    }
}

impl<K, M, X> std::ops::Deref for SeriesMap<K, M, X> {
    type Target = Shared<K, M, X>;

    fn deref(&self) -> &Shared<K, M, X> {
        &self.0
    }
}

impl<K, M, X> Clone for SeriesMap<K, M, X> {
    fn clone(&self) -> Self {
        SeriesMap(Arc::clone(&self.0))
    }
}

impl<K: Clone + Hash + Eq, M: FamilyMember, X> Shared<K, M, X> {
    /// The series for `key`: found, created on first sight, or the overflow series.
    pub(crate) fn resolve(&self, key: &K) -> M {
        self.series.resolve(key, || M::build(&self.spec))
    }

    /// Creates `key`'s series at zero if there is room, exempt from idle expiry (see
    /// [`BoundedSeries::pin`]); returns whether it has one.
    pub(crate) fn pin(&self, key: &K) -> bool {
        self.series.pin(key, || M::build(&self.spec))
    }

    /// [`resolve`](Self::resolve), and whether the series returned is the overflow series.
    #[cfg(feature = "metrics-facade")]
    pub(crate) fn resolve_or_overflow(&self, key: &K) -> (M, bool) {
        self.series
            .resolve_or_overflow(key, || M::build(&self.spec))
    }

    /// The overflow series, for a label set over the size limits. A full map sends every new
    /// label set there anyway: the lookup counts as oversized only while the labels could
    /// otherwise have had a series of their own.
    #[cold]
    pub(crate) fn oversized(&self) -> M {
        if self.series.has_room() {
            self.oversized_lookups.fetch_add(1, Ordering::Relaxed);
        }
        self.series.overflow_series(|| M::build(&self.spec))
    }

    /// How many label sets have their own series (the overflow series not counted).
    pub(crate) fn len(&self) -> usize {
        self.series.len()
    }

    /// How many lookups were routed to the overflow series.
    pub(crate) fn overflowed_lookups(&self) -> u64 {
        self.series.overflowed_lookups()
    }

    /// How many lookups were routed to the overflow series for a label set over the size
    /// limits (also counted in [`overflowed_lookups`](Self::overflowed_lookups)).
    pub(crate) fn oversized_lookups(&self) -> u64 {
        self.oversized_lookups.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_past_the_limit_share_one_overflow_series() {
        let map: BoundedSeries<u32, u32> = BoundedSeries::new(2);
        let built = std::cell::Cell::new(0);
        let build = || {
            built.set(built.get() + 1);
            built.get()
        };
        assert_eq!(map.resolve(&10, build), 1);
        assert_eq!(map.resolve(&20, build), 2);
        assert_eq!(map.resolve(&10, build), 1);
        assert_eq!(map.resolve(&30, build), 3);
        assert_eq!(map.resolve(&40, build), 3);
        assert_eq!(map.len(), 2);
        assert_eq!(map.overflowed_lookups(), 2);
        let mut seen = Vec::new();
        map.for_each::<()>(|k, v| {
            seen.push((k.copied(), *v));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [(Some(10), 1), (Some(20), 2), (None, 3)]);
    }

    #[test]
    fn a_full_map_answers_new_keys_without_the_write_lock() {
        let map: BoundedSeries<u32, u32> = BoundedSeries::new(1);
        map.resolve(&1, || 1);
        // A reader holds the lock (a scrape in progress): a lookup that needed the write lock
        // would block here forever.
        let scrape = map.read();
        assert_eq!(map.resolve(&2, || 9), 9);
        assert_eq!(map.resolve(&3, || 7), 9);
        assert_eq!(map.overflowed_lookups(), 2);
        drop(scrape);
    }

    #[test]
    fn a_removed_overflow_series_is_no_longer_listed_and_the_next_overflow_builds_afresh() {
        let map: BoundedSeries<u32, u32> = BoundedSeries::new(1);
        map.resolve(&1, || 1);
        assert_eq!(map.resolve(&2, || 5), 5);
        assert!(map.remove_overflow());
        assert!(!map.remove_overflow());
        let mut seen = Vec::new();
        map.for_each::<()>(|k, v| {
            seen.push((k.copied(), *v));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [(Some(1), 1)]);
        assert_eq!(map.resolve(&3, || 6), 6);
        assert_eq!(map.sorted().1, Some(6));
    }

    #[test]
    fn removal_keeps_the_index_consistent() {
        let map: BoundedSeries<u32, u32> = BoundedSeries::new(10);
        for k in 0..5 {
            map.resolve(&k, || k * 100);
        }
        assert!(map.remove(&1));
        assert!(!map.remove(&1));
        for k in [0, 2, 3, 4] {
            assert_eq!(map.get(&k), Some(k * 100));
        }
        assert_eq!(map.get(&1), None);
        assert_eq!(map.resolve(&1, || 7), 7);
    }

    #[test]
    fn a_pinned_series_is_never_expired_nor_evicted_and_is_the_one_lookups_return() {
        let map: BoundedSeries<u32, u32> = BoundedSeries::new(2)
            .expiring(Some(Duration::from_millis(10)), |v| Some(u64::from(*v)));
        assert!(map.pin(&1, || 1));
        map.resolve(&2, || 2);
        map.sweep_at(0);
        // Quiet for the timeout: only the unpinned series goes dormant.
        assert_eq!(map.sweep_at(10), 1);
        assert_eq!(map.len(), 1);
        // A new key takes the dormant series' slot, never the pinned one's.
        assert_eq!(map.resolve(&3, || 3), 3);
        assert_eq!(map.get(&1), Some(1));
        assert_eq!(map.get(&2), None);
        // Full with no dormant series: nothing more is pinned, and no overflow series appears.
        assert!(!map.pin(&4, || 4));
        assert_eq!(map.overflowed_lookups(), 0);
        assert!(map.sorted().1.is_none());
        // Pinning an existing series keeps it (and its value).
        assert!(map.pin(&3, || 9));
        assert_eq!(map.sweep_at(100) + map.sweep_at(200), 0);
        assert_eq!(map.resolve(&3, || 9), 3);
        assert!(map.remove(&1));
    }

    #[test]
    fn removal_and_retain_keep_each_expiry_state_with_its_series() {
        let map: BoundedSeries<u32, u32> = BoundedSeries::new(10)
            .expiring(Some(Duration::from_millis(10)), |v| Some(u64::from(*v)));
        for k in 0..5 {
            map.resolve(&k, || k * 100);
        }
        map.sweep_at(0);
        assert_eq!(map.sweep_at(10), 5);
        assert_eq!(map.len(), 0);
        // A lookup brings back its own series, wherever removals moved it.
        assert_eq!(map.get(&2), Some(200));
        assert!(map.remove(&1));
        assert_eq!(map.get(&4), Some(400));
        let exported = |map: &BoundedSeries<u32, u32>| -> Vec<u32> {
            map.sorted().0.into_iter().map(|(k, _)| k).collect()
        };
        assert_eq!(exported(&map), [2, 4]);
        assert!(map.may_evict(), "0 and 3 are still dormant");
        assert_eq!(map.retain(|&k| k != 0 && k != 3), 2);
        assert!(!map.may_evict(), "the dormant series were the ones removed");
        assert_eq!(exported(&map), [2, 4]);
        // Quiet again: both go dormant, and each lookup finds its own value.
        assert_eq!(map.sweep_at(20) + map.sweep_at(30), 2);
        assert_eq!(
            (map.get(&4), map.get(&2), map.get(&0)),
            (Some(400), Some(200), None)
        );
        assert_eq!(map.len(), 2);
    }

    #[test]
    fn a_full_expiring_map_without_dormant_series_answers_new_keys_without_the_write_lock() {
        let map: BoundedSeries<u32, u32> = BoundedSeries::new(1)
            .expiring(Some(Duration::from_millis(10)), |v| Some(u64::from(*v)));
        map.resolve(&1, || 1);
        map.sweep_at(0);
        // Dormant at 10 ms: now a new key may take its slot (under the write lock).
        assert_eq!(map.sweep_at(10), 1);
        assert_eq!(map.resolve(&2, || 2), 2);
        assert_eq!(map.expiry_counts(), (1, 1));
        // Full, nothing dormant: a reader holds the lock, and the lookup still answers.
        let scrape = map.read();
        assert_eq!(map.resolve(&3, || 9), 9);
        assert_eq!(map.overflowed_lookups(), 1);
        drop(scrape);
    }
}
