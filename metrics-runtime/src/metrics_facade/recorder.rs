//! [`FacadeRecorder`]: the `metrics::Recorder` the facade's macros record through.

use std::fmt;
use std::sync::Arc;

use metrics::{Key, KeyName, Metadata, Recorder, SharedString, Unit};

use super::cache::HandleCache;
use super::families::{FacadeFamily, Families, Found, Refusal};
use super::handles::{self, FacadeGauge};
use super::options::{FacadeBuilder, FacadeError};
use crate::descriptor::MetricKind;
use crate::histogram::Histogram;
use crate::registry::Registry;
use crate::Counter;

/// A recorder for the `metrics` facade that records into this crate's families: every
/// `counter!`, `gauge!` and `histogram!` of any crate in the process is a family in the
/// [`Registry`] it was built on, served by the same `/metrics` handler in every format.
///
/// * **Names.** A name becomes a family on its first record (or registration), its names
///   claimed in the registry's ledger like any family's. Characters a Prometheus name cannot
///   hold become `_` (`tokio.workers` is `tokio_workers`); a counter's family drops a final
///   `_total`, which its sample carries (`requests` and `requests_total` both write
///   `requests_total`). A name taken by another family (one the program registered, or the
///   facade's under another kind) is refused: its records are dropped, the first refusal is
///   printed on standard error with both families named, every refused record is counted in
///   `metric_handles_facade_refused_registrations_total{reason}` and [`refused`](Self::refused)
///   lists the names.
/// * **Labels.** Keys are made valid as names are; a key the exposition reserves (`le`,
///   `quantile`, `__*`, `otel_metric_overflow`) or one of the registry's const label keys
///   becomes `exported_<key>`; a key given twice keeps its first value; values are escaped.
/// * **Handles.** A `metrics::Counter` shares this crate's counter cell, a `metrics::Histogram`
///   records straight into the lock-free histogram (nothing buffered between scrapes), a
///   `metrics::Gauge` holds an `f64` gauge. A macro call looks its handle up by the key's
///   precomputed hash in a sharded cache: no allocation once the series exists.
/// * **Limits.** Past a name's series limit, new label sets record into its overflow series;
///   past the family limit, new names are refused; series left idle leave the exposition if an
///   idle timeout is set (see [`FacadeBuilder`]).
/// * **Help and units.** `describe_counter!` and the like give the family its HELP text, before
///   or after its first record (one never described has the help text `.`, as
///   prometheus-client writes an empty one). A unit Prometheus
///   names (seconds, bytes) becomes the family's `# UNIT` when its name ends with it
///   (`upload_bytes`); a unit never renames a family (the name is fixed by its first record,
///   and `count` or `percent` have no Prometheus name).
///
/// Cloning is cheap; clones share the recorder.
#[derive(Clone)]
pub struct FacadeRecorder {
    inner: Arc<Inner>,
}

struct Inner {
    families: Families,
    counters: HandleCache<metrics::Counter, FacadeFamily<Counter>>,
    gauges: HandleCache<metrics::Gauge, FacadeFamily<FacadeGauge>>,
    histograms: HandleCache<metrics::Histogram, FacadeFamily<Histogram>>,
}

impl FacadeRecorder {
    pub(crate) fn new(options: FacadeBuilder, registry: &mut Registry) -> Self {
        FacadeRecorder {
            inner: Arc::new(Inner {
                families: Families::new(options, registry),
                counters: HandleCache::new(),
                gauges: HandleCache::new(),
                histograms: HandleCache::new(),
            }),
        }
    }

    /// A recorder with the default settings ([`FacadeBuilder::new`]), its families in
    /// `registry`.
    pub fn new_in(registry: &mut Registry) -> Self {
        FacadeBuilder::new().build(registry)
    }

    /// The names refused so far, with why, sorted by name (the names as exposed). A name
    /// refused for the family limit is not kept, so it is not listed: its records are counted
    /// in [`refused_records`](Self::refused_records).
    pub fn refused(&self) -> Vec<(String, Refusal)> {
        self.inner.families.refused_names()
    }

    /// How many records (and registrations) went to refused names, each dropped.
    pub fn refused_records(&self) -> u64 {
        self.inner.families.refused_records()
    }

    /// How many names have a family.
    pub fn families(&self) -> usize {
        self.inner.families.len()
    }
}

/// Building a recorder: here rather than beside the settings, which the slow path reads.
impl FacadeBuilder {
    /// The recorder, with its families in `registry` (after the families registered so far):
    /// hand it to the facade with `metrics::set_global_recorder`, or use
    /// [`install`](Self::install).
    pub fn build(self, registry: &mut Registry) -> FacadeRecorder {
        FacadeRecorder::new(self, registry)
    }

    /// [`build`](Self::build), and makes the recorder the facade's global recorder. Returns
    /// a handle to it (to read its refusals). Fails if the process has a global recorder
    /// already.
    pub fn install(self, registry: &mut Registry) -> Result<FacadeRecorder, FacadeError> {
        let recorder = self.build(registry);
        metrics::set_global_recorder(recorder.clone())
            .map_err(|_| FacadeError::AlreadyInstalled)?;
        Ok(recorder)
    }
}

impl fmt::Debug for FacadeRecorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FacadeRecorder")
            .field("families", &self.families())
            .field("cached_handles", &self.inner.cached_handles())
            .field("refused_records", &self.refused_records())
            .finish()
    }
}

impl Inner {
    fn cached_handles(&self) -> usize {
        self.counters.len() + self.gauges.len() + self.histograms.len()
    }
}

impl Recorder for FacadeRecorder {
    fn describe_counter(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        let families = &self.inner.families;
        families.describe(key.as_str(), MetricKind::Counter, unit, &description);
    }

    fn describe_gauge(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        let families = &self.inner.families;
        families.describe(key.as_str(), MetricKind::Gauge, unit, &description);
    }

    fn describe_histogram(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        let families = &self.inner.families;
        families.describe(key.as_str(), MetricKind::Histogram, unit, &description);
    }

    #[inline]
    fn register_counter(&self, key: &Key, _metadata: &Metadata<'_>) -> metrics::Counter {
        let inner = &*self.inner;
        match inner.counters.get(key) {
            Some(handle) => handle,
            None => cached(
                &inner.counters,
                key,
                inner.families.counter(key),
                |counter| handles::counter(&counter),
            )
            .unwrap_or_else(metrics::Counter::noop),
        }
    }

    #[inline]
    fn register_gauge(&self, key: &Key, _metadata: &Metadata<'_>) -> metrics::Gauge {
        let inner = &*self.inner;
        match inner.gauges.get(key) {
            Some(handle) => handle,
            None => cached(&inner.gauges, key, inner.families.gauge(key), |gauge| {
                handles::gauge(&gauge)
            })
            .unwrap_or_else(metrics::Gauge::noop),
        }
    }

    #[inline]
    fn register_histogram(&self, key: &Key, _metadata: &Metadata<'_>) -> metrics::Histogram {
        let inner = &*self.inner;
        match inner.histograms.get(key) {
            Some(handle) => handle,
            None => cached(
                &inner.histograms,
                key,
                inner.families.histogram(key),
                handles::histogram,
            )
            .unwrap_or_else(metrics::Histogram::noop),
        }
    }
}

/// The facade's handle of the series `found` (made by `handle`), cached for `key` when it may
/// be; `None` for a refused name.
#[cold]
fn cached<M, H: Clone>(
    cache: &HandleCache<H, FacadeFamily<M>>,
    key: &Key,
    found: Option<Found<M>>,
    handle: impl FnOnce(M) -> H,
) -> Option<H>
where
    FacadeFamily<M>: super::cache::Evictions,
{
    let found = found?;
    if let Some(limit) = found.created_with_limit {
        cache.grow(limit);
    }
    let made = handle(found.member);
    if let Some(kept) = found.cache {
        cache.insert(key, kept.key, made.clone(), kept.guard);
    }
    Some(made)
}
