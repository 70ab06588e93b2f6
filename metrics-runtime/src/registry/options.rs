//! Run-time choices made at registration: bucket overrides, position counts, series limits and
//! which deprecated names to expose.

use std::borrow::Cow;
use std::collections::HashMap;
use std::time::Duration;

use crate::buckets::{self, BucketError};
use crate::descriptor::{Alias, LabelAxis, MetricDescriptor, MetricKind};
use crate::histogram::NativeConfig;

/// Options for `register_with`. The defaults reproduce exactly what the declaration says.
///
/// Each override names a metric by its primary name; a registration refuses options with an
/// override naming none of its metrics ([`RegistrationError::UnknownOverride`]), since it
/// would change nothing. Options shared by several structs go through
/// [`for_descriptors`](Self::for_descriptors) first.
///
/// [`RegistrationError::UnknownOverride`]: crate::RegistrationError::UnknownOverride
///
/// The builders that cannot fail take and return the options by value, for chaining.
/// [`buckets`](Self::buckets), the one that can, borrows them: a rejected list leaves the
/// options as they were, still usable.
///
/// ```
/// use metric_handles::RegisterOptions;
///
/// let mut options = RegisterOptions::new()
///     .positions("vllm:spec_decode_num_accepted_tokens_per_pos", 3)
///     .max_label_sets("vllm:num_requests_running", 64)
///     .show_hidden_metrics_for_version("0.10");
/// options
///     .buckets("vllm:request_prompt_tokens", metric_handles::buckets::one_two_five(4096.0))
///     .expect("valid buckets");
/// // A rejected list is reported and changes nothing.
/// assert!(options.buckets("vllm:e2e_request_latency", vec![2.0, 1.0]).is_err());
/// ```
#[derive(Clone, Debug, Default)]
pub struct RegisterOptions {
    buckets: HashMap<String, Vec<f64>>,
    native: HashMap<String, Option<NativeConfig>>,
    positions: HashMap<String, usize>,
    max_series: HashMap<String, usize>,
    max_label_sets: HashMap<String, usize>,
    idle_timeout: HashMap<String, Option<Duration>>,
    show_hidden_for: Option<String>,
}

impl RegisterOptions {
    /// Options that change nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces the buckets of the histogram registered as `metric` (its primary name).
    /// Fails, naming the bound, unless the list is non-empty, at most
    /// [`MAX_BUCKETS`](crate::buckets::MAX_BUCKETS) long, finite, non-negative and strictly
    /// increasing; on failure the options are left unchanged (an earlier override of `metric`
    /// stays in force). A registration refuses it for a metric without buckets (neither a
    /// histogram nor a gauge histogram: [`RegistrationError::UnknownOverride`]).
    ///
    /// [`RegistrationError::UnknownOverride`]: crate::RegistrationError::UnknownOverride
    pub fn buckets(
        &mut self,
        metric: impl Into<String>,
        bounds: Vec<f64>,
    ) -> Result<&mut Self, BucketError> {
        buckets::validate(&bounds)?;
        self.buckets.insert(metric.into(), bounds);
        Ok(self)
    }

    /// Gives the histogram registered as `metric` native buckets laid out by `native` (beside
    /// its bucket bounds), or, with `None`, takes the native buckets its declaration gives it
    /// away. Cannot fail: a [`NativeConfig`] is valid by construction. A registration refuses
    /// it for a metric that is not a histogram ([`RegistrationError::UnknownOverride`]), where
    /// it would change nothing.
    ///
    /// [`RegistrationError::UnknownOverride`]: crate::RegistrationError::UnknownOverride
    pub fn native(mut self, metric: impl Into<String>, native: Option<NativeConfig>) -> Self {
        self.native.insert(metric.into(), native);
        self
    }

    /// Sets how many positions the position axis of `metric` pre-resolves. On a `ByLabels`
    /// grid the count is lowered, if needed, until the product of the axes fits the field's
    /// `max_series`: every `Position` axis of the grid gets the same count, the largest whose
    /// product fits (four position axes asked for 256 under a limit of 2048 get 6 each).
    /// At most [`MAX_PRERESOLVED_POSITIONS`](crate::limits::MAX_PRERESOLVED_POSITIONS) are pre-resolved;
    /// positions past them still record, through the axis's bounded lookup.
    pub fn positions(mut self, metric: impl Into<String>, count: usize) -> Self {
        self.positions.insert(metric.into(), count);
        self
    }

    /// Sets, per common label set, how many series the run-time axis of `metric` (`Dynamic`
    /// label sets, positions beyond the pre-resolved ones) may hold before records go to that
    /// label set's overflow series. A limit of 0 is raised to 1.
    pub fn max_series(mut self, metric: impl Into<String>, limit: usize) -> Self {
        self.max_series.insert(metric.into(), limit.max(1));
        self
    }

    /// Sets how many common label sets `metric` may hold before `resolve` returns its
    /// overflow series. A limit of 0 is raised to 1: a family always has room for one.
    pub fn max_label_sets(mut self, metric: impl Into<String>, limit: usize) -> Self {
        self.max_label_sets.insert(metric.into(), limit.max(1));
        self
    }

    /// Sets how long a series of the `Dynamic` axis of `metric` may go without a record or a
    /// lookup before it leaves the exposition (checked at each scrape), replacing the field's
    /// `#[metric(idle_timeout = "...")]`; `None` turns a declared timeout off. See
    /// [idle-series expiry](crate::Dynamic#idle-series-expiry). A registration refuses it for a
    /// metric without a `Dynamic` axis ([`RegistrationError::UnknownOverride`]), where it
    /// would change nothing. A timeout under a millisecond counts as one millisecond.
    ///
    /// [`RegistrationError::UnknownOverride`]: crate::RegistrationError::UnknownOverride
    pub fn idle_timeout(
        mut self,
        metric: impl Into<String>,
        timeout: impl Into<Option<Duration>>,
    ) -> Self {
        self.idle_timeout.insert(metric.into(), timeout.into());
        self
    }

    /// Also exposes the deprecated names that version `version` still exposed, so dashboards
    /// written against that version keep working.
    ///
    /// An alias declared with `deprecated_in = "V"` is the name vLLM brings back with
    /// `--show-hidden-metrics-for-version=V`; asking for `V` shows it, as in vLLM. Unlike vLLM,
    /// asking for an older version `U < V` shows it too (the name still existed in `U`), so one
    /// setting restores a whole dashboard even when its names were hidden in different
    /// releases. Versions compare numerically by dot-separated component (`0.9 < 0.10`); a
    /// version that is not numeric only matches an identical `deprecated_in`.
    ///
    /// The alias shares the primary metric's series, so recording once updates both names at no
    /// extra cost.
    pub fn show_hidden_metrics_for_version(mut self, version: impl Into<String>) -> Self {
        self.show_hidden_for = Some(version.into());
        self
    }

    /// The overrides that name one of `descriptors`, for options shared by several structs
    /// (each registration refuses an override that names none of its metrics).
    pub fn for_descriptors(&self, descriptors: &[MetricDescriptor]) -> RegisterOptions {
        fn keep<V: Clone>(
            map: &HashMap<String, V>,
            descriptors: &[MetricDescriptor],
        ) -> HashMap<String, V> {
            map.iter()
                .filter(|(name, _)| descriptors.iter().any(|d| d.name == name.as_str()))
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect()
        }
        RegisterOptions {
            buckets: keep(&self.buckets, descriptors),
            native: keep(&self.native, descriptors),
            positions: keep(&self.positions, descriptors),
            max_series: keep(&self.max_series, descriptors),
            max_label_sets: keep(&self.max_label_sets, descriptors),
            idle_timeout: keep(&self.idle_timeout, descriptors),
            show_hidden_for: self.show_hidden_for.clone(),
        }
    }

    /// The first override naming none of `descriptors` (by primary name), as the builder that
    /// set it and the name, in a stable order (builder, then name).
    pub(crate) fn unknown_override(
        &self,
        descriptors: &[MetricDescriptor],
    ) -> Option<(&'static str, &str)> {
        let names: [(&'static str, Vec<&String>); 6] = [
            ("buckets", self.buckets.keys().collect()),
            ("native", self.native.keys().collect()),
            ("positions", self.positions.keys().collect()),
            ("max_series", self.max_series.keys().collect()),
            ("max_label_sets", self.max_label_sets.keys().collect()),
            ("idle_timeout", self.idle_timeout.keys().collect()),
        ];
        names.into_iter().find_map(|(builder, mut names)| {
            names.sort();
            names
                .into_iter()
                .find(|name| {
                    !descriptors
                        .iter()
                        .any(|d| d.name == name.as_str() && Self::applies(builder, d))
                })
                .map(|name| (builder, name.as_str()))
        })
    }

    /// Whether the override `builder` can change `descriptor`'s metric: an idle timeout only
    /// a `Dynamic` axis's, native buckets only a histogram's (a gauge histogram has none),
    /// bucket bounds only a histogram's or a gauge histogram's, every other override any
    /// metric's.
    pub(crate) fn applies(builder: &str, descriptor: &MetricDescriptor) -> bool {
        match builder {
            "idle_timeout" => matches!(descriptor.axis, Some(LabelAxis::Dynamic { .. })),
            "native" => descriptor.kind == MetricKind::Histogram,
            "buckets" => matches!(
                descriptor.kind,
                MetricKind::Histogram | MetricKind::GaugeHistogram
            ),
            _ => true,
        }
    }

    /// The idle timeout of the `Dynamic` axis of `descriptor`'s metric: the override if any,
    /// else the declared one (which the derive passes in with
    /// [`with_declared_idle_timeout`](Self::with_declared_idle_timeout)).
    pub(crate) fn idle_timeout_for(&self, descriptor: &MetricDescriptor) -> Option<Duration> {
        self.idle_timeout.get(descriptor.name).copied().flatten()
    }

    /// These options with `declared` as the idle timeout of `metric` unless they override it:
    /// how a field's `#[metric(idle_timeout = "...")]` reaches its registration.
    pub(crate) fn with_declared_idle_timeout(
        &self,
        metric: &str,
        declared: Duration,
    ) -> Cow<'_, RegisterOptions> {
        if self.idle_timeout.contains_key(metric) {
            return Cow::Borrowed(self);
        }
        let mut options = self.clone();
        options
            .idle_timeout
            .insert(metric.to_owned(), Some(declared));
        Cow::Owned(options)
    }

    /// The bucket bounds for `descriptor`: the override if any, else the declared ones.
    pub(crate) fn bucket_bounds(&self, descriptor: &MetricDescriptor) -> Vec<f64> {
        match self.buckets.get(descriptor.name) {
            Some(bounds) => bounds.clone(),
            None => descriptor
                .buckets
                .as_ref()
                .map(|b| b.bounds())
                .unwrap_or_default(),
        }
    }

    /// The pre-resolved position count for `descriptor`, or `declared` when not overridden.
    /// The native buckets of `descriptor`'s histograms: the override, else the declaration's.
    pub(crate) fn native_config(&self, descriptor: &MetricDescriptor) -> Option<NativeConfig> {
        match self.native.get(descriptor.name) {
            Some(native) => *native,
            None => descriptor.native,
        }
    }

    pub(crate) fn position_count(&self, descriptor: &MetricDescriptor, declared: usize) -> usize {
        self.positions
            .get(descriptor.name)
            .copied()
            .unwrap_or(declared)
    }

    /// The series limit for `descriptor`.
    pub(crate) fn series_limit(&self, descriptor: &MetricDescriptor) -> usize {
        self.max_series
            .get(descriptor.name)
            .copied()
            .unwrap_or(descriptor.max_series)
            .max(1)
    }

    /// The limit on common label sets for `descriptor`.
    pub(crate) fn label_set_limit(&self, descriptor: &MetricDescriptor) -> usize {
        self.max_label_sets
            .get(descriptor.name)
            .copied()
            .unwrap_or(descriptor.max_label_sets)
            .max(1)
    }

    /// Whether `alias` is to be exposed under these options.
    pub(crate) fn shows(&self, alias: &Alias) -> bool {
        let Some(requested) = self.show_hidden_for.as_deref() else {
            return false;
        };
        match (parse_version(requested), parse_version(alias.deprecated_in)) {
            (Some(requested), Some(deprecated_in)) => {
                compare_versions(&requested, &deprecated_in).is_le()
            }
            _ => requested == alias.deprecated_in,
        }
    }
}

/// `"0.10.2"` → `[0, 10, 2]`; `None` unless every component is a number.
fn parse_version(version: &str) -> Option<Vec<u64>> {
    version
        .trim()
        .split('.')
        .map(|part| part.parse().ok())
        .collect()
}

/// Compares component by component, a missing component counting as 0 (`0.10` == `0.10.0`).
fn compare_versions(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    let len = a.len().max(b.len());
    let component = |v: &[u64], i: usize| v.get(i).copied().unwrap_or(0);
    (0..len)
        .map(|i| component(a, i).cmp(&component(b, i)))
        .find(|ordering| ordering.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(requested: &str, deprecated_in: &'static str) -> bool {
        RegisterOptions::new()
            .show_hidden_metrics_for_version(requested)
            .shows(&Alias {
                name: "old",
                deprecated_in,
            })
    }

    #[test]
    fn an_alias_is_shown_for_its_version_and_every_older_one() {
        assert!(shown("0.10", "0.10"));
        assert!(shown("0.10.0", "0.10"));
        assert!(shown("0.9", "0.10"), "0.9 < 0.10 numerically");
        assert!(shown("0.10", "0.11"));
        assert!(!shown("0.11", "0.10"));
        assert!(!shown("1.0", "0.10"));
        assert!(!RegisterOptions::new().shows(&Alias {
            name: "old",
            deprecated_in: "0.10"
        }));
    }

    #[test]
    fn a_rejected_bucket_list_leaves_the_options_unchanged_and_usable() {
        let mut options = RegisterOptions::new().positions("p", 2);
        options.buckets("h", vec![1.0, 2.0]).unwrap();
        assert_eq!(
            options.buckets("h", vec![2.0, 1.0]).err(),
            Some(BucketError::NotIncreasing { index: 1 })
        );
        assert_eq!(
            options.buckets("g", Vec::new()).err(),
            Some(BucketError::Empty)
        );
        assert_eq!(options.buckets.get("h"), Some(&vec![1.0, 2.0]));
        assert!(!options.buckets.contains_key("g"));
        assert_eq!(options.positions.get("p"), Some(&2));
        let options = options.max_series("s", 7);
        assert_eq!(options.max_series.get("s"), Some(&7));
    }

    #[test]
    fn non_numeric_versions_only_match_exactly() {
        assert!(shown("nightly", "nightly"));
        assert!(!shown("nightly", "0.10"));
        assert!(!shown("0.10", "v0.10"));
        assert!(!shown("", "0.10"));
    }
}
