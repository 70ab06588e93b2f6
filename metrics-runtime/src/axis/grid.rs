//! [`ByLabels`]: several fixed label axes on one member, pre-resolved as a dense array over
//! their product (`method` x `status`, `operation` x `status`, an enum beside a position).
//!
//! Every combination exists, and is exported at 0, from the moment the label set is resolved;
//! recording computes a row-major index from the axes' dense indices and touches one element.
//! There is no hashing, no lock and no allocation unless a position lies beyond the
//! pre-resolved ones.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use prometheus_client::encoding::{
    EncodeLabelSet, EncodeLabelValue, LabelSetEncoder, MetricEncoder,
};

use crate::axis::PositionSeries;
use crate::descriptor::{LabelAxis, MetricKind};
use crate::labels::LabelEnum;
use crate::limits::MAX_GRID_AXES;
use crate::member::{AxisShape, FamilyMember, SeriesSpec};
use crate::render::{Label, LabelStack, SeriesWriter};
use crate::series::bounded::BoundedSeries;
use crate::series::bounded::{encode_overflow, OVERFLOW};

/// The position axis of a [`ByLabels`] grid: one series per position `0..N`, with `N` from
/// `#[metric(positions = N)]` (adjustable at registration). Recorded with a `usize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position;

/// One axis of a [`ByLabels`] grid: any [`LabelEnum`], or [`Position`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a fixed label axis",
    label = "not a label enum or `Position`",
    note = "each axis of `ByLabels<(A, B), _>` is a `#[derive(LabelEnum)]` enum or `metric_handles::axis::Position`; for values only known at run time use `Dynamic<Labels, _>`"
)]
pub trait GridAxis: 'static {
    /// What a record names on this axis: the enum itself, or a `usize` position.
    type Value: Copy;
    /// [`EveryCombination`] for an enum axis (each value is pre-resolved), [`SomeCombinations`]
    /// for a position axis (a position past the pre-resolved ones may have no series yet).
    type Lookup: GridLookup;
    /// Every label value of an enum axis, in declaration order; `None` for a position axis.
    const VALUES: Option<&'static [&'static str]>;
    /// The value's dense index on the axis.
    fn index(value: Self::Value) -> usize;
}

impl<E: LabelEnum> GridAxis for E {
    type Value = E;
    type Lookup = EveryCombination;
    const VALUES: Option<&'static [&'static str]> = Some(E::VALUES);

    #[inline]
    fn index(value: E) -> usize {
        value.index()
    }
}

impl GridAxis for Position {
    type Value = usize;
    type Lookup = SomeCombinations;
    const VALUES: Option<&'static [&'static str]> = None;

    #[inline]
    fn index(value: usize) -> usize {
        value
    }
}

/// The axes of a [`ByLabels`] grid: a tuple of two to four [`GridAxis`] types.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tuple of fixed label axes",
    label = "expected a tuple such as `(Method, Status)`",
    note = "`ByLabels` takes a tuple of two to four axes, each a `#[derive(LabelEnum)]` enum or `Position`; for one axis use `ByLabel<E, _>` or `ByPosition<_>`"
)]
pub trait GridAxes: 'static {
    /// What a record names: one value per axis, as a tuple (a key of the grid, also in code
    /// generic over the axes).
    type Values: Copy + GridKey<Self>;
    /// [`EveryCombination`] when every axis is an enum, else [`SomeCombinations`]: what
    /// [`ByLabels::get`] returns.
    type Lookup: GridLookup;
    /// Per axis, its label values (`None` for a position axis).
    const AXES: &'static [Option<&'static [&'static str]>];
    /// The dense index of every axis value; entries past `AXES.len()` are 0.
    fn indices(values: Self::Values) -> [usize; MAX_GRID_AXES];
}

macro_rules! impl_grid_axes {
    (@lookup $first:ident) => { $first::Lookup };
    (@lookup $first:ident $($rest:ident)+) => {
        <$first::Lookup as GridLookup>::And<impl_grid_axes!(@lookup $($rest)+)>
    };
    ($($axis:ident $value:ident),+) => {
        impl<$($axis: GridAxis),+> GridAxes for ($($axis,)+) {
            type Values = ($($axis::Value,)+);
            type Lookup = impl_grid_axes!(@lookup $($axis)+);
            const AXES: &'static [Option<&'static [&'static str]>] = &[$($axis::VALUES),+];

            #[inline]
            fn indices(($($value,)+): Self::Values) -> [usize; MAX_GRID_AXES] {
                let mut out = [0; MAX_GRID_AXES];
                let mut i = 0;
                $(
                    out[i] = $axis::index($value);
                    i += 1;
                )+
                let _ = i;
                out
            }
        }
    };
}

impl_grid_axes!(A a, B b);
impl_grid_axes!(A a, B b, C c);
impl_grid_axes!(A a, B b, C c, D d);

/// [`GridKey`] for the tuples of the arity of the grid, whatever their types: the types are
/// checked in the where-clause, and `do_not_recommend` reports a mismatch as the key's error
/// (the tuple is not a key of the grid) rather than one mismatch per value.
macro_rules! impl_grid_key {
    ($($axis:ident $value:ident),+) => {
        #[diagnostic::do_not_recommend]
        impl<$($axis, $value),+> GridKey<($($axis,)+)> for ($($value,)+)
        where
            $($axis: GridAxis<Value = $value>,)+
            $($value: Copy,)+
        {
            #[inline]
            fn into_values(self) -> Self {
                self
            }
        }
    };
}

impl_grid_key!(A VA, B VB);
impl_grid_key!(A VA, B VB, C VC);
impl_grid_key!(A VA, B VB, C VC, D VD);

/// What [`ByLabels::get`] and [`ByLabels::get_or_create`] take: one value per axis, in the
/// order of the axes (the grid's [`GridAxes::Values`]). A trait rather than that type itself
/// so that a key written in another order is one error that says so, rather than one type
/// mismatch per value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a key of the grid `ByLabels<{A}, _>`",
    label = "not one value per axis, in the order of `{A}`",
    note = "a grid's key is a tuple of one value per axis, in the order the axes are declared in `ByLabels<{A}, _>` (a `usize` for a `Position` axis): reorder the values to match"
)]
pub trait GridKey<A: GridAxes + ?Sized>: Copy {
    /// The key as the grid's values.
    fn into_values(self) -> A::Values;
}

/// How [`ByLabels::get`] finds a combination's series, from the grid's axes.
pub trait GridLookup: 'static {
    /// What `get` returns.
    type Found<'a, M: 'a>;

    /// The lookup of a grid with this axis and the axes of `Other`: [`SomeCombinations`] if
    /// either is.
    type And<Other: GridLookup>: GridLookup;

    /// The series of one combination of `grid`, never created.
    fn get<A: GridAxes, M: FamilyMember>(
        grid: &ByLabels<A, M>,
        values: A::Values,
    ) -> Self::Found<'_, M>;
}

/// The lookup of a grid whose axes are all enums: every combination is pre-resolved, so `get`
/// returns the series itself, like [`ByLabel::get`](crate::ByLabel::get).
#[derive(Debug)]
pub enum EveryCombination {}

/// The lookup of a grid with a [`Position`] axis: a position past the pre-resolved ones has a
/// series only once [`ByLabels::get_or_create`] created it, so `get` returns an `Option`.
#[derive(Debug)]
pub enum SomeCombinations {}

impl GridLookup for EveryCombination {
    type Found<'a, M: 'a> = &'a M;
    type And<Other: GridLookup> = Other;

    #[inline]
    fn get<A: GridAxes, M: FamilyMember>(grid: &ByLabels<A, M>, values: A::Values) -> &M {
        // Without a position axis the grid pre-resolves the whole product of its enums (no
        // series limit lowers it), and a derived `LabelEnum::index` is below its enum's
        // length, so the cell exists, as `ByLabel::get`'s does.
        let indices = A::indices(values);
        let mut flat = 0usize;
        for (i, axis) in A::AXES.iter().enumerate() {
            flat = flat * axis_len(*axis, 0) + indices[i];
        }
        &grid.cells[flat]
    }
}

impl GridLookup for SomeCombinations {
    type Found<'a, M: 'a> = Option<PositionSeries<'a, M>>;
    type And<Other: GridLookup> = SomeCombinations;

    fn get<A: GridAxes, M: FamilyMember>(
        grid: &ByLabels<A, M>,
        values: A::Values,
    ) -> Option<PositionSeries<'_, M>> {
        let indices = A::indices(values);
        match grid.flat_index(&indices) {
            Some(series) => Some(PositionSeries::Cached(series)),
            None => grid
                .inner
                .beyond
                .get(&indices)
                .map(PositionSeries::LookedUp),
        }
    }
}

/// One series per combination of the axes `A` (a tuple such as `(Method, Status)`), resolved up
/// front into a dense row-major array: `get_or_create((Method::Get, Status::Ok))` is index
/// arithmetic and one array access.
///
/// Declared as `Family<L, ByLabels<(Method, Status), Counter>>` with
/// `#[metric(label = ["method", "status"])]`; a [`Position`] axis takes its count from
/// `positions = N`. Series come out with the first axis varying slowest, enum values in
/// declaration order and positions numerically. A position beyond the pre-resolved ones is
/// looked up in a map bounded by the field's `max_series` (never a panic, never a lost record).
pub struct ByLabels<A, M> {
    cells: Arc<[M]>,
    positions: usize,
    inner: Arc<GridInner<M>>,
    _axes: PhantomData<fn(A)>,
}

struct GridInner<M> {
    keys: [&'static str; MAX_GRID_AXES],
    spec: SeriesSpec,
    beyond: BoundedSeries<[usize; MAX_GRID_AXES], M>,
}

impl<A: GridAxes, M: FamilyMember> ByLabels<A, M> {
    /// The series of one combination: no hashing, no lock, an index computation. A position
    /// past the pre-resolved ones is looked up in a bounded map instead, which creates its
    /// series on first sight (or returns the overflow series once the map is full). Never a
    /// panic, never a lost record.
    #[inline]
    pub fn get_or_create(&self, values: impl GridKey<A>) -> PositionSeries<'_, M> {
        let indices = A::indices(values.into_values());
        match self.flat_index(&indices) {
            Some(series) => PositionSeries::Cached(series),
            None => PositionSeries::LookedUp(self.get_or_create_beyond(indices)),
        }
    }

    /// The series of one combination; never creates one. Without a [`Position`] axis every
    /// combination exists, and this is the series itself (`&M`, an index computation, like
    /// [`ByLabel::get`](crate::ByLabel::get)). With one it is an
    /// `Option<PositionSeries<'_, M>>`: always `Some` for a pre-resolved combination, and past
    /// the pre-resolved positions only once [`get_or_create`](ByLabels::get_or_create) created
    /// it.
    #[inline]
    pub fn get(&self, values: impl GridKey<A>) -> <A::Lookup as GridLookup>::Found<'_, M> {
        A::Lookup::get(self, values.into_values())
    }

    #[inline]
    fn flat_index(&self, indices: &[usize; MAX_GRID_AXES]) -> Option<&M> {
        let mut flat = 0usize;
        let mut i = 0;
        while i < A::AXES.len() {
            let dim = axis_len(A::AXES[i], self.positions);
            if indices[i] >= dim {
                return None;
            }
            flat = flat * dim + indices[i];
            i += 1;
        }
        self.cells.get(flat)
    }

    // Never inlined: kept out of `get_or_create`, the record path stays small enough to be
    // inlined at the caller's record site (with this inlined, it was not, and a grid record
    // paid a call).
    #[cold]
    #[inline(never)]
    fn get_or_create_beyond(&self, indices: [usize; MAX_GRID_AXES]) -> M {
        let inner = &*self.inner;
        inner.beyond.resolve(&indices, || M::build(&inner.spec))
    }

    /// How many combinations are pre-resolved (the product of the axes' lengths).
    pub fn preresolved(&self) -> usize {
        self.cells.len()
    }

    /// The label keys, one per axis.
    pub fn keys(&self) -> &[&'static str] {
        &self.inner.keys[..A::AXES.len()]
    }

    /// How many positions a position axis pre-resolves.
    pub fn positions(&self) -> usize {
        self.positions
    }
}

/// How many positions each position axis of a grid over `axes` pre-resolves when `requested`
/// are asked for: the largest `n <= requested` for which the grid's product, with every
/// position axis `n` long, is at most `max_series` (0 without a position axis). A grid has one
/// position count, so its position axes are lowered together and stay equal: with `k` of
/// them beside enum axes of product `E`, `n` is the largest count with `E * n^k <= max_series`
/// (four position axes asked for 256 under a limit of 2048 pre-resolve 6 each: 1,296 series).
fn fitting_positions(
    axes: &[Option<&'static [&'static str]>],
    requested: usize,
    max_series: usize,
) -> usize {
    let position_axes = axes.iter().filter(|axis| axis.is_none()).count() as u32;
    if position_axes == 0 {
        return 0;
    }
    let enum_product = axes.iter().flatten().fold(1usize, |product, values| {
        product.saturating_mul(values.len())
    });
    // Series each combination of the enum axes may spend on positions.
    let budget = max_series / enum_product.max(1);
    let fits = |n: usize| {
        n.checked_pow(position_axes)
            .is_some_and(|cells| cells <= budget)
    };
    // Binary search: `fits` holds for `low` (0 always does) and fails past `high`.
    let (mut low, mut high) = (0, requested.min(budget));
    while low < high {
        let mid = low + (high - low).div_ceil(2);
        if fits(mid) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    low
}

fn axis_len(axis: Option<&'static [&'static str]>, positions: usize) -> usize {
    match axis {
        Some(values) => values.len(),
        None => positions,
    }
}

impl<A, M> Clone for ByLabels<A, M> {
    fn clone(&self) -> Self {
        ByLabels {
            cells: Arc::clone(&self.cells),
            positions: self.positions,
            inner: Arc::clone(&self.inner),
            _axes: PhantomData,
        }
    }
}

impl<A: GridAxes, M: fmt::Debug> fmt::Debug for ByLabels<A, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ByLabels")
            .field("keys", &&self.inner.keys[..A::AXES.len()])
            .field("cells", &self.cells)
            .finish_non_exhaustive()
    }
}

impl<A: GridAxes, M: FamilyMember> FamilyMember for ByLabels<A, M> {
    const KIND: MetricKind = M::KIND;
    const AXIS: AxisShape = AxisShape::Grid(A::AXES);

    fn build(spec: &SeriesSpec) -> Self {
        let mut keys = [""; MAX_GRID_AXES];
        for (i, key) in keys.iter_mut().enumerate().take(A::AXES.len()) {
            *key = match spec.grid().get(i) {
                Some(LabelAxis::Enum { key, .. } | LabelAxis::Position { key, .. }) => key,
                _ => "",
            };
        }
        // The product stays within the series limit: a position count raised at registration
        // is lowered until it fits (the derive checks the declared count at compile time).
        let positions = fitting_positions(A::AXES, spec.positions(), spec.max_series());
        let product = AxisShape::Grid(A::AXES).preresolved(positions);
        ByLabels {
            cells: (0..product).map(|_| M::build(spec)).collect(),
            positions,
            inner: Arc::new(GridInner {
                keys,
                spec: spec.clone(),
                beyond: BoundedSeries::new(spec.max_series().saturating_sub(product).max(1)),
            }),
            _axes: PhantomData,
        }
    }

    fn encode_member<L: EncodeLabelSet>(
        &self,
        labels: &L,
        encoder: &mut MetricEncoder<'_>,
    ) -> Result<(), fmt::Error> {
        let axes = A::AXES;
        let mut indices = [0usize; MAX_GRID_AXES];
        for cell in self.cells.iter() {
            cell.encode_member(&self.labels(labels, &indices), encoder)?;
            // Odometer: the last axis varies fastest.
            for i in (0..axes.len()).rev() {
                indices[i] += 1;
                if indices[i] < axis_len(axes[i], self.positions) {
                    break;
                }
                indices[i] = 0;
            }
        }
        let (beyond, overflow) = self.inner.beyond.sorted();
        for (key, child) in &beyond {
            child.encode_member(&self.labels(labels, key), encoder)?;
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
        let axes = A::AXES;
        let mut indices = [0usize; MAX_GRID_AXES];
        for cell in self.cells.iter() {
            cell.write_text(&self.text_labels(labels, &indices)?, writer)?;
            // Odometer: the last axis varies fastest.
            for i in (0..axes.len()).rev() {
                indices[i] += 1;
                if indices[i] < axis_len(axes[i], self.positions) {
                    break;
                }
                indices[i] = 0;
            }
        }
        let mut order = writer.take_order();
        let written = self
            .inner
            .beyond
            .for_each_sorted(&mut order, |key, child, created| {
                let labels = labels.created_at(created);
                match key {
                    Some(key) => child.write_text(&self.text_labels(&labels, key)?, writer),
                    None => child.write_text(&labels.with(OVERFLOW)?, writer),
                }
            });
        writer.put_order(order);
        written
    }
}

impl<A: GridAxes, M> ByLabels<A, M> {
    fn labels<'a, L: EncodeLabelSet>(
        &'a self,
        base: &'a L,
        indices: &[usize; MAX_GRID_AXES],
    ) -> GridLabels<'a, L> {
        let mut values = [GridValue::Position(0); MAX_GRID_AXES];
        for (i, axis) in A::AXES.iter().enumerate() {
            values[i] = match axis {
                Some(names) => GridValue::Name(names.get(indices[i]).copied().unwrap_or("")),
                None => GridValue::Position(indices[i]),
            };
        }
        GridLabels {
            base,
            keys: &self.inner.keys[..A::AXES.len()],
            values,
        }
    }
}

impl<A: GridAxes, M> ByLabels<A, M> {
    /// The labels of the cell at `indices`, for the text encoder.
    fn text_labels<'a>(
        &'a self,
        base: &LabelStack<'a>,
        indices: &[usize; MAX_GRID_AXES],
    ) -> Result<LabelStack<'a>, fmt::Error> {
        let mut labels = *base;
        for (i, axis) in A::AXES.iter().enumerate() {
            let key = self.inner.keys[i];
            labels = labels.with(match axis {
                Some(names) => Label::Pair(key, names.get(indices[i]).copied().unwrap_or("")),
                None => Label::Position(key, indices[i]),
            })?;
        }
        Ok(labels)
    }
}

#[derive(Clone, Copy)]
enum GridValue {
    Name(&'static str),
    Position(usize),
}

/// The common labels followed by one label per grid axis.
struct GridLabels<'a, B> {
    base: &'a B,
    keys: &'a [&'static str],
    values: [GridValue; MAX_GRID_AXES],
}

impl<B: EncodeLabelSet> EncodeLabelSet for GridLabels<'_, B> {
    fn encode(&self, encoder: &mut LabelSetEncoder) -> Result<(), fmt::Error> {
        self.base.encode(encoder)?;
        for (key, value) in self.keys.iter().zip(self.values.iter()) {
            let mut label = encoder.encode_label();
            let mut key_encoder = label.encode_label_key()?;
            fmt::Write::write_str(&mut key_encoder, key)?;
            let mut value_encoder = key_encoder.encode_label_value()?;
            match value {
                GridValue::Name(name) => name.encode(&mut value_encoder)?,
                GridValue::Position(position) => position.encode(&mut value_encoder)?,
            }
            value_encoder.finish()?;
        }
        Ok(())
    }
}
