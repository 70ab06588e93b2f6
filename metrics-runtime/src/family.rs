//! [`Family`]: a metric's series by common label set, registered from a descriptor.

use std::fmt;
use std::hash::Hash;
use std::sync::Arc;

use prometheus_client::encoding::{EncodeLabelSet, EncodeMetric, MetricEncoder};
use prometheus_client::metrics::{MetricType, TypedMetric};
use prometheus_client::registry::{Registry, Unit};

use crate::bounded::{BoundedSeries, OVERFLOW_LABEL};
use crate::descriptor::{LabelAxis, MetricDescriptor, MetricKind, MAX_PRERESOLVED_POSITIONS};
use crate::member::{FamilyMember, SeriesSpec};
use crate::options::RegisterOptions;
use crate::sanitize::help_line;

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
pub struct Family<L, M> {
    inner: Arc<FamilyInner<L, M>>,
}

struct FamilyInner<L, M> {
    spec: SeriesSpec,
    series: BoundedSeries<L, M>,
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
        Family {
            inner: Arc::new(FamilyInner {
                series: BoundedSeries::new(spec.max_label_sets),
                spec,
            }),
        }
    }

    /// The member for `labels`: found, created on first sight, or the overflow series.
    pub fn get_or_create(&self, labels: &L) -> M {
        let inner = &*self.inner;
        inner.series.resolve(labels, || M::build(&inner.spec))
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

    /// Removes the overflow series from the exposition (its owner knows every label set
    /// routed there is gone); returns whether it existed. The next lookup past the limit
    /// creates a fresh one.
    #[cfg_attr(not(feature = "vllm"), allow(dead_code))]
    pub(crate) fn remove_overflow(&self) -> bool {
        self.inner.series.remove_overflow()
    }

    /// How many label sets have their own series (the overflow series not counted).
    pub fn len(&self) -> usize {
        self.inner.series.len()
    }

    /// Whether no label set has a series yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many `get_or_create` calls were routed to the overflow series.
    pub fn overflowed_lookups(&self) -> u64 {
        self.inner.series.overflowed_lookups()
    }
}

/// Creates the family `descriptor` describes and registers it (and any alias `options`
/// switches on) in `registry`. Generated `register_with` calls this once per field.
pub fn register_family<L, M>(
    registry: &mut Registry,
    descriptor: &MetricDescriptor,
    options: &RegisterOptions,
) -> Family<L, M>
where
    L: EncodeLabelSet + Clone + Hash + Eq + Send + Sync + fmt::Debug + 'static,
    M: FamilyMember,
{
    let declared_positions = match descriptor.axis {
        Some(LabelAxis::Position { count, .. }) => count,
        _ => 0,
    };
    let (axis_key, grid): (&'static str, &'static [LabelAxis]) = match descriptor.axis {
        Some(LabelAxis::Enum { key, .. }) | Some(LabelAxis::Position { key, .. }) => (key, &[]),
        Some(LabelAxis::Grid { axes }) => ("", axes),
        _ => ("", &[]),
    };
    let declared_positions = match descriptor.axis {
        Some(LabelAxis::Grid { axes }) => axes
            .iter()
            .find_map(|axis| match axis {
                LabelAxis::Position { count, .. } => Some(*count),
                _ => None,
            })
            .unwrap_or(0),
        _ => declared_positions,
    };
    let spec = SeriesSpec::new()
        .with_buckets(options.bucket_bounds(descriptor))
        .with_axis_key(axis_key)
        .with_grid(grid)
        .with_positions(
            options
                .position_count(descriptor, declared_positions)
                .min(MAX_PRERESOLVED_POSITIONS),
        )
        .with_max_series(options.series_limit(descriptor))
        .with_max_label_sets(options.label_set_limit(descriptor));
    let family = Family::new(spec);
    let names = std::iter::once(descriptor.name).chain(
        descriptor
            .aliases
            .iter()
            .filter(|alias| options.shows(alias))
            .map(|alias| alias.name),
    );
    // One line, as `# HELP` is: each line break or tab becomes a space.
    let help = help_line(descriptor.help);
    for name in names {
        match descriptor.unit {
            Some(unit) => {
                registry.register_with_unit(name, help.clone(), unit_from_str(unit), family.clone())
            }
            None => registry.register(name, help.clone(), family.clone()),
        }
    }
    family
}

pub(crate) fn unit_from_str(unit: &str) -> Unit {
    match unit {
        "amperes" => Unit::Amperes,
        "bytes" => Unit::Bytes,
        "celsius" => Unit::Celsius,
        "grams" => Unit::Grams,
        "joules" => Unit::Joules,
        "meters" => Unit::Meters,
        "ratios" => Unit::Ratios,
        "seconds" => Unit::Seconds,
        "volts" => Unit::Volts,
        other => Unit::Other(other.to_owned()),
    }
}

impl<L, M> Clone for Family<L, M> {
    fn clone(&self) -> Self {
        Family {
            inner: Arc::clone(&self.inner),
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

impl<L, M> TypedMetric for Family<L, M>
where
    L: EncodeLabelSet + Clone + Hash + Eq + Send + Sync + fmt::Debug + 'static,
    M: FamilyMember,
{
    const TYPE: MetricType = match M::KIND {
        MetricKind::Counter => MetricType::Counter,
        MetricKind::Gauge => MetricType::Gauge,
        MetricKind::Histogram => MetricType::Histogram,
    };
}

impl<L, M> EncodeMetric for Family<L, M>
where
    L: EncodeLabelSet + Clone + Hash + Eq + Send + Sync + fmt::Debug + 'static,
    M: FamilyMember,
{
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), fmt::Error> {
        if crate::registration::describing_only() {
            return Ok(());
        }
        self.inner.series.for_each(|labels, member| match labels {
            Some(labels) => member.encode_member(labels, &mut encoder),
            None => member.encode_member(&[(OVERFLOW_LABEL, "true")], &mut encoder),
        })
    }

    fn metric_type(&self) -> MetricType {
        <Self as TypedMetric>::TYPE
    }
}
