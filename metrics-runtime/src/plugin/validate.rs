//! The rules a [`FamilySpec`] must satisfy: the derive's compile-time checks, at run time.

use super::error::FamilyError;
use super::spec::FamilySpec;
use crate::buckets;
use crate::declare::descriptor::MetricKind;
use crate::series::labels::OVERFLOW_LABEL;

/// Label keys that Prometheus or this crate reserve.
const RESERVED_KEYS: &[&str] = &["le", "quantile", OVERFLOW_LABEL];

/// Checks everything about `spec` that does not depend on other families; `common_keys` are
/// the label keys every series of the family carries first.
pub(crate) fn validate(spec: &FamilySpec, common_keys: &[&str]) -> Result<(), FamilyError> {
    let name = || spec.name.clone();
    if !is_metric_name(&spec.name) {
        return Err(FamilyError::InvalidName { name: name() });
    }
    if spec.kind == MetricKind::Counter && spec.name.ends_with("_total") {
        return Err(FamilyError::CounterNameEndsInTotal { name: name() });
    }
    if spec.help.trim().is_empty() {
        return Err(FamilyError::EmptyHelp { name: name() });
    }
    // The exposition writes the help trimmed, then a `.`: a period followed only by
    // whitespace (`". "`, `".\n"`) would still be written `..`.
    if spec.help.trim_end().ends_with('.') {
        return Err(FamilyError::HelpEndsWithPeriod { name: name() });
    }
    if let Some(unit) = &spec.unit {
        if !is_unit(unit) {
            return Err(FamilyError::InvalidUnit {
                name: name(),
                unit: unit.clone(),
            });
        }
    }
    match (spec.kind, &spec.buckets) {
        // Native buckets alone are a complete histogram.
        (MetricKind::Histogram, None) if spec.native.is_some() => {}
        (MetricKind::Histogram, None) => return Err(FamilyError::MissingBuckets { name: name() }),
        (MetricKind::Histogram, Some(bounds)) => {
            buckets::validate(bounds).map_err(|error| FamilyError::InvalidBuckets {
                name: name(),
                error,
            })?
        }
        (kind, Some(_)) => {
            return Err(FamilyError::UnexpectedBuckets { name: name(), kind });
        }
        (kind, None) if kind != MetricKind::Histogram && spec.native.is_some() => {
            return Err(FamilyError::UnexpectedBuckets { name: name(), kind });
        }
        (_, None) => {}
    }
    for (i, key) in spec.extra_label_keys.iter().enumerate() {
        if !is_label_key(key) {
            return Err(FamilyError::InvalidLabelKey {
                name: name(),
                key: key.clone(),
            });
        }
        if key.starts_with("__") || RESERVED_KEYS.contains(&key.as_str()) {
            return Err(FamilyError::ReservedLabelKey {
                name: name(),
                key: key.clone(),
            });
        }
        let repeated = spec.extra_label_keys[..i].contains(key);
        if repeated || common_keys.contains(&key.as_str()) {
            return Err(FamilyError::DuplicateLabelKey {
                name: name(),
                key: key.clone(),
            });
        }
    }
    Ok(())
}

/// `[a-zA-Z_:][a-zA-Z0-9_:]*`
fn is_metric_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

/// `[a-zA-Z_][a-zA-Z0-9_]*`
fn is_label_key(key: &str) -> bool {
    let mut chars = key.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `[a-z][a-z0-9_]*`
fn is_unit(unit: &str) -> bool {
    let mut chars = unit.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}
