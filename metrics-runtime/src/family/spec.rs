//! [`FamilySpec`]: a metric family described at run time.

use crate::descriptor::{LabelAxis, MetricDescriptor, MetricKind};
use crate::histogram::NativeConfig;
use crate::limits::DEFAULT_MAX_SERIES;
use std::time::Duration;

/// Everything needed to register one family at run time: what a `#[metric(...)]` field says at
/// compile time, as owned values (a KV connector's descriptor, a configuration file...).
///
/// ```
/// use metric_handles::family::FamilySpec;
///
/// let spec = FamilySpec::histogram(
///     "acme:cache_fetch_seconds",
///     "Time to fetch one block from the ACME cache",
///     vec![0.001, 0.01, 0.1, 1.0],
/// )
/// .label_keys(["tier"]);
/// assert_eq!(spec.extra_label_keys(), ["tier"]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct FamilySpec {
    pub(crate) name: String,
    pub(crate) kind: MetricKind,
    pub(crate) help: String,
    pub(crate) unit: Option<String>,
    pub(crate) buckets: Option<Vec<f64>>,
    pub(crate) native: Option<NativeConfig>,
    pub(crate) extra_label_keys: Vec<String>,
    pub(crate) max_series: usize,
    pub(crate) idle_timeout: Option<Duration>,
    pub(crate) precreated: Vec<Vec<String>>,
}

impl FamilySpec {
    /// A family of `kind` named `name` (without the `_total` suffix counters are exposed
    /// with), with help text `help` (without a final `.`: the exposition adds it).
    pub fn new(name: impl Into<String>, kind: MetricKind, help: impl Into<String>) -> Self {
        FamilySpec {
            name: name.into(),
            kind,
            help: help.into(),
            unit: None,
            buckets: None,
            native: None,
            extra_label_keys: Vec::new(),
            max_series: DEFAULT_MAX_SERIES,
            idle_timeout: None,
            precreated: Vec::new(),
        }
    }

    /// A counter family.
    pub fn counter(name: impl Into<String>, help: impl Into<String>) -> Self {
        Self::new(name, MetricKind::Counter, help)
    }

    /// A gauge family.
    pub fn gauge(name: impl Into<String>, help: impl Into<String>) -> Self {
        Self::new(name, MetricKind::Gauge, help)
    }

    /// A histogram family over `buckets` (finite, strictly increasing).
    pub fn histogram(name: impl Into<String>, help: impl Into<String>, buckets: Vec<f64>) -> Self {
        Self::new(name, MetricKind::Histogram, help).buckets(buckets)
    }

    /// The family a compile-time descriptor describes (name, kind, help, unit, buckets, series
    /// limit, and the keys of a [`LabelAxis::Dynamic`] axis as extra label keys). The
    /// descriptor's common labels are the ones of the [`RuntimeFamilies`](super::RuntimeFamilies)
    /// it is registered in.
    pub fn from_descriptor(descriptor: &MetricDescriptor) -> Self {
        let mut spec = Self::new(descriptor.name, descriptor.kind, descriptor.help);
        spec.unit = descriptor.unit.map(str::to_owned);
        spec.buckets = descriptor.buckets.map(|b| b.bounds());
        spec.native = descriptor.native;
        spec.max_series = descriptor.max_series;
        if let Some(LabelAxis::Dynamic { keys }) = descriptor.axis {
            spec.extra_label_keys = keys.iter().map(|&k| k.to_owned()).collect();
        }
        spec
    }

    /// Appends `unit` to the exposed name (`seconds`, `bytes`, ...), as `#[metric(unit = ..)]`.
    pub fn unit(mut self, unit: impl Into<String>) -> Self {
        self.unit = Some(unit.into());
        self
    }

    /// Sets the histogram bucket bounds.
    pub fn buckets(mut self, bounds: Vec<f64>) -> Self {
        self.buckets = Some(bounds);
        self
    }

    /// Gives the histograms native buckets laid out by `native`, beside the bucket bounds (a
    /// histogram family without bounds has native buckets only).
    pub fn native(mut self, native: NativeConfig) -> Self {
        self.native = Some(native);
        self
    }

    /// The native buckets' layout, if the histograms have them.
    pub fn native_config(&self) -> Option<NativeConfig> {
        self.native
    }

    /// Label keys every series carries after the common labels, in this order.
    pub fn label_keys<K: Into<String>>(mut self, keys: impl IntoIterator<Item = K>) -> Self {
        self.extra_label_keys = keys.into_iter().map(Into::into).collect();
        self
    }

    /// Declares the extra label values `values` (one per extra label key, in order) known as
    /// the family registers, as a KV connector's descriptor lists the constant labels of each
    /// of its metrics: the family gets their series at zero for every common label set
    /// declared present ([`RuntimeFamilies::add_common`](super::RuntimeFamilies::add_common):
    /// in `VllmMetrics::plugin_families`, every engine present at registration and every
    /// engine that joins later), so dashboards see them from the first scrape, and they leave
    /// with their common label set ([`RuntimeFamilies::remove_common`](super::RuntimeFamilies::remove_common)).
    /// Call once per label set. A later [`get_or_create`](super::RuntimeFamily::get_or_create)
    /// of the same values returns the same series.
    ///
    /// Checked at [`register`](super::RuntimeFamilies::register): one value per extra key,
    /// each set within the label size limits, no set twice, and no more sets than
    /// [`max_series`](Self::max_series) (pre-created series count against the limit; a
    /// common label set arriving when the family is full gets no pre-created series, never
    /// the overflow series). Pre-created series are exempt from
    /// [`idle_timeout`](Self::idle_timeout): they are declared in use for as long as their
    /// common label set is present.
    ///
    /// ```
    /// use metric_handles::family::FamilySpec;
    ///
    /// let spec = FamilySpec::gauge("acme:kv_blocks", "KV blocks held, by path")
    ///     .label_keys(["path"])
    ///     .precreate(["local"])
    ///     .precreate(["remote"]);
    /// assert_eq!(spec.precreated_label_sets(), [vec!["local"], vec!["remote"]]);
    /// ```
    pub fn precreate<V: Into<String>>(mut self, values: impl IntoIterator<Item = V>) -> Self {
        self.precreated
            .push(values.into_iter().map(Into::into).collect());
        self
    }

    /// The extra label values whose series are created at zero per present common label set,
    /// in the order declared ([`precreate`](Self::precreate)).
    pub fn precreated_label_sets(&self) -> &[Vec<String>] {
        &self.precreated
    }

    /// How many label sets the family may hold before records go to its overflow series
    /// (default [`DEFAULT_MAX_SERIES`]; 0 is raised to 1).
    pub fn max_series(mut self, limit: usize) -> Self {
        self.max_series = limit.max(1);
        self
    }

    /// Drops from the exposition the series not recorded nor looked up for `timeout` (checked
    /// at each scrape; off by default), by the rules of a `Dynamic` axis: a record through a
    /// handle kept from before brings its series back with every count, and a series dropped
    /// for good to make room for a new label set starts again from zero (see
    /// [idle-series expiry](crate::Dynamic#idle-series-expiry)). A timeout under a millisecond
    /// counts as one millisecond.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = Some(timeout);
        self
    }

    /// The idle timeout, if the family's series expire.
    pub fn expires_idle_after(&self) -> Option<Duration> {
        self.idle_timeout
    }

    /// The registered name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Counter, gauge or histogram.
    pub fn kind(&self) -> MetricKind {
        self.kind
    }

    /// The help text.
    pub fn help(&self) -> &str {
        &self.help
    }

    /// The unit suffix, if any.
    pub fn unit_suffix(&self) -> Option<&str> {
        self.unit.as_deref()
    }

    /// The bucket bounds, if any.
    pub fn bucket_bounds(&self) -> Option<&[f64]> {
        self.buckets.as_deref()
    }

    /// The extra label keys.
    pub fn extra_label_keys(&self) -> &[String] {
        &self.extra_label_keys
    }

    /// The series limit.
    pub fn series_limit(&self) -> usize {
        self.max_series
    }
}
