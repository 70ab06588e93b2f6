//! [`Family`]: a metric's series by common label set.

use std::fmt;
use std::hash::Hash;

use prometheus_client::encoding::{EncodeLabelSet, EncodeMetric, MetricEncoder};
use prometheus_client::metrics::{MetricType, TypedMetric};

use crate::descriptor::MetricKind;
use crate::labels::NoLabels;
use crate::member::{FamilyMember, SeriesSpec};
use crate::render::once::{self, BucketLabels};
use crate::render::{GaugeHistogramPass, Label, LabelStack, SeriesWriter, TextFamily, TextFormat};
use crate::series::bounded::{encode_overflow, SeriesMap, OVERFLOW};

/// The series of one metric, one member `M` per common label set `L`.
///
/// This is the field type of a `#[derive(MetricHandles)]` struct. Looking up a label set is the
/// slow path (hash, lock, maybe allocate) and happens once; the returned `M` is a cheap clone
/// that records with atomics only. Past the field's `max_label_sets` label sets,
/// [`get_or_create`](Family::get_or_create) returns one shared overflow member (labelled
/// `otel_metric_overflow="true"`) rather than growing. Label sets come out in the order they
/// were first looked up.
///
/// Lookups follow one convention across [`Family`], [`ByPosition`](crate::ByPosition) and
/// [`Dynamic`](crate::Dynamic): `get` never creates a series, `get_or_create` does.
// The parameters' names are what the compiler shows for `Family<Gauge>`: "struct defined
// here, with 2 generic parameters: `Labels`, `Member`".
pub struct Family<Labels, Member> {
    /// The series, with each label set rendered for the text encoder, and the `le` labels of
    /// a histogram family's buckets.
    inner: SeriesMap<Labels, Member, BucketLabels>,
}

// The bounds are what the map and the encoder need, not `LabelSet`: a derived struct checks
// `LabelSet` once, at its `labels = ...`, so a label set that only derives prometheus-client's
// `EncodeLabelSet` is reported there, once, instead of at every generated call.
impl<L, M> Family<L, M>
where
    L: EncodeLabelSet + Clone + Hash + Eq + Send + Sync + fmt::Debug + 'static,
    M: FamilyMember,
{
    /// An unregistered family whose members are built from `spec`.
    pub(crate) fn new(spec: SeriesSpec) -> Self {
        // Every histogram of the family has the spec's bounds: their `le` labels are
        // rendered once here. Rendering them cannot fail; should it, the family's scrapes do.
        let buckets = if M::KIND.has_buckets() {
            once::bucket_labels(spec.buckets()).unwrap_or_default()
        } else {
            BucketLabels::default()
        };
        Family {
            inner: SeriesMap::rendering(spec.clone(), spec.max_label_sets, None, buckets),
        }
    }

    /// An unregistered family whose members are built from `spec`, holding at most
    /// `spec.max_series()` label sets, whose label sets not recorded into for
    /// `spec.idle_timeout()` leave the exposition (see `series::idle`): the families a
    /// recorder creates as it meets their names.
    #[cfg(feature = "metrics-facade")]
    pub(crate) fn expiring(spec: SeriesSpec) -> Self {
        let buckets = if M::KIND.has_buckets() {
            once::bucket_labels(spec.buckets()).unwrap_or_default()
        } else {
            BucketLabels::default()
        };
        Family {
            inner: SeriesMap::rendering(
                spec.clone(),
                spec.max_series(),
                spec.idle_timeout(),
                buckets,
            ),
        }
    }

    /// The member for `labels` (found, created on first sight, or the overflow series), and
    /// whether it is the overflow series.
    #[cfg(feature = "metrics-facade")]
    pub(crate) fn get_or_create_or_overflow(&self, labels: &L) -> (M, bool) {
        self.inner.resolve_or_overflow(labels)
    }

    /// Whether label sets left idle leave the exposition.
    #[cfg(feature = "metrics-facade")]
    pub(crate) fn expires_idle(&self) -> bool {
        self.inner.spec.idle_timeout().is_some()
    }

    /// How many dormant label sets gave their series up to a new label set so far: a handle
    /// looked up before one did may record into a series nobody exports.
    #[cfg(feature = "metrics-facade")]
    pub(crate) fn evictions(&self) -> u64 {
        self.inner.series.expiry_counts().1
    }

    /// The member for `labels`: found, created on first sight, or the overflow series.
    pub fn get_or_create(&self, labels: &L) -> M {
        self.inner.resolve(labels)
    }

    /// The member for `labels` if it exists; never creates one.
    pub fn get(&self, labels: &L) -> Option<M> {
        self.inner.series.get(labels)
    }

    /// Removes `labels`' series from the exposition; returns whether they existed. Handles
    /// resolved earlier keep working but are no longer exported.
    pub fn remove(&self, labels: &L) -> bool {
        self.inner.series.remove(labels)
    }

    /// Removes the overflow series from the exposition; returns whether it existed. The next
    /// lookup past the limit creates a fresh one.
    ///
    /// For the owner of the label sets who knows that every one routed there is gone: an
    /// overflow gauge would otherwise keep claiming a value nothing sets any more (counters and
    /// histograms are better kept, with their totals, as a scraper expects them to only grow).
    pub fn remove_overflow(&self) -> bool {
        self.inner.series.remove_overflow()
    }

    /// Creates `labels`' series at zero if the family has room (never the overflow series),
    /// exempt from idle expiry: what a set of run-time families does for a common label set
    /// declared present.
    pub(crate) fn pin(&self, labels: &L) {
        let _ = self.inner.pin(labels);
    }

    /// How many label sets have their own series (the overflow series not counted).
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether no label set has a series yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many `get_or_create` calls were routed to the overflow series.
    pub fn overflowed_lookups(&self) -> u64 {
        self.inner.overflowed_lookups()
    }
}

impl<L, M> Clone for Family<L, M> {
    fn clone(&self) -> Self {
        Family {
            inner: self.inner.clone(),
        }
    }
}

impl<L, M> fmt::Debug for Family<L, M>
where
    L: EncodeLabelSet + Clone + Hash + Eq + Send + Sync + fmt::Debug + 'static,
    M: FamilyMember,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Family")
            .field("kind", &M::KIND)
            .field("series", &self.len())
            .finish_non_exhaustive()
    }
}

impl<L, M> TextFamily for Family<L, M>
where
    L: EncodeLabelSet + Clone + Hash + Eq + Send + Sync + fmt::Debug + 'static,
    M: FamilyMember,
{
    fn bucket_labels(&self, format: TextFormat) -> &[Box<str>] {
        let buckets = &self.inner.about;
        match format {
            TextFormat::OpenMetrics => &buckets.openmetrics,
            TextFormat::Prometheus => &buckets.prometheus,
        }
    }

    fn write_samples(&self, writer: &mut SeriesWriter<'_>) -> Result<(), fmt::Error> {
        let passes = match M::KIND {
            MetricKind::GaugeHistogram => writer.gauge_histogram_passes(),
            _ => &[GaugeHistogramPass::All],
        };
        // The scrape is the sweep's clock (a family without an idle timeout has nothing to
        // sweep).
        self.inner.series.sweep();
        for pass in passes {
            writer.start_pass(*pass);
            self.inner
                .series
                .for_each_rendered(|series, member, created| match series {
                    Some((_, rendered)) => {
                        // A label set whose encoder failed fails the scrape, as it always did.
                        let labels = Label::Rendered(rendered.ok_or(fmt::Error)?);
                        member.write_text(&LabelStack::new(labels, created), writer)
                    }
                    None => member.write_text(&LabelStack::new(OVERFLOW, created), writer),
                })?;
        }
        Ok(())
    }

    #[cfg(feature = "protobuf")]
    fn writes_protobuf(&self) -> bool {
        M::WRITES_PROTOBUF
    }
}

impl<L, M> TypedMetric for Family<L, M>
where
    L: EncodeLabelSet + Clone + Hash + Eq + Send + Sync + fmt::Debug + 'static,
    M: FamilyMember,
{
    const TYPE: MetricType = M::KIND.metric_type();
}

impl<L, M> EncodeMetric for Family<L, M>
where
    L: EncodeLabelSet + Clone + Hash + Eq + Send + Sync + fmt::Debug + 'static,
    M: FamilyMember,
{
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), fmt::Error> {
        self.inner.series.for_each(|labels, member| match labels {
            Some(labels) => member.encode_member(labels, &mut encoder),
            None => encode_overflow(member, &NoLabels, &mut encoder),
        })
    }

    fn metric_type(&self) -> MetricType {
        <Self as TypedMetric>::TYPE
    }
}
