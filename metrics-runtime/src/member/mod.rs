//! What one label set of a [`Family`](crate::Family) holds, and how it is built and encoded.

pub(crate) mod activity;

use std::fmt;
use std::sync::Arc;

use prometheus_client::encoding::EncodeCounterValue;
use prometheus_client::encoding::{EncodeLabelSet, EncodeMetric, MetricEncoder};
use prometheus_client::metrics::counter::{Atomic, Counter};
use prometheus_client::metrics::gauge::Gauge;

use crate::counter::CounterValue;
use crate::descriptor::{LabelAxis, MetricKind};
use crate::histogram::GaugeHistogram;
use crate::histogram::Histogram;
use crate::info::Info;
use crate::labels::LabelEnum;
use crate::render::number::TextNumber;
use crate::render::{LabelStack, SeriesWriter};
use crate::state_set::StateSet;
use activity::ActivityValue;

/// Construction parameters of one family's series, fixed at registration.
#[derive(Clone, Debug)]
pub struct SeriesSpec {
    pub(crate) buckets: Arc<[f64]>,
    pub(crate) native: Option<crate::histogram::NativeConfig>,
    pub(crate) axis_key: &'static str,
    pub(crate) grid: &'static [LabelAxis],
    pub(crate) positions: usize,
    pub(crate) max_series: usize,
    pub(crate) max_label_sets: usize,
    pub(crate) family_name: Arc<str>,
    pub(crate) idle_timeout: Option<std::time::Duration>,
}

impl SeriesSpec {
    /// A spec for plain counters and gauges: no buckets, no axis, the default series limit.
    pub fn new() -> Self {
        SeriesSpec {
            buckets: Arc::from(Vec::new()),
            native: None,
            axis_key: "",
            grid: &[],
            positions: 0,
            max_series: crate::limits::DEFAULT_MAX_SERIES,
            max_label_sets: crate::limits::DEFAULT_MAX_LABEL_SETS,
            family_name: Arc::from(""),
            idle_timeout: None,
        }
    }

    /// Sets the family's name as exposed (prefix and name): a [`StateSet`]'s states carry it
    /// as their label key when prometheus-client's encoders write them.
    pub fn with_family_name(mut self, name: &str) -> Self {
        self.family_name = Arc::from(name);
        self
    }

    /// Sets how long a series of a [`Dynamic`](crate::Dynamic) axis may go without a record
    /// before it leaves the exposition (`None`, the default: never). See
    /// [`Dynamic`](crate::Dynamic#idle-series-expiry).
    pub fn with_idle_timeout(mut self, idle_timeout: Option<std::time::Duration>) -> Self {
        self.idle_timeout = idle_timeout;
        self
    }

    /// The idle timeout of a [`Dynamic`](crate::Dynamic) axis's series, if they expire.
    pub fn idle_timeout(&self) -> Option<std::time::Duration> {
        self.idle_timeout
    }

    /// Gives histograms native buckets laid out by `native` (beside the bucket bounds, if any).
    pub fn with_native(mut self, native: Option<crate::histogram::NativeConfig>) -> Self {
        self.native = native;
        self
    }

    /// Sets the histogram bucket bounds.
    pub fn with_buckets(mut self, bounds: impl Into<Arc<[f64]>>) -> Self {
        self.buckets = bounds.into();
        self
    }

    /// Sets the label key of an enum or position axis.
    pub fn with_axis_key(mut self, key: &'static str) -> Self {
        self.axis_key = key;
        self
    }

    /// Sets the axes of a [`ByLabels`](crate::axis::ByLabels) grid: one [`LabelAxis::Enum`] or
    /// [`LabelAxis::Position`] per component, in order (their keys label the series).
    pub fn with_grid(mut self, axes: &'static [LabelAxis]) -> Self {
        self.grid = axes;
        self
    }

    /// Sets how many positions a [`ByPosition`](crate::ByPosition) (or the position axis of a
    /// [`ByLabels`](crate::axis::ByLabels) grid) pre-resolves.
    pub fn with_positions(mut self, positions: usize) -> Self {
        self.positions = positions;
        self
    }

    /// Sets the limit on the series a member creates at run time per common label set (a
    /// [`Dynamic`](crate::Dynamic) axis's label sets, a position axis's positions beyond the
    /// pre-resolved ones) before records go to the member's overflow series.
    pub fn with_max_series(mut self, max_series: usize) -> Self {
        self.max_series = max_series;
        self
    }

    /// Sets the limit on common label sets of a [`Family`](crate::Family) before `resolve`
    /// returns the family's overflow series.
    pub fn with_max_label_sets(mut self, max_label_sets: usize) -> Self {
        self.max_label_sets = max_label_sets;
        self
    }

    /// The histogram bucket bounds.
    pub fn buckets(&self) -> &[f64] {
        &self.buckets
    }

    /// The axis label key.
    pub fn axis_key(&self) -> &'static str {
        self.axis_key
    }

    /// The axes of a grid member.
    pub fn grid(&self) -> &'static [LabelAxis] {
        self.grid
    }

    /// The number of pre-resolved positions.
    pub fn positions(&self) -> usize {
        self.positions
    }

    /// The series limit per common label set.
    pub fn max_series(&self) -> usize {
        self.max_series
    }

    /// The limit on common label sets.
    pub fn max_label_sets(&self) -> usize {
        self.max_label_sets
    }

    /// The family's name as exposed, empty when the family was not registered by name.
    pub fn family_name(&self) -> &str {
        &self.family_name
    }
}

impl Default for SeriesSpec {
    fn default() -> Self {
        Self::new()
    }
}

/// A value a [`Family`](crate::Family) stores per label set, and the handle `resolve` returns.
///
/// Implemented for prometheus-client's `Counter` and `Gauge` (every value type, under any
/// path or type alias), this crate's [`Histogram`], [`Info`], [`StateSet`] and
/// [`GaugeHistogram`], and the axis
/// containers
/// [`ByLabel`](crate::ByLabel), [`ByLabels`](crate::axis::ByLabels),
/// [`ByPosition`](crate::ByPosition) and [`Dynamic`](crate::Dynamic). Cloning must be cheap and
/// yield a handle to the same series.
///
/// The derive reads [`FamilyMember::KIND`] and [`FamilyMember::AXIS`], never the spelling of
/// the type, so an alias such as `type U64Counter = Counter<u64, AtomicU64>` or a member type of
/// your own works like the built-in ones. A member of your own is one or more series that
/// encode under the labels they are given:
///
/// ```
/// use std::fmt;
/// use metric_handles::prometheus_client::encoding::{EncodeLabelSet, EncodeMetric, MetricEncoder};
/// use metric_handles::Counter;
/// use metric_handles::member::{AxisShape, FamilyMember, SeriesSpec};
/// use metric_handles::descriptor::MetricKind;
///
/// /// A counter that also remembers the largest single increment.
/// #[derive(Clone, Debug, Default)]
/// pub struct PeakCounter {
///     total: Counter,
///     peak: std::sync::Arc<std::sync::atomic::AtomicU64>,
/// }
///
/// impl PeakCounter {
///     pub fn inc_by(&self, v: u64) {
///         self.total.inc_by(v);
///         self.peak.fetch_max(v, std::sync::atomic::Ordering::Relaxed);
///     }
/// }
///
/// impl FamilyMember for PeakCounter {
///     const KIND: MetricKind = MetricKind::Counter;
///     const AXIS: AxisShape = AxisShape::None;
///     fn build(_spec: &SeriesSpec) -> Self {
///         Self::default()
///     }
///     fn encode_member<L: EncodeLabelSet>(
///         &self,
///         labels: &L,
///         encoder: &mut MetricEncoder<'_>,
///     ) -> Result<(), fmt::Error> {
///         self.total.encode(encoder.encode_family(labels)?)
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a metric family member",
    label = "not a family member",
    note = "use `Counter`, `Gauge`, `Histogram` (this crate's), `Info`, `StateSet<E>`, `GaugeHistogram`, or `ByLabel<E, _>`, `ByLabels<(E1, E2), _>`, `ByPosition<_>`, `Dynamic<D, _>` over one of them, or implement `FamilyMember` for your own type"
)]
pub trait FamilyMember: Clone + Send + Sync + fmt::Debug + 'static {
    /// The Prometheus type of every series in the member.
    const KIND: MetricKind;

    /// The label axis the member adds to the common labels. The derive checks the field's
    /// `label = ...` and `positions = ...` against it, and builds the descriptor from it.
    const AXIS: AxisShape;

    /// Creates the member for a new label set.
    fn build(spec: &SeriesSpec) -> Self;

    /// Encodes every series of the member, each carrying `labels` first.
    fn encode_member<L: EncodeLabelSet>(
        &self,
        labels: &L,
        encoder: &mut MetricEncoder<'_>,
    ) -> Result<(), fmt::Error>;

    /// A fingerprint of the member's values that changes whenever anything is recorded into
    /// it (a counter's value, a histogram's count), read at scrape time by the families that
    /// expire idle series; `None`, the default, when the member cannot tell, and then it never
    /// expires. A gauge set to the value it already holds does not change it.
    #[doc(hidden)]
    fn activity(&self) -> Option<u64> {
        None
    }

    /// Whether the member writes its samples with [`write_text`](Self::write_text), this
    /// crate's text encoder; a family of members that do not is encoded by prometheus-client's
    /// encoders through [`encode_member`](Self::encode_member), as before.
    #[doc(hidden)]
    const WRITES_TEXT: bool = false;

    /// Whether [`write_text`](Self::write_text) also writes the member's protobuf `Metric`s
    /// (through the same [`SeriesWriter`] calls): true for the counter, gauge and histogram
    /// leaves and the axes over them. A family of members that do not is encoded by
    /// prometheus-client's protobuf encoder.
    #[doc(hidden)]
    const WRITES_PROTOBUF: bool = false;

    /// Writes every series of the member, each carrying `labels` first, in the format of
    /// `writer`. Called only when [`WRITES_TEXT`](Self::WRITES_TEXT) is `true`.
    #[doc(hidden)]
    fn write_text(
        &self,
        _labels: &LabelStack<'_>,
        _writer: &mut SeriesWriter<'_>,
    ) -> Result<(), fmt::Error> {
        Err(fmt::Error)
    }
}

/// A single series: encodes itself under the given labels.
pub(crate) fn encode_leaf<M: EncodeMetric, L: EncodeLabelSet>(
    metric: &M,
    labels: &L,
    encoder: &mut MetricEncoder<'_>,
) -> Result<(), fmt::Error> {
    metric.encode(encoder.encode_family(labels)?)
}

/// The items of a [`FamilyMember`] impl for a member that is one series: its kind, no axis,
/// built by `$build` from the spec, encoded through [`encode_leaf`] and written by `$write`.
/// Every single-series member (prometheus-client's counter and gauge, this crate's counter,
/// histogram and info, the `metrics` facade's gauge) uses it, so they all encode by the same
/// code. Its paths are absolute: it is used outside this module too.
macro_rules! leaf_member_items {
    (
        $kind:ident,
        |$spec:pat_param| $build:expr,
        |$this:ident, $labels:ident, $writer:ident| $write:expr,
        |$that:ident| $activity:expr
    ) => {
        const KIND: $crate::descriptor::MetricKind = $crate::descriptor::MetricKind::$kind;
        const AXIS: $crate::member::AxisShape = $crate::member::AxisShape::None;
        const WRITES_TEXT: bool = true;
        // The protobuf writer knows every leaf kind of this crate; a member of another kind
        // (a user's `FamilyMember`) falls back to prometheus-client's protobuf encoder.
        const WRITES_PROTOBUF: bool = true;

        fn activity(&self) -> ::std::option::Option<u64> {
            let $that = self;
            $activity
        }

        fn write_text(
            &self,
            $labels: &$crate::render::LabelStack<'_>,
            $writer: &mut $crate::render::SeriesWriter<'_>,
        ) -> ::std::result::Result<(), ::std::fmt::Error> {
            let $this = self;
            $write
        }

        fn build($spec: &$crate::member::SeriesSpec) -> Self {
            $build
        }

        fn encode_member<L: ::prometheus_client::encoding::EncodeLabelSet>(
            &self,
            labels: &L,
            encoder: &mut ::prometheus_client::encoding::MetricEncoder<'_>,
        ) -> ::std::result::Result<(), ::std::fmt::Error> {
            $crate::member::encode_leaf(self, labels, encoder)
        }
    };
}
// For the `metrics` facade's gauge.
#[cfg(feature = "metrics-facade")]
pub(crate) use leaf_member_items;

/// prometheus-client's atomic metrics: one series, built with `Default`, any of its value
/// types (`u64`, `i64`, `u32`, `i32`, `f64`, `f32`).
macro_rules! impl_family_member_for_atomic_metric {
    ($($metric:ident => $kind:ident, $write:ident, $atomic:path),* $(,)?) => {$(
        impl<N, A> FamilyMember for $metric<N, A>
        where
            $metric<N, A>: EncodeMetric + Default + Clone + Send + Sync + fmt::Debug + 'static,
            N: TextNumber + ActivityValue,
            A: $atomic,
        {
            leaf_member_items!(
                $kind,
                |_spec| Self::default(),
                |this, labels, writer| {
                    writer.$write(labels, this.get());
                    Ok(())
                },
                |this| Some(this.get().activity_bits())
            );
        }
    )*};
}

impl_family_member_for_atomic_metric!(
    Counter => Counter, counter, Atomic<N>,
    Gauge => Gauge, gauge, prometheus_client::metrics::gauge::Atomic<N>,
);

/// The label axis a [`FamilyMember`] adds on top of the common labels, as its type declares it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AxisShape {
    /// One series per label set (`Counter`, `Gauge`, `Histogram`).
    None,
    /// One series per value of an enum, in declaration order ([`ByLabel`](crate::ByLabel)).
    Enum(&'static [&'static str]),
    /// One series per position ([`ByPosition`](crate::ByPosition)).
    Position,
    /// One series per combination of several fixed axes ([`ByLabels`](crate::axis::ByLabels)): per
    /// axis, the enum's values, or `None` for a position axis.
    Grid(&'static [Option<&'static [&'static str]>]),
    /// Labels known at record time: the keys of the dynamic label set
    /// ([`Dynamic`](crate::Dynamic)).
    Dynamic(&'static [&'static str]),
}

impl AxisShape {
    /// How many label keys `#[metric(label = ...)]` must name for this axis.
    pub const fn label_keys(self) -> usize {
        match self {
            AxisShape::None | AxisShape::Dynamic(_) => 0,
            AxisShape::Enum(_) | AxisShape::Position => 1,
            AxisShape::Grid(axes) => axes.len(),
        }
    }

    /// Whether one of the axes is a position axis (then `positions = N` applies).
    pub const fn has_position(self) -> bool {
        match self {
            AxisShape::Position => true,
            AxisShape::Grid(axes) => {
                let mut i = 0;
                while i < axes.len() {
                    if axes[i].is_none() {
                        return true;
                    }
                    i += 1;
                }
                false
            }
            _ => false,
        }
    }

    /// How many series one label set pre-resolves with `positions` positions: 1 without an
    /// axis, the number of values, or the product over a grid's axes (saturating). A
    /// `Dynamic` axis pre-resolves none.
    pub const fn preresolved(self, positions: usize) -> usize {
        match self {
            AxisShape::None => 1,
            AxisShape::Enum(values) => values.len(),
            AxisShape::Position => positions,
            AxisShape::Dynamic(_) => 0,
            AxisShape::Grid(axes) => {
                let mut product: usize = 1;
                let mut i = 0;
                while i < axes.len() {
                    let n = match axes[i] {
                        Some(values) => values.len(),
                        None => positions,
                    };
                    product = product.saturating_mul(n);
                    i += 1;
                }
                product
            }
        }
    }
}

impl FamilyMember for Histogram {
    leaf_member_items!(
        Histogram,
        |spec| Histogram::with_native(spec.buckets.iter().copied(), spec.native),
        |this, labels, writer| writer.histogram(labels, this),
        // Every observation adds one to a bucket: the count changes with each. Read as a
        // scrape reads it (records never wait for it).
        |this| {
            let mut counts = Vec::new();
            this.read_into(&mut counts);
            Some(counts.iter().fold(0u64, |count, &n| count.wrapping_add(n)))
        }
    );
}

impl<N, A> FamilyMember for crate::Counter<N, A>
where
    N: CounterValue<A>
        + EncodeCounterValue
        + TextNumber
        + ActivityValue
        + fmt::Debug
        + Send
        + Sync
        + 'static,
    A: Atomic<N> + Default + fmt::Debug + Send + Sync + 'static,
{
    leaf_member_items!(
        Counter,
        |_spec| Self::default(),
        |this, labels, writer| {
            writer.counter_with_exemplar(labels, this.get(), |buffer| this.exemplar(buffer));
            Ok(())
        },
        |this| Some(this.get().activity_bits())
    );
}

impl FamilyMember for Info {
    leaf_member_items!(
        Info,
        |_spec| Info,
        |_this, labels, writer| {
            writer.info(labels);
            Ok(())
        },
        // A constant: nothing to tell a record by, so an info never expires.
        |_this| None
    );
}

impl<E: LabelEnum> FamilyMember for StateSet<E> {
    const KIND: MetricKind = MetricKind::StateSet;
    const AXIS: AxisShape = AxisShape::None;
    const WRITES_TEXT: bool = true;
    const WRITES_PROTOBUF: bool = true;

    fn build(spec: &SeriesSpec) -> Self {
        StateSet::with_key(Arc::clone(&spec.family_name))
    }

    /// One gauge sample per state, the state labelled last (prometheus-client's encoders
    /// take one label set per sample, so the states cannot go through `encode_family`).
    fn encode_member<L: EncodeLabelSet>(
        &self,
        labels: &L,
        encoder: &mut MetricEncoder<'_>,
    ) -> Result<(), fmt::Error> {
        self.encode_states(labels, encoder)
    }

    fn write_text(
        &self,
        labels: &LabelStack<'_>,
        writer: &mut SeriesWriter<'_>,
    ) -> Result<(), fmt::Error> {
        writer.state_set(labels, E::VALUES, self.current_index());
        Ok(())
    }
}

impl FamilyMember for GaugeHistogram {
    leaf_member_items!(
        GaugeHistogram,
        |spec| GaugeHistogram::with_bounds(Arc::clone(&spec.buckets)),
        |this, labels, writer| writer.gauge_histogram(labels, this),
        // Adds and removes can cancel out between two scrapes: it cannot tell, and never
        // expires.
        |_this| None
    );
}
