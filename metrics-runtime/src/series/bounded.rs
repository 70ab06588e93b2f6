//! A label-set → series map with a cardinality limit and an overflow series.
//!
//! Shared by [`Family`](crate::Family) (keyed by the common label set) and
//! [`Dynamic`](crate::Dynamic) (keyed by record-time labels). Past `max_series` label sets, a
//! lookup returns the single overflow series instead of growing the map, as OpenTelemetry's SDK
//! does: memory stays bounded under any label stream, and no record is ever lost.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use prometheus_client::encoding::{EncodeLabelSet, MetricEncoder};

use crate::render::{once, Label};
use crate::series::labels::{WithLabel, OVERFLOW_LABEL};
use crate::series::member::{FamilyMember, SeriesSpec};
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

pub(crate) struct BoundedSeries<K, M> {
    max_series: usize,
    /// Renders a new key's labels for the text encoder, once, as its series is created (for
    /// the maps keyed by label sets: a family's, a `Dynamic` axis's).
    render: Option<RenderLabels<K>>,
    table: RwLock<Table<K, M>>,
    /// Created by the first lookup past the limit; removed again by
    /// [`remove_overflow`](Self::remove_overflow). A lock of its own, so an overflow storm
    /// only ever takes it for reading.
    overflow: RwLock<Option<M>>,
    /// How many lookups were routed to the overflow series.
    overflowed_lookups: AtomicU64,
}

/// How a map renders a key's labels (`k="v",...`, escaped and sanitised); `None` when the
/// key's label encoder failed, which fails the scrapes that reach it, as it always did.
pub(crate) type RenderLabels<K> = fn(&K) -> Option<Box<str>>;

/// Insertion-ordered map: `entries` keeps the exposition stable from scrape to scrape. Each key
/// is stored once, behind an `Arc` the index and the entry share (a large label set is not
/// kept twice), beside its rendered labels when the map renders them.
struct Table<K, M> {
    index: HashMap<Arc<K>, usize>,
    entries: Vec<(Arc<K>, M, Option<Box<str>>)>,
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
            max_series,
            render,
            table: RwLock::new(Table {
                index: HashMap::new(),
                entries: Vec::new(),
            }),
            overflow: RwLock::new(None),
            overflowed_lookups: AtomicU64::new(0),
        }
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
        {
            let table = self.read();
            if let Some(&i) = table.index.get(key) {
                return (table.entries[i].1.clone(), false);
            }
            if table.entries.len() >= self.max_series {
                drop(table);
                return (self.overflow_series(&build), true);
            }
        }
        // Rendered before the write lock, so lookups of other label sets are not held up by it.
        let rendered = self.render.and_then(|render| render(key));
        let mut table = self.write();
        if let Some(&i) = table.index.get(key) {
            return (table.entries[i].1.clone(), false);
        }
        if table.entries.len() >= self.max_series {
            drop(table);
            return (self.overflow_series(&build), true);
        }
        let series = build();
        let position = table.entries.len();
        let key = Arc::new(key.clone());
        table.index.insert(Arc::clone(&key), position);
        table.entries.push((key, series.clone(), rendered));
        (series, false)
    }

    /// The overflow series (created on first use), counting the lookup routed to it.
    pub(crate) fn overflow_series(&self, build: impl Fn() -> M) -> M {
        self.overflowed_lookups.fetch_add(1, Ordering::Relaxed);
        if let Some(series) = &*read(&self.overflow) {
            return series.clone();
        }
        write(&self.overflow).get_or_insert_with(build).clone()
    }

    /// Removes the overflow series from the exposition; returns whether it existed. Handles
    /// resolved to it earlier keep working but are no longer exported, and the next lookup
    /// past the limit creates a fresh one. For owners that know nobody records into it any
    /// more (every label set routed there is gone).
    pub(crate) fn remove_overflow(&self) -> bool {
        write(&self.overflow).take().is_some()
    }

    pub(crate) fn get(&self, key: &K) -> Option<M> {
        let table = self.read();
        table.index.get(key).map(|&i| table.entries[i].1.clone())
    }

    /// Removes `key`'s series; returns whether it existed.
    pub(crate) fn remove(&self, key: &K) -> bool {
        let mut table = self.write();
        let Some(position) = table.index.remove(key) else {
            return false;
        };
        table.entries.remove(position);
        // Entries after the removed one moved down by one.
        for slot in table.index.values_mut() {
            if *slot > position {
                *slot -= 1;
            }
        }
        true
    }

    /// Removes every series whose key fails `keep`; returns how many were removed.
    pub(crate) fn retain(&self, keep: impl Fn(&K) -> bool) -> usize {
        let mut table = self.write();
        let before = table.entries.len();
        table.entries.retain(|(key, _, _)| keep(key));
        let removed = before - table.entries.len();
        if removed > 0 {
            let Table { index, entries } = &mut *table;
            index.clear();
            for (position, (key, _, _)) in entries.iter().enumerate() {
                index.insert(Arc::clone(key), position);
            }
        }
        removed
    }

    /// Whether the map holds `max_series` label sets (a new one would overflow).
    pub(crate) fn is_full(&self) -> bool {
        self.read().entries.len() >= self.max_series
    }

    pub(crate) fn len(&self) -> usize {
        self.read().entries.len()
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
        self.for_each_rendered(|series, member| f(series.map(|(key, _)| key), member))
    }

    /// [`for_each`](Self::for_each), with each series' rendered labels (`None` in a map that
    /// does not render them).
    pub(crate) fn for_each_rendered<E>(
        &self,
        mut f: impl FnMut(Option<(&K, Option<&str>)>, &M) -> Result<(), E>,
    ) -> Result<(), E> {
        let table = self.read();
        for (key, series, rendered) in &table.entries {
            f(Some((&**key, rendered.as_deref())), series)?;
        }
        drop(table);
        let overflow = read(&self.overflow).clone();
        if let Some(overflow) = overflow {
            f(None, &overflow)?;
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
            .entries
            .iter()
            .map(|(key, series, _)| ((**key).clone(), series.clone()))
            .collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let overflow = read(&self.overflow).clone();
        (entries, overflow)
    }

    /// Calls `f` for every series in key order (positions numerically), then for the
    /// overflow series if any lookup reached it (`None` as the key), holding the read lock as
    /// [`for_each`](Self::for_each) does. `order` is scratch for the sort: once it has room
    /// for the series, nothing is allocated (what a scrape needs).
    pub(crate) fn for_each_sorted<E>(
        &self,
        order: &mut Vec<usize>,
        mut f: impl FnMut(Option<&K>, &M) -> Result<(), E>,
    ) -> Result<(), E>
    where
        K: Ord,
    {
        let table = self.read();
        order.clear();
        order.extend(0..table.entries.len());
        order.sort_unstable_by(|&a, &b| table.entries[a].0.cmp(&table.entries[b].0));
        for &i in order.iter() {
            let (key, series, _) = &table.entries[i];
            f(Some(&**key), series)?;
        }
        drop(table);
        let overflow = read(&self.overflow).clone();
        if let Some(overflow) = overflow {
            f(None, &overflow)?;
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

/// The series of one family or axis and what builds them, behind one `Arc`: the state
/// [`Family`](crate::Family), [`Dynamic`](crate::Dynamic) and
/// [`RuntimeFamily`](crate::plugin::RuntimeFamily) share (each adds its own lookups and
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
    /// A map of at most `max_series` series whose members are built from `spec`.
    pub(crate) fn new(spec: SeriesSpec, max_series: usize, about: X) -> Self
    where
        K: Clone + Hash + Eq,
        M: Clone,
    {
        Self::from_series(spec, BoundedSeries::new(max_series), about)
    }

    /// A map keyed by label sets, whose labels are rendered once per new series for the text
    /// encoder.
    pub(crate) fn rendering(spec: SeriesSpec, max_series: usize, about: X) -> Self
    where
        K: EncodeLabelSet + Clone + Hash + Eq + fmt::Debug + Send + Sync + 'static,
        M: Clone,
    {
        let render: RenderLabels<K> = |key| once::label_set(key).ok();
        Self::from_series(spec, BoundedSeries::rendering(max_series, render), about)
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

    /// [`resolve`](Self::resolve), and whether the series returned is the overflow series.
    pub(crate) fn resolve_or_overflow(&self, key: &K) -> (M, bool) {
        self.series
            .resolve_or_overflow(key, || M::build(&self.spec))
    }

    /// The overflow series, for a label set over the size limits. A full map sends every new
    /// label set there anyway: the lookup counts as oversized only while the labels could
    /// otherwise have had a series of their own.
    #[cold]
    pub(crate) fn oversized(&self) -> M {
        if !self.series.is_full() {
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
}
