//! [`FamilyError`]: why a run-time family was refused.

use std::fmt;

use crate::buckets::BucketError;
use crate::descriptor::MetricKind;
use crate::registry::RegistrationError;

/// Why [`RuntimeFamilies::register`](super::RuntimeFamilies::register) or
/// [`RuntimeFamily::get_or_create`](super::RuntimeFamily::get_or_create) refused its input: one variant per
/// rule, the same rules `#[derive(MetricHandles)]` enforces at compile time. Nothing is
/// registered or created when an error is returned.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum FamilyError {
    /// The name does not match `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    InvalidName {
        /// The name as given.
        name: String,
    },
    /// A counter's name ends in `_total`, which the exposition appends (`x_total_total`).
    CounterNameEndsInTotal {
        /// The name as given.
        name: String,
    },
    /// The help text is empty.
    EmptyHelp {
        /// The family's name.
        name: String,
    },
    /// The help text ends in `.`, which the exposition appends (whitespace after the `.` is
    /// trimmed, so `"Counts. "` and `"Counts.\n"` end in `.` too).
    HelpEndsWithPeriod {
        /// The family's name.
        name: String,
    },
    /// The unit is not lower-case letters, digits and `_`, starting with a letter.
    InvalidUnit {
        /// The family's name.
        name: String,
        /// The unit as given.
        unit: String,
    },
    /// A histogram was described without buckets.
    MissingBuckets {
        /// The family's name.
        name: String,
    },
    /// A counter or gauge was described with buckets.
    UnexpectedBuckets {
        /// The family's name.
        name: String,
        /// The family's kind.
        kind: MetricKind,
    },
    /// The buckets are empty, not finite or not strictly increasing.
    InvalidBuckets {
        /// The family's name.
        name: String,
        /// What is wrong with them.
        error: BucketError,
    },
    /// A label key does not match `[a-zA-Z_][a-zA-Z0-9_]*`.
    InvalidLabelKey {
        /// The family's name.
        name: String,
        /// The key as given.
        key: String,
    },
    /// A label key is reserved: `le`, `quantile`, `otel_metric_overflow`, or starts with `__`.
    ReservedLabelKey {
        /// The family's name.
        name: String,
        /// The key as given.
        key: String,
    },
    /// A label key appears twice (among the extra keys, or repeating a common key).
    DuplicateLabelKey {
        /// The family's name.
        name: String,
        /// The repeated key.
        key: String,
    },
    /// A name the family would write is written by a family already in the registry (or
    /// reserved in this set): the error names both. Also carries
    /// [`RegistrationError::InvalidName`] when the registry's prefix makes the family's name
    /// invalid (the name itself is checked first, as [`InvalidName`](Self::InvalidName)).
    NameTaken(Box<RegistrationError>),
    /// The member type asked for does not record the kind the spec declares.
    KindMismatch {
        /// The family's name.
        name: String,
        /// The kind the spec declares.
        declared: MetricKind,
        /// The kind of the member type asked for.
        requested: MetricKind,
    },
    /// `get_or_create` got, or a label set declared with
    /// [`FamilySpec::precreate`](super::FamilySpec::precreate) has, a different number of
    /// extra label values than the family has keys.
    LabelValueCount {
        /// The family's name.
        name: String,
        /// How many extra keys the family has.
        expected: usize,
        /// How many values were given.
        got: usize,
    },
    /// A label set declared with [`FamilySpec::precreate`](super::FamilySpec::precreate) is
    /// over the size limits of extra labels: a value over
    /// [`MAX_LABEL_VALUE_LEN`](crate::limits::MAX_LABEL_VALUE_LEN) bytes, or all of them over
    /// [`MAX_LABEL_SET_LEN`](crate::limits::MAX_LABEL_SET_LEN), as written in the exposition.
    PrecreatedLabelsTooLarge {
        /// The family's name.
        name: String,
        /// The set's position among the declared ones, from 0.
        set: usize,
    },
    /// A label set is declared twice with [`FamilySpec::precreate`](super::FamilySpec::precreate).
    DuplicatePrecreatedLabels {
        /// The family's name.
        name: String,
        /// The repeated extra label values.
        values: Vec<String>,
    },
    /// More label sets are declared with
    /// [`FamilySpec::precreate`](super::FamilySpec::precreate) than the family's series limit
    /// holds.
    TooManyPrecreatedLabels {
        /// The family's name.
        name: String,
        /// How many label sets are declared.
        sets: usize,
        /// The family's series limit.
        max_series: usize,
    },
}

impl fmt::Display for FamilyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FamilyError::InvalidName { name } => write!(
                f,
                "`{name}` is not a valid Prometheus metric name (use letters, digits, `_` and `:`, not starting with a digit)"
            ),
            FamilyError::CounterNameEndsInTotal { name } => write!(
                f,
                "counter `{name}` ends in `_total`, which the exposition appends: register it as `{}`",
                name.trim_end_matches("_total")
            ),
            FamilyError::EmptyHelp { name } => write!(f, "`{name}` has no help text"),
            FamilyError::HelpEndsWithPeriod { name } => write!(
                f,
                "the help text of `{name}` ends in `.` (trailing whitespace aside), which the exposition appends: drop it"
            ),
            FamilyError::InvalidUnit { name, unit } => write!(
                f,
                "`{unit}` (unit of `{name}`) is not a valid unit (use lower-case letters, digits and `_`)"
            ),
            FamilyError::MissingBuckets { name } => {
                write!(f, "histogram `{name}` needs buckets")
            }
            FamilyError::UnexpectedBuckets { name, kind } => write!(
                f,
                "`{name}` is a {} and cannot have buckets",
                kind.as_str()
            ),
            FamilyError::InvalidBuckets { name, error } => {
                write!(f, "buckets of `{name}`: {error}")
            }
            FamilyError::InvalidLabelKey { name, key } => write!(
                f,
                "`{key}` (label of `{name}`) is not a valid Prometheus label key (use letters, digits and `_`, not starting with a digit)"
            ),
            FamilyError::ReservedLabelKey { name, key } => write!(
                f,
                "label key `{key}` of `{name}` is reserved (`le`, `quantile`, `otel_metric_overflow` and keys starting with `__`)"
            ),
            FamilyError::DuplicateLabelKey { name, key } => {
                write!(f, "label key `{key}` appears twice in `{name}`")
            }
            FamilyError::NameTaken(error) => fmt::Display::fmt(error, f),
            FamilyError::KindMismatch {
                name,
                declared,
                requested,
            } => write!(
                f,
                "`{name}` is declared a {} but was registered as a {}",
                declared.as_str(),
                requested.as_str()
            ),
            FamilyError::LabelValueCount {
                name,
                expected,
                got,
            } => write!(
                f,
                "`{name}` has {expected} extra label key(s) but {got} value(s) were given"
            ),
            FamilyError::PrecreatedLabelsTooLarge { name, set } => write!(
                f,
                "pre-created label set {set} of `{name}` is over the size limits (each value at most {} bytes, all of them at most {}, as written)",
                crate::limits::MAX_LABEL_VALUE_LEN,
                crate::limits::MAX_LABEL_SET_LEN
            ),
            FamilyError::DuplicatePrecreatedLabels { name, values } => write!(
                f,
                "pre-created label values {values:?} appear twice in `{name}`"
            ),
            FamilyError::TooManyPrecreatedLabels {
                name,
                sets,
                max_series,
            } => write!(
                f,
                "`{name}` pre-creates {sets} label sets but holds at most {max_series} series: raise `max_series` or declare fewer"
            ),
        }
    }
}

impl std::error::Error for FamilyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FamilyError::NameTaken(error) => Some(error.as_ref()),
            _ => None,
        }
    }
}
