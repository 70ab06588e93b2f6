//! What one label set of a [`Family`](crate::Family) holds, and how it is built and encoded.

use std::fmt;
use std::sync::Arc;

use prometheus_client::encoding::{EncodeLabelSet, EncodeMetric, MetricEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;

use crate::descriptor::MetricKind;
use crate::histogram::Histogram;

/// Construction parameters of one family's series, fixed at registration.
#[derive(Clone, Debug)]
pub struct SeriesSpec {
    pub(crate) buckets: Arc<[f64]>,
    pub(crate) axis_key: &'static str,
    pub(crate) positions: usize,
    pub(crate) max_series: usize,
}

impl SeriesSpec {
    /// A spec for plain counters and gauges: no buckets, no axis, the default series limit.
    pub fn new() -> Self {
        SeriesSpec {
            buckets: Arc::from(Vec::new()),
            axis_key: "",
            positions: 0,
            max_series: crate::descriptor::DEFAULT_MAX_SERIES,
        }
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

    /// Sets how many positions a [`ByPosition`](crate::ByPosition) pre-resolves.
    pub fn with_positions(mut self, positions: usize) -> Self {
        self.positions = positions;
        self
    }

    /// Sets the limit on label sets per map before records go to the overflow series.
    pub fn with_max_series(mut self, max_series: usize) -> Self {
        self.max_series = max_series;
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

    /// The number of pre-resolved positions.
    pub fn positions(&self) -> usize {
        self.positions
    }

    /// The series limit.
    pub fn max_series(&self) -> usize {
        self.max_series
    }
}

impl Default for SeriesSpec {
    fn default() -> Self {
        Self::new()
    }
}

/// A value a [`Family`](crate::Family) stores per label set, and the handle `resolve` returns.
///
/// Implemented for prometheus-client's `Counter` and `Gauge` (every value type), this crate's
/// [`Histogram`], and the axis containers [`ByLabel`](crate::ByLabel),
/// [`ByPosition`](crate::ByPosition) and [`Dynamic`](crate::Dynamic). Cloning must be cheap and
/// yield a handle to the same series.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a metric family member",
    label = "not a family member",
    note = "use `Counter`, `Gauge`, `Histogram` (this crate's), or `ByLabel<E, _>`, `ByPosition<_>`, `Dynamic<D, _>` over one of them"
)]
pub trait FamilyMember: Clone + Send + Sync + fmt::Debug + 'static {
    /// The Prometheus type of every series in the member.
    const KIND: MetricKind;

    /// The label values of the member's enum axis: every variant's value for
    /// [`ByLabel`](crate::ByLabel), empty for everything else. Feeds the descriptor table.
    const AXIS_VALUES: &'static [&'static str] = &[];

    /// Creates the member for a new label set.
    fn build(spec: &SeriesSpec) -> Self;

    /// Encodes every series of the member, each carrying `labels` first.
    fn encode_member<L: EncodeLabelSet>(
        &self,
        labels: &L,
        encoder: &mut MetricEncoder<'_>,
    ) -> Result<(), fmt::Error>;
}

/// A single series: encodes itself under the given labels.
fn encode_leaf<M: EncodeMetric, L: EncodeLabelSet>(
    metric: &M,
    labels: &L,
    encoder: &mut MetricEncoder<'_>,
) -> Result<(), fmt::Error> {
    metric.encode(encoder.encode_family(labels)?)
}

/// prometheus-client's atomic metrics: one series, built with `Default`, any value type.
macro_rules! impl_family_member_for_atomic_metric {
    ($($metric:ident => $kind:ident),* $(,)?) => {$(
        impl<N, A> FamilyMember for $metric<N, A>
        where
            $metric<N, A>: EncodeMetric + Default + Clone + Send + Sync + fmt::Debug + 'static,
        {
            const KIND: MetricKind = MetricKind::$kind;

            fn build(_spec: &SeriesSpec) -> Self {
                Self::default()
            }

            fn encode_member<L: EncodeLabelSet>(
                &self,
                labels: &L,
                encoder: &mut MetricEncoder<'_>,
            ) -> Result<(), fmt::Error> {
                encode_leaf(self, labels, encoder)
            }
        }
    )*};
}

impl_family_member_for_atomic_metric!(Counter => Counter, Gauge => Gauge);

impl FamilyMember for Histogram {
    const KIND: MetricKind = MetricKind::Histogram;

    fn build(spec: &SeriesSpec) -> Self {
        Histogram::new(spec.buckets.iter().copied())
    }

    fn encode_member<L: EncodeLabelSet>(
        &self,
        labels: &L,
        encoder: &mut MetricEncoder<'_>,
    ) -> Result<(), fmt::Error> {
        encode_leaf(self, labels, encoder)
    }
}
