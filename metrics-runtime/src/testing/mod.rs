//! Helpers for testing the metrics a crate records: read a sample's current value by name and
//! labels, compare a family's exposition with the lines a test expects, and fail a concurrent
//! scenario that deadlocks rather than hang ([`assert_finishes`]).
//!
//! A downstream crate's tests record through its handles, then ask the registry what a scraper
//! would read, without parsing text by hand (client_golang's `testutil` and metrics-util's
//! `DebuggingRecorder` serve the same need). Everything here reads the registry's OpenMetrics
//! exposition, so a test sees exactly what Prometheus would scrape, suffixes included: a
//! counter `requests` is the sample `requests_total`, a histogram `latency_seconds` has
//! `latency_seconds_count`, `_sum` and one `_bucket` per bound.
//!
//! ```
//! use metric_handles::testing::{assert_families, Scrape};
//! use metric_handles::{Counter, Family, LabelSet, MetricHandles, Registry};
//!
//! #[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
//! struct Route {
//!     path: String,
//! }
//!
//! #[derive(MetricHandles)]
//! #[metric_handles(handles = RouteHandles, labels = Route)]
//! struct ServiceMetrics {
//!     /// Requests served
//!     #[metric(name = "requests")]
//!     requests: Family<Route, Counter>,
//! }
//!
//! let mut registry = Registry::default();
//! let metrics = ServiceMetrics::register(&mut registry);
//! metrics.resolve(&Route { path: "/kv".into() }).requests.inc_by(3);
//!
//! let scrape = Scrape::of(&registry);
//! assert_eq!(scrape.value("requests_total", &[("path", "/kv")]), Some(3.0));
//! assert_eq!(scrape.value("requests_total", &[("path", "/other")]), None);
//!
//! let expected = [
//!     "# TYPE requests counter",
//!     "# HELP requests Requests served.",
//!     r#"requests_total{path="/kv"} 3"#,
//! ]
//! .join("\n");
//! assert_families(&registry, &expected);
//! ```

mod parse;
mod watchdog;

use std::fmt::Write as _;

pub use parse::{ParseError, Sample};
pub use watchdog::assert_finishes;

use crate::exposition::format::ExpositionFormat;
use crate::registry::Registry;
use parse::{parse_line, Line};

/// A registry's exposition, read back into samples grouped by family.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scrape {
    families: Vec<ScrapedFamily>,
}

/// One family of a [`Scrape`]: its name, its lines as written, and its samples.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScrapedFamily {
    /// The family's name, as its `# HELP`/`# TYPE` lines give it (without sample suffixes).
    pub name: String,
    /// The family's lines as written, metadata included, without line feeds.
    pub lines: Vec<String>,
    /// The family's samples, in the order written.
    pub samples: Vec<Sample>,
}

impl Scrape {
    /// Encodes `registry` in OpenMetrics text and reads it back.
    ///
    /// # Panics
    ///
    /// If a collector fails to encode, or the exposition does not parse: both are bugs a test
    /// should stop at, with the reason.
    #[track_caller]
    pub fn of(registry: &Registry) -> Self {
        let text = match ExpositionFormat::OpenMetrics.encode(registry) {
            Ok(text) => text,
            Err(_) => panic!("the registry failed to encode (a metric or collector failed)"),
        };
        match Self::parse(&text) {
            Ok(scrape) => scrape,
            Err(error) => panic!("the exposition does not parse: {error}\n{text}"),
        }
    }

    /// Reads an exposition in either text format. Each `# HELP`, `# TYPE` or `# UNIT` line of a
    /// name other than the current family's starts a family; samples before any (a bare
    /// exposition) go to a family named after the first of them.
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let mut families: Vec<ScrapedFamily> = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let parsed = parse_line(line).map_err(|reason| ParseError {
                line_number: index + 1,
                line: line.to_owned(),
                reason,
            })?;
            match parsed {
                Line::Metadata { family } => {
                    if families.last().is_none_or(|last| last.name != family) {
                        families.push(ScrapedFamily {
                            name: family,
                            ..ScrapedFamily::default()
                        });
                    }
                }
                Line::Comment => continue,
                Line::Sample(sample) => {
                    if families.is_empty() {
                        families.push(ScrapedFamily {
                            name: sample.name.clone(),
                            ..ScrapedFamily::default()
                        });
                    }
                    if let Some(last) = families.last_mut() {
                        last.samples.push(sample);
                    }
                }
            }
            if let Some(last) = families.last_mut() {
                last.lines.push(line.to_owned());
            }
        }
        Ok(Scrape { families })
    }

    /// Every family, in the order written.
    pub fn families(&self) -> &[ScrapedFamily] {
        &self.families
    }

    /// The family named `name` (without sample suffixes: `requests`, not `requests_total`).
    pub fn family(&self, name: &str) -> Option<&ScrapedFamily> {
        self.families.iter().find(|family| family.name == name)
    }

    /// Every sample, in the order written.
    pub fn samples(&self) -> impl Iterator<Item = &Sample> {
        self.families.iter().flat_map(|family| &family.samples)
    }

    /// The value of the sample named `name` (suffix included) whose labels are exactly
    /// `labels`, in any order; `None` when there is none.
    pub fn value(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        self.samples()
            .find(|sample| sample.name == name && sample.has_exactly(labels))
            .map(|sample| sample.value)
    }

    /// The sum of the samples named `name` that have every label of `labels` (and maybe
    /// others): `sum_of("requests_total", &[("code", "200")])` adds up every route's count.
    /// `None` when no sample matches.
    pub fn sum_of(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        self.samples()
            .filter(|sample| sample.name == name && sample.has_all(labels))
            .map(|sample| sample.value)
            .reduce(|total, value| total + value)
    }
}

/// The value of the sample named `name` (suffix included) with exactly `labels`, as a scrape of
/// `registry` reads it now: `Scrape::of(registry).value(name, labels)`.
#[track_caller]
pub fn sample_value(registry: &Registry, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    Scrape::of(registry).value(name, labels)
}

/// Asserts that the families named in `expected` are exposed exactly as `expected` writes them.
///
/// `expected` is OpenMetrics text for one or more families (each opened by its `# TYPE` or
/// `# HELP` line); lines are compared with their surrounding whitespace trimmed and empty lines
/// dropped, so the text can be indented in a raw string. Families of the registry that
/// `expected` does not name are ignored, so a test states only what it checks. Within a family,
/// every line counts: a missing sample, an extra one and a different value all fail.
///
/// # Panics
///
/// When a family differs, with the expected and exposed lines of each family that differs, or
/// when `expected` does not parse.
#[track_caller]
pub fn assert_families(registry: &Registry, expected: &str) {
    if let Err(report) = compare_families(&Scrape::of(registry), expected) {
        panic!("{report}");
    }
}

/// What [`assert_families`] checks, as a result: `Err` holds the report it panics with.
pub fn compare_families(scrape: &Scrape, expected: &str) -> Result<(), String> {
    let trimmed: String = expected
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .fold(String::new(), |mut text, line| {
            text.push_str(line);
            text.push('\n');
            text
        });
    let expected = Scrape::parse(&trimmed).map_err(|error| format!("expected text: {error}"))?;
    if expected.families.is_empty() {
        return Err("the expected text names no family".to_owned());
    }
    let mut report = String::new();
    for want in &expected.families {
        let mut got: Vec<&str> = match scrape.family(&want.name) {
            Some(family) => family.lines.iter().map(String::as_str).collect(),
            None => Vec::new(),
        };
        let mut want_lines: Vec<&str> = want.lines.iter().map(String::as_str).collect();
        // Metadata order is the encoder's business; a test states the lines.
        got.sort_by_key(|line| !line.starts_with('#'));
        want_lines.sort_by_key(|line| !line.starts_with('#'));
        let (got_meta, got_samples) = split_metadata(&got);
        let (want_meta, want_samples) = split_metadata(&want_lines);
        if sorted(got_meta) != sorted(want_meta) || got_samples != want_samples {
            let _ = write!(
                report,
                "family {:?} differs\n--- expected\n{}\n--- exposed\n{}\n",
                want.name,
                want_lines.join("\n"),
                if got.is_empty() {
                    "(no such family)".to_owned()
                } else {
                    got.join("\n")
                },
            );
        }
    }
    if report.is_empty() {
        Ok(())
    } else {
        Err(report)
    }
}

fn split_metadata<'a>(lines: &[&'a str]) -> (Vec<&'a str>, Vec<&'a str>) {
    lines.iter().partition(|line| line.starts_with('#'))
}

fn sorted(mut lines: Vec<&str>) -> Vec<&str> {
    lines.sort_unstable();
    lines
}

#[cfg(test)]
mod tests {
    use super::{compare_families, Scrape};

    const EXPOSITION: &str = "\
# HELP requests Requests served.
# TYPE requests counter
requests_total{path=\"/a\",code=\"200\"} 3
requests_total{path=\"/b\",code=\"200\"} 4
requests_total{path=\"/b\",code=\"500\"} 1
# HELP latency_seconds Latency.
# TYPE latency_seconds histogram
# UNIT latency_seconds seconds
latency_seconds_sum 0.5
latency_seconds_count 2
latency_seconds_bucket{le=\"0.1\"} 1
latency_seconds_bucket{le=\"+Inf\"} 2
# EOF
";

    #[test]
    fn values_are_found_by_exact_labels_in_any_order_and_summed_by_a_subset() {
        let scrape = Scrape::parse(EXPOSITION).unwrap();
        assert_eq!(scrape.families().len(), 2);
        assert_eq!(
            scrape.value("requests_total", &[("code", "200"), ("path", "/b")]),
            Some(4.0)
        );
        assert_eq!(scrape.value("requests_total", &[("path", "/b")]), None);
        assert_eq!(
            scrape.sum_of("requests_total", &[("code", "200")]),
            Some(7.0)
        );
        assert_eq!(scrape.sum_of("requests_total", &[("code", "404")]), None);
        assert_eq!(
            scrape.value("latency_seconds_bucket", &[("le", "+Inf")]),
            Some(2.0)
        );
        assert_eq!(scrape.family("latency_seconds").unwrap().samples.len(), 4);
    }

    #[test]
    fn families_compare_whole_with_metadata_in_any_order() {
        let scrape = Scrape::parse(EXPOSITION).unwrap();
        let expected = r#"
            # TYPE latency_seconds histogram
            # UNIT latency_seconds seconds
            # HELP latency_seconds Latency.
            latency_seconds_sum 0.5
            latency_seconds_count 2
            latency_seconds_bucket{le="0.1"} 1
            latency_seconds_bucket{le="+Inf"} 2
        "#;
        assert_eq!(compare_families(&scrape, expected), Ok(()));
    }

    #[test]
    fn a_missing_extra_or_different_sample_is_reported_with_both_sides() {
        let scrape = Scrape::parse(EXPOSITION).unwrap();
        let different = r#"
            # HELP requests Requests served.
            # TYPE requests counter
            requests_total{path="/a",code="200"} 3
            requests_total{path="/b",code="200"} 5
            requests_total{path="/b",code="500"} 1
        "#;
        let report = compare_families(&scrape, different).unwrap_err();
        assert!(report.contains("family \"requests\" differs"), "{report}");
        assert!(report.contains("--- exposed"), "{report}");
        let missing = different.replace("requests_total{path=\"/b\",code=\"500\"} 1", "");
        assert!(compare_families(&scrape, &missing).is_err());
        let absent = "# TYPE nothing counter\nnothing_total 1";
        assert!(compare_families(&scrape, absent)
            .unwrap_err()
            .contains("(no such family)"));
        assert!(compare_families(&scrape, "").is_err());
    }

    #[test]
    fn a_malformed_exposition_names_its_line() {
        let error = Scrape::parse("# HELP a b\na_total{x=1} 2\n").unwrap_err();
        assert_eq!(error.line_number, 2);
        assert_eq!(error.reason, "label without =\"");
    }
}
