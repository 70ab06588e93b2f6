//! [`FacadeBuilder`]: what the recorder does with each name it meets (bucket bounds, native
//! buckets, series limit, idle expiry), chosen by [`Matcher`].

use std::fmt;
use std::time::Duration;

use crate::descriptor::MetricKind;
use crate::histogram::NativeConfig;
use crate::limits::DEFAULT_MAX_SERIES;

/// The classic bucket bounds a histogram gets when no [`Matcher`] gives it others: client_golang's
/// `DefBuckets`, for request latencies in seconds.
pub const DEFAULT_BUCKETS: [f64; 11] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// How many metric names the recorder creates families for, unless
/// [`FacadeBuilder::max_families`] says otherwise.
pub const DEFAULT_MAX_FAMILIES: usize = 10_000;

/// Which metric names a setting applies to, as metrics-exporter-prometheus's `Matcher`: the
/// whole name, its start or its end, as the program recording it spells it (before the
/// recorder makes it a valid Prometheus name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Matcher {
    /// The name is this.
    Full(String),
    /// The name starts with this.
    Prefix(String),
    /// The name ends with this.
    Suffix(String),
}

impl Matcher {
    /// Whether `name` is one this matcher applies to.
    pub fn matches(&self, name: &str) -> bool {
        match self {
            Matcher::Full(full) => name == full,
            Matcher::Prefix(prefix) => name.starts_with(prefix.as_str()),
            Matcher::Suffix(suffix) => name.ends_with(suffix.as_str()),
        }
    }
}

/// A setting given to the builder that would make a broken exposition.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum FacadeError {
    /// Bucket bounds that are empty, not finite or not strictly increasing.
    InvalidBuckets {
        /// The bounds as given.
        bounds: Vec<f64>,
    },
    /// A series limit of 0: every series would be the overflow series.
    ZeroLimit,
    /// [`FacadeBuilder::install`]: the `metrics` facade already has a global recorder.
    AlreadyInstalled,
}

impl fmt::Display for FacadeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FacadeError::InvalidBuckets { bounds } => write!(
                f,
                "bucket bounds {bounds:?} are not a non-empty list of finite, strictly increasing \
                 numbers (the `+Inf` bucket is always there: leave it out)"
            ),
            FacadeError::ZeroLimit => {
                write!(f, "a series limit must be at least 1 (past it, series share one overflow series)")
            }
            FacadeError::AlreadyInstalled => write!(
                f,
                "the `metrics` facade already has a global recorder: install one recorder per process"
            ),
        }
    }
}

impl std::error::Error for FacadeError {}

/// Builds a [`FacadeRecorder`](super::FacadeRecorder): what each histogram's buckets are, how many series a name may
/// have, and when idle series leave the exposition.
///
/// Settings chosen by [`Matcher`] are tried in the order they were given: the first that
/// matches a name decides, and a name no matcher matches gets the builder's default.
///
/// ```
/// use std::time::Duration;
/// use metric_handles::descriptor::MetricKind;
/// use metric_handles::metrics_facade::{FacadeBuilder, Matcher};
/// use metric_handles::Registry;
///
/// let mut registry = Registry::default();
/// let recorder = FacadeBuilder::new()
///     .buckets_for(Matcher::Suffix("_bytes".into()), &[1024.0, 65536.0, 1048576.0])?
///     .max_series(500)?
///     .idle_timeout(&[MetricKind::Counter, MetricKind::Histogram], Duration::from_secs(600))
///     .build(&mut registry);
/// metrics::with_local_recorder(&recorder, || {
///     metrics::histogram!("upload_bytes").record(4096.0);
/// });
/// let text = metric_handles::ExpositionFormat::PrometheusText.encode(&registry).unwrap();
/// assert!(text.contains(r#"upload_bytes_bucket{le="65536"} 1"#));
/// # Ok::<(), metric_handles::metrics_facade::FacadeError>(())
/// ```
#[derive(Clone, Debug)]
pub struct FacadeBuilder {
    pub(crate) buckets: Vec<f64>,
    pub(crate) bucket_rules: Vec<(Matcher, Vec<f64>)>,
    pub(crate) native: Option<NativeConfig>,
    pub(crate) native_rules: Vec<(Matcher, Option<NativeConfig>)>,
    pub(crate) max_series: usize,
    pub(crate) series_rules: Vec<(Matcher, usize)>,
    pub(crate) max_families: usize,
    pub(crate) idle_timeouts: Vec<(MetricKind, Duration)>,
}

impl Default for FacadeBuilder {
    fn default() -> Self {
        FacadeBuilder {
            buckets: DEFAULT_BUCKETS.to_vec(),
            bucket_rules: Vec::new(),
            native: None,
            native_rules: Vec::new(),
            max_series: DEFAULT_MAX_SERIES,
            series_rules: Vec::new(),
            max_families: DEFAULT_MAX_FAMILIES,
            idle_timeouts: Vec::new(),
        }
    }
}

impl FacadeBuilder {
    /// The defaults: [`DEFAULT_BUCKETS`], no native buckets,
    /// [`DEFAULT_MAX_SERIES`] series per name,
    /// [`DEFAULT_MAX_FAMILIES`] names, no idle expiry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The classic bucket bounds of every histogram no [`buckets_for`](Self::buckets_for)
    /// matcher matches.
    pub fn buckets(mut self, bounds: &[f64]) -> Result<Self, FacadeError> {
        self.buckets = checked_bounds(bounds)?;
        Ok(self)
    }

    /// The classic bucket bounds of the histograms whose name `matcher` matches.
    pub fn buckets_for(mut self, matcher: Matcher, bounds: &[f64]) -> Result<Self, FacadeError> {
        self.bucket_rules.push((matcher, checked_bounds(bounds)?));
        Ok(self)
    }

    /// Native buckets (sparse, exponential: what Prometheus's native histograms read over
    /// protobuf) beside the classic ones, on every histogram no
    /// [`native_for`](Self::native_for) matcher matches; `None` for none.
    pub fn native(mut self, native: Option<NativeConfig>) -> Self {
        self.native = native;
        self
    }

    /// Native buckets on the histograms whose name `matcher` matches (`None`: none on them).
    pub fn native_for(mut self, matcher: Matcher, native: Option<NativeConfig>) -> Self {
        self.native_rules.push((matcher, native));
        self
    }

    /// How many label sets each name may have a series for: past it, new label sets record
    /// into the name's one overflow series (`otel_metric_overflow="true"`), so a dependency
    /// recording an unbounded label (a user id, a URL) cannot exhaust memory, and no record is
    /// lost.
    pub fn max_series(mut self, limit: usize) -> Result<Self, FacadeError> {
        self.max_series = checked_limit(limit)?;
        Ok(self)
    }

    /// The series limit of the names `matcher` matches.
    pub fn max_series_for(mut self, matcher: Matcher, limit: usize) -> Result<Self, FacadeError> {
        self.series_rules.push((matcher, checked_limit(limit)?));
        Ok(self)
    }

    /// How many names the recorder creates families for. A name past it is refused (see
    /// [`FacadeRecorder`](super::FacadeRecorder)): a program that builds names from data cannot exhaust memory.
    pub fn max_families(mut self, limit: usize) -> Self {
        self.max_families = limit;
        self
    }

    /// Series of the metric kinds `kinds` (counters, gauges, histograms) that are neither
    /// recorded into nor looked up for `timeout` leave the exposition at the next scrape, as
    /// metrics-exporter-prometheus's `idle_timeout`. A series that is recorded into again
    /// comes back with every count it had. A gauge is seen as recorded into when its value
    /// changes: one set to the same value again and again is idle.
    pub fn idle_timeout(mut self, kinds: &[MetricKind], timeout: Duration) -> Self {
        self.idle_timeouts.retain(|(kind, _)| !kinds.contains(kind));
        self.idle_timeouts
            .extend(kinds.iter().map(|&kind| (kind, timeout)));
        self
    }

    /// The classic bounds of the histogram `name`.
    pub(crate) fn buckets_of(&self, name: &str) -> &[f64] {
        first_match(&self.bucket_rules, name).map_or(&self.buckets, |bounds| bounds)
    }

    /// The native buckets of the histogram `name`.
    pub(crate) fn native_of(&self, name: &str) -> Option<NativeConfig> {
        first_match(&self.native_rules, name).map_or(self.native, |native| *native)
    }

    /// The series limit of `name`.
    pub(crate) fn max_series_of(&self, name: &str) -> usize {
        first_match(&self.series_rules, name).map_or(self.max_series, |limit| *limit)
    }

    /// The idle timeout of series of `kind`.
    pub(crate) fn idle_timeout_of(&self, kind: MetricKind) -> Option<Duration> {
        self.idle_timeouts
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, timeout)| *timeout)
    }
}

fn first_match<'a, T>(rules: &'a [(Matcher, T)], name: &str) -> Option<&'a T> {
    rules
        .iter()
        .find(|(matcher, _)| matcher.matches(name))
        .map(|(_, value)| value)
}

fn checked_bounds(bounds: &[f64]) -> Result<Vec<f64>, FacadeError> {
    let valid = !bounds.is_empty()
        && bounds.iter().all(|bound| bound.is_finite())
        && bounds.windows(2).all(|pair| pair[0] < pair[1]);
    if valid {
        Ok(bounds.to_vec())
    } else {
        Err(FacadeError::InvalidBuckets {
            bounds: bounds.to_vec(),
        })
    }
}

fn checked_limit(limit: usize) -> Result<usize, FacadeError> {
    if limit == 0 {
        Err(FacadeError::ZeroLimit)
    } else {
        Ok(limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_matcher_that_matches_decides() {
        let builder = FacadeBuilder::new()
            .buckets_for(Matcher::Full("upload_bytes".into()), &[1.0])
            .unwrap()
            .buckets_for(Matcher::Suffix("_bytes".into()), &[2.0])
            .unwrap()
            .buckets_for(Matcher::Prefix("upload".into()), &[3.0])
            .unwrap();
        assert_eq!(builder.buckets_of("upload_bytes"), [1.0]);
        assert_eq!(builder.buckets_of("download_bytes"), [2.0]);
        assert_eq!(builder.buckets_of("upload_seconds"), [3.0]);
        assert_eq!(builder.buckets_of("latency"), DEFAULT_BUCKETS);
    }

    #[test]
    fn bounds_a_scraper_would_reject_are_refused_with_what_to_write() {
        for bounds in [
            &[][..],
            &[1.0, 1.0],
            &[2.0, 1.0],
            &[f64::NAN],
            &[1.0, f64::INFINITY],
        ] {
            let err = FacadeBuilder::new().buckets(bounds).unwrap_err();
            assert!(
                matches!(err, FacadeError::InvalidBuckets { .. }),
                "{bounds:?}"
            );
            assert!(err.to_string().contains("strictly increasing"));
        }
        assert_eq!(
            FacadeBuilder::new().max_series(0).unwrap_err(),
            FacadeError::ZeroLimit
        );
    }

    #[test]
    fn an_idle_timeout_given_again_for_a_kind_replaces_the_first() {
        let builder = FacadeBuilder::new()
            .idle_timeout(
                &[MetricKind::Counter, MetricKind::Gauge],
                Duration::from_secs(1),
            )
            .idle_timeout(&[MetricKind::Gauge], Duration::from_secs(2));
        assert_eq!(
            builder.idle_timeout_of(MetricKind::Counter),
            Some(Duration::from_secs(1))
        );
        assert_eq!(
            builder.idle_timeout_of(MetricKind::Gauge),
            Some(Duration::from_secs(2))
        );
        assert_eq!(builder.idle_timeout_of(MetricKind::Histogram), None);
    }
}
