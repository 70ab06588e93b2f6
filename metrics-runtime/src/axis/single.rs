//! The single label axes of a family member: by enum variant, by position, by run-time label set.

use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::Arc;

use prometheus_client::encoding::{EncodeLabelSet, MetricEncoder};

use crate::descriptor::MetricKind;
use crate::labels::size::label_set_fits;
use crate::labels::{LabelEnum, LabelSet, WithLabel, WithLabels};
use crate::member::activity::fold_all;
use crate::member::{AxisShape, FamilyMember, SeriesSpec};
use crate::render::{Label, LabelStack, SeriesWriter};
use crate::series::bounded::{encode_overflow, BoundedSeries, SeriesMap, OVERFLOW};

/// One series per variant of `E`, resolved up front: `get(variant)` is an array index.
///
/// Every variant's series exists (and is exported, at 0) from the moment the label set is
/// resolved, so a `rate()` over any of them works from the first scrape.
pub struct ByLabel<E, M> {
    key: &'static str,
    children: Arc<[M]>,
    _enum: PhantomData<fn(E)>,
}

impl<E: LabelEnum, M> ByLabel<E, M> {
    /// The series of `variant`. No hashing, no lock: an array index.
    #[inline]
    pub fn get(&self, variant: E) -> &M {
        // `LabelEnum::index` is below `VARIANTS.len()`, the array's length, for every
        // derived implementation.
        &self.children[variant.index()]
    }

    /// Every `(variant, series)` pair, in variant order.
    pub fn iter(&self) -> impl Iterator<Item = (E, &M)> {
        E::VARIANTS.iter().copied().zip(self.children.iter())
    }

    /// The label key of this axis.
    pub fn key(&self) -> &'static str {
        self.key
    }
}

impl<E, M> Clone for ByLabel<E, M> {
    fn clone(&self) -> Self {
        ByLabel {
            key: self.key,
            children: Arc::clone(&self.children),
            _enum: PhantomData,
        }
    }
}

impl<E: LabelEnum, M: fmt::Debug> fmt::Debug for ByLabel<E, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(E::VALUES.iter().zip(self.children.iter()))
            .finish()
    }
}

impl<E: LabelEnum, M: FamilyMember> FamilyMember for ByLabel<E, M> {
    const KIND: MetricKind = M::KIND;
    const AXIS: AxisShape = AxisShape::Enum(E::VALUES);

    fn activity(&self) -> Option<u64> {
        fold_all(self.children.iter().map(M::activity))
    }

    fn build(spec: &SeriesSpec) -> Self {
        ByLabel {
            key: spec.axis_key,
            children: E::VARIANTS.iter().map(|_| M::build(spec)).collect(),
            _enum: PhantomData,
        }
    }

    fn encode_member<L: EncodeLabelSet>(
        &self,
        labels: &L,
        encoder: &mut MetricEncoder<'_>,
    ) -> Result<(), fmt::Error> {
        for (value, child) in E::VALUES.iter().zip(self.children.iter()) {
            let labels = WithLabel {
                base: labels,
                key: self.key,
                value: *value,
            };
            child.encode_member(&labels, encoder)?;
        }
        Ok(())
    }

    const WRITES_TEXT: bool = M::WRITES_TEXT;
    const WRITES_PROTOBUF: bool = M::WRITES_PROTOBUF;

    fn write_text(
        &self,
        labels: &LabelStack<'_>,
        writer: &mut SeriesWriter<'_>,
    ) -> Result<(), fmt::Error> {
        for (value, child) in E::VALUES.iter().zip(self.children.iter()) {
            child.write_text(&labels.with(Label::Pair(self.key, value))?, writer)?;
        }
        Ok(())
    }
}

/// One series per position `0..N` pre-resolved into an array, and a bounded map for positions
/// beyond `N` (a spec-decode draft position past the configured number of speculative tokens).
///
/// `N` is fixed at registration (`RegisterOptions::positions`), so it can be a run-time value
/// such as `num_speculative_tokens`.
pub struct ByPosition<M> {
    inner: Arc<ByPositionInner<M>>,
}

struct ByPositionInner<M> {
    key: &'static str,
    spec: SeriesSpec,
    cached: Box<[M]>,
    beyond: BoundedSeries<usize, M>,
}

/// The series of one position: borrowed from the pre-resolved array, or owned after a lookup.
#[derive(Debug)]
pub enum PositionSeries<'a, M> {
    /// A pre-resolved position: no lookup happened.
    Cached(&'a M),
    /// A position beyond the pre-resolved range, from the bounded map.
    LookedUp(M),
}

impl<M> Deref for PositionSeries<'_, M> {
    type Target = M;

    fn deref(&self) -> &M {
        match self {
            PositionSeries::Cached(series) => series,
            PositionSeries::LookedUp(series) => series,
        }
    }
}

impl<M: FamilyMember> ByPosition<M> {
    /// The series of `position`: an array index below the pre-resolved count, a bounded map
    /// lookup beyond it that creates the position's series on first sight (or returns the
    /// overflow series once the map is full). Never a panic, never a lost record.
    #[inline]
    pub fn get_or_create(&self, position: usize) -> PositionSeries<'_, M> {
        match self.inner.cached.get(position) {
            Some(series) => PositionSeries::Cached(series),
            None => PositionSeries::LookedUp(self.get_or_create_beyond(position)),
        }
    }

    /// The series of `position` if it exists: always for a pre-resolved position, and beyond
    /// them only once [`get_or_create`](ByPosition::get_or_create) created it. Never creates.
    pub fn get(&self, position: usize) -> Option<PositionSeries<'_, M>> {
        match self.inner.cached.get(position) {
            Some(series) => Some(PositionSeries::Cached(series)),
            None => self
                .inner
                .beyond
                .get(&position)
                .map(PositionSeries::LookedUp),
        }
    }

    #[cold]
    fn get_or_create_beyond(&self, position: usize) -> M {
        let inner = &*self.inner;
        inner.beyond.resolve(&position, || M::build(&inner.spec))
    }

    /// How many positions are pre-resolved.
    pub fn preresolved(&self) -> usize {
        self.inner.cached.len()
    }

    /// The label key of this axis.
    pub fn key(&self) -> &'static str {
        self.inner.key
    }
}

impl<M> Clone for ByPosition<M> {
    fn clone(&self) -> Self {
        ByPosition {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<M: fmt::Debug> fmt::Debug for ByPosition<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ByPosition")
            .field("key", &self.inner.key)
            .field("cached", &self.inner.cached)
            .finish_non_exhaustive()
    }
}

impl<M: FamilyMember> FamilyMember for ByPosition<M> {
    const KIND: MetricKind = M::KIND;
    const AXIS: AxisShape = AxisShape::Position;

    fn build(spec: &SeriesSpec) -> Self {
        ByPosition {
            inner: Arc::new(ByPositionInner {
                key: spec.axis_key,
                spec: spec.clone(),
                cached: (0..spec.positions).map(|_| M::build(spec)).collect(),
                beyond: BoundedSeries::new(spec.max_series),
            }),
        }
    }

    fn encode_member<L: EncodeLabelSet>(
        &self,
        labels: &L,
        encoder: &mut MetricEncoder<'_>,
    ) -> Result<(), fmt::Error> {
        let inner = &*self.inner;
        for (position, child) in inner.cached.iter().enumerate() {
            let labels = WithLabel {
                base: labels,
                key: inner.key,
                value: position,
            };
            child.encode_member(&labels, encoder)?;
        }
        // Positions come out numerically, whatever order they were first recorded in.
        let (beyond, overflow) = inner.beyond.sorted();
        for (position, child) in &beyond {
            let labels = WithLabel {
                base: labels,
                key: inner.key,
                value: *position,
            };
            child.encode_member(&labels, encoder)?;
        }
        match overflow {
            Some(child) => encode_overflow(&child, labels, encoder),
            None => Ok(()),
        }
    }

    const WRITES_TEXT: bool = M::WRITES_TEXT;
    const WRITES_PROTOBUF: bool = M::WRITES_PROTOBUF;

    fn write_text(
        &self,
        labels: &LabelStack<'_>,
        writer: &mut SeriesWriter<'_>,
    ) -> Result<(), fmt::Error> {
        let inner = &*self.inner;
        for (position, child) in inner.cached.iter().enumerate() {
            child.write_text(&labels.with(Label::Position(inner.key, position))?, writer)?;
        }
        let mut order = writer.take_order();
        let written = inner
            .beyond
            .for_each_sorted(&mut order, |position, child, created| {
                let labels = labels.created_at(created);
                match position {
                    Some(&position) => child
                        .write_text(&labels.with(Label::Position(inner.key, position))?, writer),
                    None => child.write_text(&labels.with(OVERFLOW)?, writer),
                }
            });
        writer.put_order(order);
        written
    }
}

/// Series keyed by labels only known at record time (`D`, a [`LabelSet`]), kept in a map
/// bounded by the field's `max_series`: past the limit, records go to one overflow series
/// labelled `otel_metric_overflow="true"`, so memory stays bounded and no record is lost.
///
/// The limit applies per common label set: each resolved label set of the family has its own
/// map, its own `max_series` and its own overflow series, which keeps the common labels
/// (`{service="a",otel_metric_overflow="true"}`). Series come out in first-seen order.
///
/// Each record pays a hash and a read lock, like a prometheus-client `Family`; use an enum or
/// position axis whenever the values are known in advance.
///
/// # Idle-series expiry
///
/// With an idle timeout (`#[metric(idle_timeout = "5m")]`,
/// [`RegisterOptions::idle_timeout`](crate::RegisterOptions::idle_timeout), or
/// [`SeriesSpec::with_idle_timeout`]; off by default), a series that was neither recorded nor
/// looked up for that long leaves the exposition at the next scrape (or
/// [`expire_idle`](Self::expire_idle) call): a tenant or a path that went away stops being
/// exported. Nothing is added to the record path: each scrape compares every series' value
/// (a counter's value, a histogram's count, a gauge's value) with the previous scrape's, and
/// a series whose value did not change for the timeout is *dormant*.
///
/// * A dormant series keeps its values and its place. [`get_or_create`](Self::get_or_create)
///   of its labels, or a record through a handle kept from before (seen at the next scrape),
///   brings it back, with every count it ever had: nothing recorded is lost.
/// * When the map is at `max_series` and a new label set arrives, the dormant series quiet for
///   longest gives its slot up and is dropped (unless it was recorded since it went dormant).
///   Its label set, looked up again, starts from zero: a counter reset, which Prometheus'
///   `rate()` and `increase()` handle. A handle kept across that records into a series that is
///   no longer exported: keep handles only for series you record into more often than the
///   timeout, or look them up again.
/// * A gauge set to the value it already holds is not a change: a gauge that keeps one value
///   for the timeout goes dormant, and comes back when its value changes or its labels are
///   looked up.
/// * A scrape reads each histogram of the map once more (as a scrape reads it) to see its
///   count.
pub struct Dynamic<D, M> {
    inner: SeriesMap<D, M>,
}

impl<D: LabelSet, M: FamilyMember> Dynamic<D, M> {
    /// The series for `labels`, created on first sight, or the overflow series: past the
    /// limit of label sets, or for a label set too large to keep (a value over
    /// [`MAX_LABEL_VALUE_LEN`](crate::limits::MAX_LABEL_VALUE_LEN) bytes, or all of them over
    /// [`MAX_LABEL_SET_LEN`](crate::limits::MAX_LABEL_SET_LEN), as written in the exposition). Either
    /// way the record is counted, in the overflow series.
    pub fn get_or_create(&self, labels: &D) -> M {
        let inner = &self.inner;
        if let Some(series) = inner.series.get(labels) {
            return series;
        }
        // A full map sends every new label set to the overflow series anyway: measure only
        // a label set that would get its own series (in a free slot, or a dormant series').
        if inner.series.has_room() && !label_set_fits(labels) {
            return inner.oversized();
        }
        inner.resolve(labels)
    }

    /// How many lookups were routed to the overflow series because their label set was over
    /// the size limits (also counted in [`Dynamic::overflowed_lookups`]).
    pub fn oversized_lookups(&self) -> u64 {
        self.inner.oversized_lookups()
    }

    /// The series for `labels` if it exists; never creates one (a dormant one, with an idle
    /// timeout, is brought back).
    pub fn get(&self, labels: &D) -> Option<M> {
        self.inner.series.get(labels)
    }

    /// Removes the series of `labels`; returns whether it existed.
    pub fn remove(&self, labels: &D) -> bool {
        self.inner.series.remove(labels)
    }

    /// How many distinct label sets have their own series (the overflow series not counted).
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether no label set has been recorded yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many lookups were routed to the overflow series.
    pub fn overflowed_lookups(&self) -> u64 {
        self.inner.overflowed_lookups()
    }

    /// Sweeps the series now, as a scrape does: with an idle timeout, the series not recorded
    /// nor looked up for it leave the exposition, and dormant series recorded since come
    /// back (see [idle-series expiry](Self#idle-series-expiry)). Returns how many series left.
    /// Without an idle timeout, does nothing.
    pub fn expire_idle(&self) -> usize {
        self.inner.series.sweep()
    }

    /// How many times a series went dormant for being idle, and how many dormant series were
    /// dropped to give their slot to a new label set.
    pub fn expired_series(&self) -> (u64, u64) {
        self.inner.series.expiry_counts()
    }
}

impl<D, M> Clone for Dynamic<D, M> {
    fn clone(&self) -> Self {
        Dynamic {
            inner: self.inner.clone(),
        }
    }
}

impl<D, M> fmt::Debug for Dynamic<D, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dynamic").finish_non_exhaustive()
    }
}

/// The keys of a [`Dynamic`] axis: any [`LabelSet`]. A trait of its own so that a type that is
/// not one (an enum, above all) is told what to write instead.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a label set, so it cannot key a `Dynamic` axis",
    label = "not a label set",
    note = "a `Dynamic<D, _>` axis looks its series up by a `#[derive(LabelSet)]` struct `D`, one field per key (`struct Tenant {{ tenant: String }}`); for a `#[derive(LabelEnum)]` enum write `ByLabel<{Self}, _>` instead, which pre-resolves every value and records by array index"
)]
pub trait DynamicLabels: LabelSet {}

#[diagnostic::do_not_recommend]
impl<D: LabelSet> DynamicLabels for D {}

impl<D: DynamicLabels, M: FamilyMember> FamilyMember for Dynamic<D, M> {
    const KIND: MetricKind = M::KIND;
    const AXIS: AxisShape = AxisShape::Dynamic(D::KEYS);

    fn build(spec: &SeriesSpec) -> Self {
        Dynamic {
            inner: SeriesMap::rendering(spec.clone(), spec.max_series, spec.idle_timeout, ()),
        }
    }

    fn encode_member<L: EncodeLabelSet>(
        &self,
        labels: &L,
        encoder: &mut MetricEncoder<'_>,
    ) -> Result<(), fmt::Error> {
        // The scrape is the sweep's clock: no record ever pays for expiry.
        self.inner.series.sweep();
        self.inner.series.for_each(|extra, child| match extra {
            Some(extra) => child.encode_member(
                &WithLabels {
                    base: labels,
                    extra,
                },
                encoder,
            ),
            None => encode_overflow(child, labels, encoder),
        })
    }

    const WRITES_TEXT: bool = M::WRITES_TEXT;
    const WRITES_PROTOBUF: bool = M::WRITES_PROTOBUF;

    fn write_text(
        &self,
        labels: &LabelStack<'_>,
        writer: &mut SeriesWriter<'_>,
    ) -> Result<(), fmt::Error> {
        self.inner.series.sweep();
        self.inner
            .series
            .for_each_rendered(|extra, child, created| {
                let labels = labels.created_at(created);
                match extra {
                    Some((_, rendered)) => {
                        let rendered = rendered.ok_or(fmt::Error)?;
                        child.write_text(&labels.with(Label::Rendered(rendered))?, writer)
                    }
                    None => child.write_text(&labels.with(OVERFLOW)?, writer),
                }
            })
    }
}
