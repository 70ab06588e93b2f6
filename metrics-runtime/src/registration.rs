//! The registration check: a metrics struct registers only if none of the names it would
//! expose is already exposed by the registry.
//!
//! prometheus-client's `Registry` accepts any name twice and keeps no record a caller could
//! query, so the registry's own exposition is the record: its `# TYPE` lines list every family
//! it exposes (registered through this crate or not), with the type that fixes which sample
//! names the family writes. The check encodes the registry once, and this crate's families
//! write only their `# HELP`/`# TYPE` lines into it (see [`describing_only`]), so a check
//! costs in proportion to the families registered, however many series they hold; only the
//! names the new families would claim are looked up, so reading a line allocates nothing.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::fmt;

use prometheus_client::encoding::text;
use prometheus_client::registry::Registry;

use crate::descriptor::{MetricDescriptor, MetricKind};
use crate::options::RegisterOptions;

/// A metric could not be registered: one of the names it would expose is taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegistrationError {
    /// The family name being registered (with its unit suffix).
    pub name: String,
    /// The name both families would expose (the family name or one of its sample names).
    pub clashes_on: String,
    /// The family already exposing it, and its type (`counter`, `gauge`, ...).
    pub existing: String,
    /// The type of [`RegistrationError::existing`].
    pub existing_type: String,
}

impl fmt::Display for RegistrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.name == self.existing {
            write!(
                f,
                "metric `{}` is already registered in this registry (as a {}): register each metric \
                 struct once per registry, and record several label sets (models, engines) through \
                 that one registration",
                self.name, self.existing_type
            )
        } else {
            write!(
                f,
                "metric `{}` would expose `{}`, which the {} `{}` already in this registry exposes: \
                 the series would be duplicated; rename one of them",
                self.name, self.clashes_on, self.existing_type, self.existing
            )
        }
    }
}

impl std::error::Error for RegistrationError {}

/// The names a family of `metric_type` (an OpenMetrics type name) claims: its own name and its
/// sample names. OpenMetrics reserves `_created` for counters and histograms, and Python's
/// parser counts it, so it is claimed too.
fn claimed_names(family: &str, metric_type: &str) -> Vec<String> {
    claimed_suffixes(metric_type)
        .iter()
        .map(|s| format!("{family}{s}"))
        .collect()
}

/// The suffixes of [`claimed_names`], the family's own name first.
fn claimed_suffixes(metric_type: &str) -> &'static [&'static str] {
    match metric_type {
        "counter" => &["", "_total", "_created"],
        "histogram" => &["", "_bucket", "_count", "_sum", "_created"],
        "gaugehistogram" => &["", "_bucket", "_gcount", "_gsum"],
        "summary" => &["", "_count", "_sum", "_created"],
        "info" => &["", "_info"],
        _ => &[""],
    }
}

thread_local! {
    /// Set while this thread encodes a registry for the registration check.
    static DESCRIBING: Cell<bool> = const { Cell::new(false) };
}

/// Whether the registry being encoded on this thread is only being read for its families
/// (the registration check): a family of this crate then writes its descriptor lines and
/// skips its series, which the check never reads.
pub(crate) fn describing_only() -> bool {
    DESCRIBING.with(Cell::get)
}

/// Sets [`describing_only`] for as long as it lives (cleared on unwind too).
struct Describing;

impl Describing {
    fn start() -> Self {
        DESCRIBING.with(|d| d.set(true));
        Describing
    }
}

impl Drop for Describing {
    fn drop(&mut self) {
        DESCRIBING.with(|d| d.set(false));
    }
}

/// Which of `wanted` the registry's families already claim: claimed name -> (family, type).
fn existing_claims(
    registry: &Registry,
    wanted: &HashSet<String>,
) -> HashMap<String, (String, String)> {
    let mut exposition = String::new();
    {
        let _describing = Describing::start();
        // Encoding into a `String` cannot fail for the crate's members; a collector that
        // fails would fail every scrape too, and registering beside it checks what did
        // encode.
        let _ = text::encode_registry(&mut exposition, registry);
    }
    let mut claims = HashMap::new();
    let mut name = String::new();
    for line in exposition.lines() {
        let Some(rest) = line.strip_prefix("# TYPE ") else {
            continue;
        };
        let Some((family, metric_type)) = rest.split_once(' ') else {
            continue;
        };
        for suffix in claimed_suffixes(metric_type) {
            name.clear();
            name.push_str(family);
            name.push_str(suffix);
            if wanted.contains(&name) {
                claims.insert(name.clone(), (family.to_owned(), metric_type.to_owned()));
            }
        }
    }
    claims
}

/// The family names `descriptor` registers under `options` (primary name and shown aliases,
/// each with the unit suffix prometheus-client appends).
fn family_names<'a>(
    descriptor: &'a MetricDescriptor,
    options: &'a RegisterOptions,
) -> impl Iterator<Item = String> + 'a {
    std::iter::once(descriptor.name)
        .chain(
            descriptor
                .aliases
                .iter()
                .filter(|alias| options.shows(alias))
                .map(|alias| alias.name),
        )
        .map(|name| match descriptor.unit {
            Some(unit) => format!("{name}_{unit}"),
            None => name.to_owned(),
        })
}

/// Checks that registering `descriptors` with `options` into `registry` exposes no name twice,
/// neither against what the registry already exposes nor among the descriptors themselves.
pub fn check_registration(
    registry: &Registry,
    descriptors: &[MetricDescriptor],
    options: &RegisterOptions,
) -> Result<(), RegistrationError> {
    let wanted: HashSet<String> = descriptors
        .iter()
        .flat_map(|descriptor| {
            family_names(descriptor, options)
                .flat_map(|family| claimed_names(&family, type_name(descriptor.kind)))
        })
        .collect();
    let mut claims = existing_claims(registry, &wanted);
    for descriptor in descriptors {
        let metric_type = type_name(descriptor.kind);
        for family in family_names(descriptor, options) {
            let claimed = claimed_names(&family, metric_type);
            if let Some((name, (existing, existing_type))) = claimed
                .iter()
                .find_map(|name| claims.get(name).map(|owner| (name, owner)))
            {
                return Err(RegistrationError {
                    name: family,
                    clashes_on: name.clone(),
                    existing: existing.clone(),
                    existing_type: existing_type.clone(),
                });
            }
            for name in claimed {
                claims.insert(name, (family.clone(), metric_type.to_owned()));
            }
        }
    }
    Ok(())
}

/// The OpenMetrics type name of `kind`, as a `# TYPE` line writes it.
fn type_name(kind: MetricKind) -> &'static str {
    match kind {
        MetricKind::Counter => "counter",
        MetricKind::Gauge => "gauge",
        MetricKind::Histogram => "histogram",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prometheus_client::metrics::counter::Counter;
    use prometheus_client::metrics::gauge::Gauge;

    fn descriptor(name: &'static str, kind: MetricKind) -> MetricDescriptor {
        MetricDescriptor {
            name,
            field: "f",
            kind,
            value_type: "u64",
            help: "h",
            unit: None,
            common_labels: &[],
            axis: None,
            buckets: None,
            max_series: 8,
            max_label_sets: 8,
            aliases: &[],
        }
    }

    #[test]
    fn a_gauge_named_like_a_counters_sample_is_refused() {
        let mut registry = Registry::default();
        registry.register("app:requests", "h", Counter::<u64>::default());
        let err = check_registration(
            &registry,
            &[descriptor("app:requests_total", MetricKind::Gauge)],
            &RegisterOptions::new(),
        )
        .unwrap_err();
        assert_eq!(err.clashes_on, "app:requests_total");
        assert_eq!(err.existing, "app:requests");
        assert_eq!(err.existing_type, "counter");
    }

    #[test]
    fn a_histograms_samples_are_claimed_and_distinct_names_pass() {
        let mut registry = Registry::default();
        registry.register("app:latency_count", "h", Gauge::<i64>::default());
        let options = RegisterOptions::new();
        let err = check_registration(
            &registry,
            &[descriptor("app:latency", MetricKind::Histogram)],
            &options,
        )
        .unwrap_err();
        assert_eq!(err.clashes_on, "app:latency_count");
        assert!(check_registration(
            &registry,
            &[descriptor("app:latency_seconds", MetricKind::Histogram)],
            &options
        )
        .is_ok());
        // Among the new descriptors themselves.
        let err = check_registration(
            &Registry::default(),
            &[
                descriptor("a", MetricKind::Counter),
                descriptor("a_created", MetricKind::Gauge),
            ],
            &options,
        )
        .unwrap_err();
        assert_eq!(
            (err.name.as_str(), err.existing.as_str()),
            ("a_created", "a")
        );
    }
}
