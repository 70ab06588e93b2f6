//! [`RegistrationError`]: why a family was refused, naming both sides of a clash.

use std::fmt;

/// One family, as the exposition would write it and as its registration named it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RegisteredFamily {
    /// The family name the exposition writes: the registry's prefix, the name, the unit
    /// (`acme_kv_keys`, `vllm:e2e_request_latency_seconds`).
    pub name: String,
    /// Its OpenMetrics type: `counter`, `gauge`, `histogram`, `gaugehistogram`, `info`,
    /// `stateset`, `summary` or `unknown`.
    pub metric_type: &'static str,
    /// What registered it: a derived struct's field (`` `EngineMetrics.ttft` ``),
    /// `` `Registry::register` ``, a collector, a plug-in family, ...
    pub registered_by: String,
    /// The const labels of the registry it was registered in (from
    /// [`Registry::sub_registry_with_label`](crate::Registry::sub_registry_with_label)).
    pub const_labels: Vec<(String, String)>,
}

impl RegisteredFamily {
    fn same_registration(&self, other: &RegisteredFamily) -> bool {
        self.name == other.name && self.registered_by == other.registered_by
    }
}

impl fmt::Display for RegisteredFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the {} `{}`", self.metric_type, self.name)?;
        if !self.const_labels.is_empty() {
            write!(f, " {}", ConstLabels(&self.const_labels))?;
        }
        write!(f, " (registered by {})", self.registered_by)
    }
}

/// `{key="value",...}`, for messages.
struct ConstLabels<'a>(&'a [(String, String)]);

impl fmt::Display for ConstLabels<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, (key, value)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{key}={value:?}")?;
        }
        f.write_str("}")
    }
}

/// A family could not be registered: the exposition would hold something every scraper
/// rejects. Nothing of the registration that failed is registered. (The families are boxed:
/// the error travels through every `register` function's `Result`.)
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistrationError {
    /// A name the new family would write (its family name, or a sample name such as
    /// `_total`, `_bucket`, `_count`, `_sum`, `_created`) is written by a family already in
    /// the registry, or among those being registered with it. Two families of one name, or a
    /// sample name two families write, make Python's OpenMetrics parser and promtool reject
    /// the scrape and a real Prometheus fail the target.
    NameTaken {
        /// The family being registered.
        family: Box<RegisteredFamily>,
        /// The name both would write.
        clashes_on: String,
        /// The family that writes it already.
        existing: Box<RegisteredFamily>,
    },
    /// A const label of the registry (or one of its parents) has the key of one of the
    /// family's own labels: every series would carry that key twice.
    ConstLabelRepeatsKey {
        /// The family being registered.
        family: Box<RegisteredFamily>,
        /// The repeated key.
        key: String,
    },
    /// A const label key of the registry is not a label name the exposition can carry
    /// (`[a-zA-Z_][a-zA-Z0-9_]*`, not `le`, `quantile`, `otel_metric_overflow`, nor starting
    /// with `__`).
    InvalidConstLabel {
        /// The family being registered.
        family: Box<RegisteredFamily>,
        /// The key as given.
        key: String,
    },
    /// The name the family would be exposed under (the registry's prefix, the name and the
    /// unit, joined by `_`) is not one every scraper accepts: it must match
    /// `[a-zA-Z_:][a-zA-Z0-9_:]*` (ASCII letters, digits, `_` and `:`, not starting with a
    /// digit), and a state set's, which is also the label key of its states, must match
    /// `[a-zA-Z_][a-zA-Z0-9_]*`. The text formats write names unquoted, so a space, a quote, a
    /// `.` or a non-ASCII letter would make the parsers reject the whole scrape. `family.name`
    /// is the refused name.
    InvalidName {
        /// The family being registered, under the name it would be exposed as.
        family: Box<RegisteredFamily>,
    },
    /// A [`RegisterOptions`](crate::RegisterOptions) override names no metric of the
    /// registration it was given to that it can change (a misspelt name, an alias, a metric of
    /// another struct, or one the override does not apply to: buckets for a counter, native
    /// buckets for anything but a histogram, an idle timeout without a `Dynamic` axis): it
    /// would change nothing. `family` is the name as given, of type `unknown`,
    /// registered by the override (`` `RegisterOptions::buckets` given to `EngineMetrics` ``).
    UnknownOverride {
        /// The name the override gave.
        family: Box<RegisteredFamily>,
        /// The builder that set it: `buckets`, `native`, `positions`, `max_series`,
        /// `max_label_sets` or `idle_timeout`.
        option: &'static str,
        /// The primary names of the metrics the registration registers that the override can
        /// change.
        known: Vec<String>,
    },
}

impl RegistrationError {
    /// The family whose registration was refused.
    pub fn family(&self) -> &RegisteredFamily {
        match self {
            RegistrationError::NameTaken { family, .. }
            | RegistrationError::ConstLabelRepeatsKey { family, .. }
            | RegistrationError::InvalidConstLabel { family, .. }
            | RegistrationError::InvalidName { family }
            | RegistrationError::UnknownOverride { family, .. } => family,
        }
    }

    /// The name the new family and an existing one would both write, for
    /// [`NameTaken`](RegistrationError::NameTaken).
    pub fn clashes_on(&self) -> Option<&str> {
        match self {
            RegistrationError::NameTaken { clashes_on, .. } => Some(clashes_on),
            _ => None,
        }
    }

    /// The family that writes the name already, for
    /// [`NameTaken`](RegistrationError::NameTaken).
    pub fn existing(&self) -> Option<&RegisteredFamily> {
        match self {
            RegistrationError::NameTaken { existing, .. } => Some(existing),
            _ => None,
        }
    }
}

impl fmt::Display for RegistrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistrationError::NameTaken {
                family,
                existing,
                clashes_on,
            } if family.same_registration(existing)
                && family.const_labels == existing.const_labels =>
            {
                write!(
                    f,
                    "{} registers the {} `{}` a second time in this registry: register each \
                     metrics struct once per registry, and record several label sets (models, \
                     engines) through that one registration",
                    family.registered_by, family.metric_type, clashes_on
                )
            }
            RegistrationError::NameTaken {
                family, existing, ..
            } if family.same_registration(existing) => write!(
                f,
                "{} registers the {} `{}` a second time, with the const labels {} beside {}: \
                 the exposition would hold two families named `{}`, which scrapers reject; \
                 register it once and put the label into its label set instead",
                family.registered_by,
                family.metric_type,
                family.name,
                ConstLabels(&family.const_labels),
                ConstLabels(&existing.const_labels),
                family.name
            ),
            RegistrationError::NameTaken {
                family,
                clashes_on,
                existing,
            } => write!(
                f,
                "{} would write `{}` (as the {} `{}`), but {} writes it already: scrapers reject \
                 an exposition in which two families write one name; rename one of them",
                family.registered_by, clashes_on, family.metric_type, family.name, existing
            ),
            RegistrationError::ConstLabelRepeatsKey { family, key } => write!(
                f,
                "{} (the {} `{}`) has a label `{key}`, and so do the const labels of the \
                 registry it is registered in: every series would carry `{key}` twice; rename \
                 one of them",
                family.registered_by, family.metric_type, family.name
            ),
            RegistrationError::InvalidConstLabel { family, key } => write!(
                f,
                "the registry {} is registered in has the const label `{key}`, which is not a \
                 label name the exposition can carry: use `[a-zA-Z_][a-zA-Z0-9_]*`, not `le`, \
                 `quantile`, `otel_metric_overflow` or a name starting with `__`",
                family.registered_by
            ),
            RegistrationError::InvalidName { family } if family.metric_type == "stateset" => {
                write!(
                    f,
                    "{} would expose the state set {:?}, which is not a label key: a state set's \
                     name (with the registry's prefix and the unit, joined by `_`) is also the \
                     label key of its states, so it must match `[a-zA-Z_][a-zA-Z0-9_]*` (ASCII \
                     letters, digits and `_`, not starting with a digit; no `:`)",
                    family.registered_by, family.name
                )
            }
            RegistrationError::InvalidName { family } => write!(
                f,
                "{} would expose the {} {:?}, which is not a metric name scrapers accept: a \
                 metric name (with the registry's prefix and the unit, joined by `_`) must match \
                 `[a-zA-Z_:][a-zA-Z0-9_:]*` (ASCII letters, digits, `_` and `:`, not starting \
                 with a digit), or parsers reject the whole scrape",
                family.registered_by, family.metric_type, family.name
            ),
            RegistrationError::UnknownOverride { family, known, .. } => {
                let known = if known.is_empty() {
                    "none".to_owned()
                } else {
                    known
                        .iter()
                        .map(|name| format!("`{name}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                write!(
                    f,
                    "{} names `{}`, which is none of the metrics registered with it that it can \
                     change ({known}): an override of a metric not registered, or of one it does \
                     not apply to, changes nothing; give the primary name of one of these, or \
                     leave it out (`RegisterOptions::for_descriptors` keeps the overrides of one \
                     struct's metrics)",
                    family.registered_by, family.name,
                )
            }
        }
    }
}

impl std::error::Error for RegistrationError {}
