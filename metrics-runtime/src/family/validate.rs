//! The rules a [`FamilySpec`] must satisfy: the derive's compile-time checks, at run time.

use std::collections::HashSet;

use super::error::FamilyError;
use super::spec::FamilySpec;
use crate::buckets;
use crate::const_eq::bytes_eq;
use crate::descriptor::MetricKind;
use crate::labels::size::extra_labels_fit;
use crate::labels::OVERFLOW_LABEL;
use crate::names::{is_label_key, is_metric_name, is_unit};

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
        if is_reserved_key(key) {
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
    validate_precreated(spec)
}

/// Checks the label sets [`FamilySpec::precreate`] declares: no more of them than the series
/// limit, one value per extra key, each set within the size limits of extra labels (which
/// would otherwise send it to the overflow series), and none twice.
fn validate_precreated(spec: &FamilySpec) -> Result<(), FamilyError> {
    let name = || spec.name.clone();
    if spec.precreated.len() > spec.max_series {
        return Err(FamilyError::TooManyPrecreatedLabels {
            name: name(),
            sets: spec.precreated.len(),
            max_series: spec.max_series,
        });
    }
    let expected = spec.extra_label_keys.len();
    let mut seen = HashSet::with_capacity(spec.precreated.len());
    for (set, values) in spec.precreated.iter().enumerate() {
        if values.len() != expected {
            return Err(FamilyError::LabelValueCount {
                name: name(),
                expected,
                got: values.len(),
            });
        }
        let borrowed: Vec<&str> = values.iter().map(String::as_str).collect();
        if !extra_labels_fit(&spec.extra_label_keys, &borrowed) {
            return Err(FamilyError::PrecreatedLabelsTooLarge { name: name(), set });
        }
        if !seen.insert(values.as_slice()) {
            return Err(FamilyError::DuplicatePrecreatedLabels {
                name: name(),
                values: values.clone(),
            });
        }
    }
    Ok(())
}

/// Whether `key` is reserved: `__*` or one of [`RESERVED_KEYS`].
pub(super) const fn is_reserved_key(key: &str) -> bool {
    let bytes = key.as_bytes();
    (bytes.len() >= 2 && bytes[0] == b'_' && bytes[1] == b'_') || contains(RESERVED_KEYS, key)
}

/// Whether `keys` holds `key`.
pub(super) const fn contains(keys: &[&str], key: &str) -> bool {
    let mut i = 0;
    while i < keys.len() {
        if bytes_eq(keys[i].as_bytes(), key.as_bytes()) {
            return true;
        }
        i += 1;
    }
    false
}
