//! A Markdown metric catalogue generated from any struct's `DESCRIPTORS`.
//!
//! Every `#[derive(MetricHandles)]` struct has a `DESCRIPTORS` table: each metric's name, type,
//! labels, buckets, help and deprecated aliases. [`Catalogue`] renders such tables as a Markdown
//! document (a summary table per section, then one entry per metric), so the reference of the
//! metrics a service exports is generated from the same declaration that registers them and
//! cannot drift from it. Check the generated file into the repository and compare it in a test
//! to notice when it is stale.
//!
//! ```
//! use metric_handles::catalogue::Catalogue;
//! use metric_handles::{Counter, Family, MetricHandles};
//!
//! #[derive(MetricHandles)]
//! pub struct CacheMetrics {
//!     /// Cache lookups
//!     #[metric(name = "cache_lookups")]
//!     pub lookups: Family<metric_handles::NoLabels, Counter>,
//! }
//!
//! let markdown = Catalogue::new("Cache metrics")
//!     .intro("Everything the cache exports.")
//!     .section("Lookups", CacheMetrics::DESCRIPTORS)
//!     .detail("Owner", |_| Some("the cache team".to_owned()))
//!     .to_markdown();
//! assert!(markdown.starts_with("# Cache metrics\n"));
//! assert!(markdown.contains("### `cache_lookups`"));
//! assert!(markdown.contains("* **Type:** counter, exposed as `cache_lookups_total`"));
//! assert!(markdown.contains("* **Owner:** the cache team"));
//! ```

use std::fmt;

use crate::buckets::Buckets;
use crate::descriptor::{LabelAxis, MetricDescriptor};
use crate::registry::Registry;

/// How a section's families are exported: the prefix and const labels of the registry level
/// they are registered in ([`Catalogue::section_in`]).
#[derive(Clone, Debug, Default)]
struct ExportedAs {
    prefix: Option<String>,
    const_labels: Vec<(String, String)>,
}

impl ExportedAs {
    /// `name` under the prefix, as the exposition writes it.
    fn name(&self, name: &str) -> String {
        match &self.prefix {
            Some(prefix) => format!("{prefix}_{name}"),
            None => name.to_owned(),
        }
    }
}

/// Extra text for one metric's entry, or `None` to leave the line out.
type DetailFn = Box<dyn Fn(&MetricDescriptor) -> Option<String>>;

/// A Markdown catalogue of metric descriptors: a title, an introduction, then one section per
/// descriptor table.
pub struct Catalogue {
    title: String,
    intro: Vec<String>,
    sections: Vec<(String, &'static [MetricDescriptor], ExportedAs)>,
    details: Vec<(String, DetailFn)>,
    bucket_names: Vec<(String, &'static [f64])>,
}

impl Catalogue {
    /// An empty catalogue titled `title` (rendered as the `#` heading).
    pub fn new(title: impl Into<String>) -> Self {
        Catalogue {
            title: title.into(),
            intro: Vec::new(),
            sections: Vec::new(),
            details: Vec::new(),
            bucket_names: Vec::new(),
        }
    }

    /// Adds a Markdown paragraph under the title; paragraphs keep the order they are added in.
    pub fn intro(mut self, markdown: impl Into<String>) -> Self {
        self.intro.push(markdown.into());
        self
    }

    /// Adds a `##` section listing `descriptors` (typically `SomeMetrics::DESCRIPTORS`).
    pub fn section(
        mut self,
        title: impl Into<String>,
        descriptors: &'static [MetricDescriptor],
    ) -> Self {
        self.sections
            .push((title.into(), descriptors, ExportedAs::default()));
        self
    }

    /// Adds a `##` section listing `descriptors` as they are exported from `registry`, the
    /// level of a registry tree they are registered in: every name carries its prefix
    /// ([`Registry::sub_registry_with_prefix`]) and every entry its const labels
    /// ([`Registry::sub_registry_with_labels`]). Taking both from the registry itself keeps the
    /// catalogue from showing names that are not exported.
    ///
    /// ```
    /// use metric_handles::catalogue::Catalogue;
    /// use metric_handles::{Counter, Family, MetricHandles, NoLabels, Registry};
    ///
    /// #[derive(MetricHandles)]
    /// pub struct CacheMetrics {
    ///     /// Cache lookups
    ///     #[metric(name = "cache_lookups")]
    ///     pub lookups: Family<NoLabels, Counter>,
    /// }
    ///
    /// let mut registry = Registry::default();
    /// let acme = registry
    ///     .sub_registry_with_prefix("acme")
    ///     .sub_registry_with_label(("node".into(), "a".into()));
    /// CacheMetrics::register(acme);
    /// let markdown = Catalogue::new("Cache metrics")
    ///     .section_in("Lookups", CacheMetrics::DESCRIPTORS, acme)
    ///     .to_markdown();
    /// assert!(markdown.contains("### `acme_cache_lookups`"));
    /// assert!(markdown.contains("* **Type:** counter, exposed as `acme_cache_lookups_total`"));
    /// assert!(markdown.contains("* **Const labels:** `node=\"a\"`"));
    /// ```
    pub fn section_in(
        mut self,
        title: impl Into<String>,
        descriptors: &'static [MetricDescriptor],
        registry: &Registry,
    ) -> Self {
        let exported = ExportedAs {
            prefix: registry.prefix().map(str::to_owned),
            const_labels: registry
                .const_labels()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        };
        self.sections.push((title.into(), descriptors, exported));
        self
    }

    /// Adds a `* **label:** text` line to every metric entry for which `text` returns `Some`
    /// (for example how the metric is computed, or who owns it).
    pub fn detail(
        mut self,
        label: impl Into<String>,
        text: impl Fn(&MetricDescriptor) -> Option<String> + 'static,
    ) -> Self {
        self.details.push((label.into(), Box::new(text)));
        self
    }

    /// Names a bucket list in the summary tables: a histogram whose bounds equal `bounds` shows
    /// `name` instead of the whole list.
    pub fn bucket_name(mut self, name: impl Into<String>, bounds: &'static [f64]) -> Self {
        self.bucket_names.push((name.into(), bounds));
        self
    }

    /// Every descriptor of every section, in order.
    pub fn descriptors(&self) -> impl Iterator<Item = &MetricDescriptor> {
        self.sections.iter().flat_map(|(_, d, _)| d.iter())
    }

    /// The catalogue as Markdown.
    pub fn to_markdown(&self) -> String {
        self.to_string()
    }

    fn write_entry(
        &self,
        out: &mut fmt::Formatter<'_>,
        d: &MetricDescriptor,
        exported: &ExportedAs,
    ) -> fmt::Result {
        write!(out, "\n### `{}`\n\n", exported.name(d.name))?;
        writeln!(
            out,
            "* **Type:** {}, exposed as `{}`",
            d.kind.as_str(),
            exported.name(&d.exposed_name())
        )?;
        writeln!(out, "* **Labels:** {}", labels(d))?;
        if !exported.const_labels.is_empty() {
            let labels: Vec<String> = exported
                .const_labels
                .iter()
                .map(|(k, v)| format!("`{k}=\"{v}\"`"))
                .collect();
            writeln!(out, "* **Const labels:** {}", labels.join(", "))?;
        }
        // Every enum axis lists its values: the field's axis, or each axis of a grid.
        let axes: &[LabelAxis] = match &d.axis {
            Some(LabelAxis::Grid { axes }) => axes,
            Some(axis) => std::slice::from_ref(axis),
            None => &[],
        };
        for axis in axes {
            if let LabelAxis::Enum { key, values } = axis {
                let values: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
                writeln!(out, "* **`{key}` values:** {}", values.join(", "))?;
            }
        }
        if let Some(buckets) = &d.buckets {
            let bounds: Vec<String> = buckets.bounds().iter().map(|b| format!("{b}")).collect();
            writeln!(
                out,
                "* **Buckets:** `{buckets}`: {} ({} bounds)",
                bounds.join(", "),
                bounds.len()
            )?;
        }
        writeln!(out, "* **Help:** {}.", d.help)?;
        if let Some(computed) = d.computed {
            writeln!(out, "* **Computed:** {computed}")?;
        }
        for (label, text) in &self.details {
            if let Some(text) = text(d) {
                writeln!(out, "* **{label}:** {text}")?;
            }
        }
        for alias in d.aliases {
            writeln!(
                out,
                "* **Deprecated alias:** `{}`, shown with `show_hidden_metrics_for_version(\"{}\")` or an older version",
                alias.name, alias.deprecated_in
            )?;
        }
        writeln!(out, "* **Field:** `{}` (`{}`)", d.field, d.value_type)
    }

    /// The bucket column of the summary table: a registered name, or the specification.
    fn bucket_summary(&self, buckets: &Buckets) -> String {
        let bounds = buckets.bounds();
        match self
            .bucket_names
            .iter()
            .find(|(_, named)| *named == bounds.as_slice())
        {
            Some((name, named)) => format!("`{name}` ({} bounds)", named.len()),
            None => format!("`{buckets}`"),
        }
    }
}

impl fmt::Display for Catalogue {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(out, "# {}", self.title)?;
        for paragraph in &self.intro {
            write!(out, "\n{paragraph}\n")?;
        }
        for (title, descriptors, exported) in &self.sections {
            write!(
                out,
                "\n## {title}\n\n| name | type | labels | buckets |\n|---|---|---|---|\n"
            )?;
            for d in descriptors.iter() {
                let name = exported.name(d.name);
                writeln!(
                    out,
                    "| [`{name}`](#{}) | {} | {} | {} |",
                    anchor(&name),
                    d.kind.as_str(),
                    labels(d),
                    d.buckets
                        .map_or_else(String::new, |b| self.bucket_summary(&b))
                )?;
            }
            for d in descriptors.iter() {
                self.write_entry(out, d, exported)?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Catalogue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Catalogue")
            .field("title", &self.title)
            .field("sections", &self.sections.len())
            .finish_non_exhaustive()
    }
}

fn labels(d: &MetricDescriptor) -> String {
    let keys: Vec<String> = d.label_keys().iter().map(|k| format!("`{k}`")).collect();
    keys.join(", ")
}

/// The GitHub-style anchor of a `### \`name\`` heading: lower case, punctuation dropped.
fn anchor(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::descriptor::{Alias, MetricKind};

    const HISTOGRAM: MetricDescriptor = MetricDescriptor {
        name: "job:latency",
        field: "latency",
        kind: MetricKind::Histogram,
        value_type: "Histogram",
        help: "Job latency",
        computed: Some("Observed once per job"),
        unit: Some("seconds"),
        common_labels: &["queue"],
        axis: Some(LabelAxis::Enum {
            key: "outcome",
            values: &["ok", "failed"],
        }),
        buckets: Some(Buckets::Explicit(&[0.1, 1.0])),
        native: None,
        max_series: 8,
        max_label_sets: 8,
        aliases: &[Alias {
            name: "job:old_latency",
            deprecated_in: "1.2",
        }],
    };

    const ALL: &[MetricDescriptor] = &[HISTOGRAM];

    #[test]
    fn entries_show_every_descriptor_fact_and_named_buckets() {
        let md = Catalogue::new("Jobs")
            .intro("First.")
            .intro("Second.")
            .section("All", ALL)
            .bucket_name("FAST", &[0.1, 1.0])
            .detail("Owner", |d| Some(format!("the owner of {}", d.field)))
            .detail("Never", |_| None)
            .to_markdown();
        assert!(md.starts_with("# Jobs\n\nFirst.\n\nSecond.\n\n## All\n"));
        assert!(md.contains(
            "| [`job:latency`](#joblatency) | histogram | `queue`, `outcome` | `FAST` (2 bounds) |"
        ));
        assert!(md.contains("* **Type:** histogram, exposed as `job:latency_seconds`"));
        assert!(md.contains("* **`outcome` values:** `ok`, `failed`"));
        assert!(md.contains("* **Buckets:** `[0.1, 1.0]`: 0.1, 1 (2 bounds)"));
        assert!(md.contains("* **Help:** Job latency."));
        // The descriptor's own text first, then the catalogue's details.
        assert!(md.contains(
            "* **Help:** Job latency.\n* **Computed:** Observed once per job\n* **Owner:** the owner of latency\n"
        ));
        assert!(!md.contains("Never"));
        assert!(
            md.contains("`job:old_latency`, shown with `show_hidden_metrics_for_version(\"1.2\")`")
        );
        assert!(md.contains("* **Field:** `latency` (`Histogram`)"));
    }

    #[test]
    fn a_section_in_a_registry_shows_the_names_its_exposition_writes() {
        use crate::{ExpositionFormat, Histogram, NoLabels};
        const LATENCY: MetricDescriptor = MetricDescriptor {
            common_labels: &[],
            axis: None,
            aliases: &[],
            ..HISTOGRAM
        };
        let mut registry = Registry::default();
        let jobs = registry
            .sub_registry_with_prefix("acme")
            .sub_registry_with_label(("node".into(), "a".into()));
        let family = crate::family::register::register_family::<NoLabels, Histogram>(
            jobs,
            &LATENCY,
            &crate::RegisterOptions::new(),
        );
        family.get_or_create(&NoLabels).observe(0.5);
        const SECTION: &[MetricDescriptor] = &[LATENCY];
        let md = Catalogue::new("Jobs")
            .section_in("All", SECTION, jobs)
            .to_markdown();
        let text = ExpositionFormat::OpenMetrics.encode(&registry).unwrap();
        // The catalogue's name is the one the exposition declares, const label included.
        assert!(md.contains("### `acme_job:latency`"), "{md}");
        assert!(md.contains("exposed as `acme_job:latency_seconds`"), "{md}");
        assert!(md.contains("* **Const labels:** `node=\"a\"`"), "{md}");
        assert!(
            text.contains("# TYPE acme_job:latency_seconds histogram"),
            "{text}"
        );
        assert!(
            text.contains(r#"acme_job:latency_seconds_count{node="a"} 1"#),
            "{text}"
        );
    }

    #[test]
    fn unnamed_buckets_show_their_specification() {
        let md = Catalogue::new("Jobs").section("All", ALL).to_markdown();
        assert!(md.contains("| `[0.1, 1.0]` |"));
    }
}
