//! The ledger: every name the exposition of one [`Registry`](super::Registry) tree writes, and
//! which family writes it.
//!
//! A scraper rejects an exposition in which two families share a name, or in which a sample
//! name of one family (`x_total`, `h_count`, `a_created`) is another family's name or sample.
//! So a family claims its name and every sample name its type writes, with the registry's
//! prefix and unit applied exactly as the encoder applies them, and a claim that meets an
//! existing one is refused before anything is registered. One ledger is shared by a registry
//! and all its sub-registries (and by the plug-in families registered into them at run time),
//! so a clash across prefixes or const labels is seen too.

use std::collections::HashMap;
use std::sync::Arc;

use super::error::{RegisteredFamily, RegistrationError};
use crate::labels::{is_label_name, is_reserved_label_key};
use crate::names::{is_label_key, is_metric_name};

/// A family asking for its names.
#[derive(Clone, Debug)]
pub(crate) struct FamilyClaim {
    pub(crate) family: RegisteredFamily,
    /// The family's own label keys, when known (a declared family's), checked against the
    /// registry's const labels.
    pub(crate) label_keys: Vec<String>,
}

/// Every written name of one registry tree, with the family that writes it.
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    written: HashMap<String, Arc<RegisteredFamily>>,
}

impl Ledger {
    /// Checks `claims` against the ledger and against each other; changes nothing.
    pub(crate) fn check(&self, claims: &[FamilyClaim]) -> Result<(), RegistrationError> {
        let mut batch: HashMap<String, &RegisteredFamily> = HashMap::new();
        for claim in claims {
            check_name(&claim.family)?;
            check_const_labels(claim)?;
            for name in written_names(&claim.family.name, claim.family.metric_type) {
                let existing = self
                    .written
                    .get(&name)
                    .map(Arc::as_ref)
                    .or_else(|| batch.get(&name).copied());
                if let Some(existing) = existing {
                    return Err(RegistrationError::NameTaken {
                        family: Box::new(claim.family.clone()),
                        clashes_on: name,
                        existing: Box::new(existing.clone()),
                    });
                }
                batch.insert(name, &claim.family);
            }
        }
        Ok(())
    }

    /// Checks `claims` and, if none clashes, records them all.
    pub(crate) fn claim(&mut self, claims: Vec<FamilyClaim>) -> Result<(), RegistrationError> {
        self.check(&claims)?;
        for claim in claims {
            let family = Arc::new(claim.family);
            for name in written_names(&family.name, family.metric_type) {
                self.written.insert(name, Arc::clone(&family));
            }
        }
        Ok(())
    }

    /// Records families whatever the ledger holds already (reservations): the first family
    /// to write a name keeps it.
    pub(crate) fn record_existing(&mut self, families: impl IntoIterator<Item = RegisteredFamily>) {
        for family in families {
            let family = Arc::new(family);
            for name in written_names(&family.name, family.metric_type) {
                self.written
                    .entry(name)
                    .or_insert_with(|| Arc::clone(&family));
            }
        }
    }
}

/// The name the family is exposed under (prefix, name and unit) must be one every scraper
/// accepts: the text formats write it unquoted, so `[a-zA-Z_:][a-zA-Z0-9_:]*`; a state set's
/// is also the label key of its states, so `[a-zA-Z_][a-zA-Z0-9_]*`.
fn check_name(family: &RegisteredFamily) -> Result<(), RegistrationError> {
    let valid = if family.metric_type == "stateset" {
        is_label_key(&family.name)
    } else {
        is_metric_name(&family.name)
    };
    if valid {
        Ok(())
    } else {
        Err(RegistrationError::InvalidName {
            family: Box::new(family.clone()),
        })
    }
}

/// The const labels must be label names a scraper accepts, none repeated and none repeating
/// one of the family's own keys.
fn check_const_labels(claim: &FamilyClaim) -> Result<(), RegistrationError> {
    let family = &claim.family;
    for (i, (key, _)) in family.const_labels.iter().enumerate() {
        if !is_label_name(key) || is_reserved_label_key(key) {
            return Err(RegistrationError::InvalidConstLabel {
                family: Box::new(family.clone()),
                key: key.clone(),
            });
        }
        let repeated = family.const_labels[..i].iter().any(|(k, _)| k == key);
        if repeated || claim.label_keys.iter().any(|k| k == key) {
            return Err(RegistrationError::ConstLabelRepeatsKey {
                family: Box::new(family.clone()),
                key: key.clone(),
            });
        }
    }
    Ok(())
}

/// The names a family of `metric_type` writes in any format, its own name first. The `# TYPE`
/// line of the classic text names a counter `x_total`, and OpenMetrics reserves `_created` for
/// counters and histograms (Python's parser reads it as the creation time), so both are
/// claimed. A gauge histogram writes `_gcount` and `_gsum` in both text formats, and its
/// protobuf family is a `HISTOGRAM`, which Prometheus stores as `_bucket`, `_count` and `_sum`:
/// a gauge `x_count` beside it would be overwritten by the histogram's count.
pub(crate) fn written_names<'a>(
    family: &'a str,
    metric_type: &str,
) -> impl Iterator<Item = String> + 'a {
    let suffixes: &'static [&'static str] = match metric_type {
        "counter" => &["", "_total", "_created"],
        "histogram" => &["", "_bucket", "_count", "_sum", "_created"],
        "gaugehistogram" => &["", "_bucket", "_gcount", "_gsum", "_count", "_sum"],
        "summary" => &["", "_count", "_sum", "_created"],
        "info" => &["", "_info"],
        _ => &[""],
    };
    suffixes
        .iter()
        .map(move |suffix| format!("{family}{suffix}"))
}

/// The families an exposition declares (its `# TYPE` lines), as `(name, type)`.
pub(crate) fn declared_families(exposition: &str) -> impl Iterator<Item = (&str, &'static str)> {
    exposition.lines().filter_map(|line| {
        // The type is the last word: a name with a space in it is read whole (and refused).
        let (family, metric_type) = line.strip_prefix("# TYPE ")?.rsplit_once(' ')?;
        let metric_type = match metric_type {
            "counter" => "counter",
            "gauge" => "gauge",
            "histogram" => "histogram",
            "gaugehistogram" => "gaugehistogram",
            "summary" => "summary",
            "info" => "info",
            "stateset" => "stateset",
            _ => "unknown",
        };
        Some((family, metric_type))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(name: &str, metric_type: &'static str, by: &str) -> FamilyClaim {
        FamilyClaim {
            family: RegisteredFamily {
                name: name.to_owned(),
                metric_type,
                registered_by: by.to_owned(),
                const_labels: Vec::new(),
            },
            label_keys: vec!["engine".to_owned()],
        }
    }

    #[test]
    fn a_sample_name_of_one_family_is_refused_as_another_family() {
        let cases: &[(&str, &'static str, &str, &'static str, &str)] = &[
            ("a", "counter", "a_total", "gauge", "a_total"),
            ("a", "counter", "a_created", "gauge", "a_created"),
            ("a_total", "gauge", "a", "counter", "a_total"),
            ("h", "histogram", "h_count", "gauge", "h_count"),
            ("h", "histogram", "h_sum", "counter", "h_sum"),
            ("h_bucket", "counter", "h", "histogram", "h_bucket"),
            ("x", "gauge", "x", "counter", "x"),
            ("i", "info", "i_info", "gauge", "i_info"),
            ("g", "gaugehistogram", "g_gcount", "gauge", "g_gcount"),
            ("g", "gaugehistogram", "g_gsum", "gauge", "g_gsum"),
            ("g", "gaugehistogram", "g_count", "gauge", "g_count"),
            ("g", "gaugehistogram", "g_sum", "counter", "g_sum"),
            ("g_count", "gauge", "g", "gaugehistogram", "g_count"),
        ];
        for (first, first_type, second, second_type, clash) in cases {
            let mut ledger = Ledger::default();
            ledger.claim(vec![claim(first, first_type, "A.f")]).unwrap();
            let err = ledger
                .claim(vec![claim(second, second_type, "B.g")])
                .unwrap_err();
            match err {
                RegistrationError::NameTaken {
                    clashes_on,
                    existing,
                    family,
                } => {
                    assert_eq!(&clashes_on, clash, "{first} then {second}");
                    assert_eq!(existing.name, *first);
                    assert_eq!(family.name, *second);
                }
                other => panic!("{first} then {second}: {other:?}"),
            }
            // Among the families of one registration too.
            let err = Ledger::default()
                .claim(vec![
                    claim(first, first_type, "A.f"),
                    claim(second, second_type, "A.g"),
                ])
                .unwrap_err();
            assert!(matches!(err, RegistrationError::NameTaken { .. }));
        }
    }

    #[test]
    fn distinct_names_pass_and_a_refused_batch_records_nothing() {
        let mut ledger = Ledger::default();
        ledger
            .claim(vec![
                claim("app:latency_seconds", "histogram", "A.f"),
                claim("app:requests", "counter", "A.g"),
            ])
            .unwrap();
        assert!(ledger
            .claim(vec![
                claim("app:fresh", "gauge", "B.f"),
                claim("app:requests_total", "gauge", "B.g"),
            ])
            .is_err());
        // `app:fresh` was not recorded by the refused batch.
        ledger
            .claim(vec![claim("app:fresh", "gauge", "C.f")])
            .unwrap();
    }

    #[test]
    fn const_labels_must_be_valid_and_must_not_repeat_a_key() {
        let with_labels = |labels: &[(&str, &str)]| {
            let mut c = claim("x", "gauge", "A.f");
            c.family.const_labels = labels
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect();
            c
        };
        let check = |labels: &[(&str, &str)]| Ledger::default().check(&[with_labels(labels)]);
        assert!(check(&[("region", "eu")]).is_ok());
        assert!(matches!(
            check(&[("engine", "0")]),
            Err(RegistrationError::ConstLabelRepeatsKey { key, .. }) if key == "engine"
        ));
        assert!(matches!(
            check(&[("region", "eu"), ("region", "us")]),
            Err(RegistrationError::ConstLabelRepeatsKey { key, .. }) if key == "region"
        ));
        for bad in [
            "le",
            "quantile",
            "otel_metric_overflow",
            "__name__",
            "1x",
            "a-b",
            "",
        ] {
            assert!(
                matches!(
                    check(&[(bad, "v")]),
                    Err(RegistrationError::InvalidConstLabel { key, .. }) if key == bad
                ),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn a_name_outside_the_rule_is_refused_and_a_state_set_takes_the_label_key_rule() {
        for (name, metric_type) in [
            ("a b", "gauge"),
            ("a.b", "counter"),
            ("é", "histogram"),
            ("", "gauge"),
            ("a:b", "stateset"),
        ] {
            let err = Ledger::default()
                .claim(vec![claim(name, metric_type, "A.f")])
                .unwrap_err();
            assert!(
                matches!(&err, RegistrationError::InvalidName { family } if family.name == name),
                "{name:?}: {err:?}"
            );
        }
        let mut ledger = Ledger::default();
        ledger
            .claim(vec![
                claim("a:b", "gauge", "A.f"),
                claim("a_c", "stateset", "A.g"),
            ])
            .unwrap();
    }

    #[test]
    fn declared_families_come_from_type_lines() {
        let text = "# HELP a A.\n# TYPE a counter\na_total 1\n# TYPE b weird\nb 2\n\
                    # TYPE c d gauge\n# EOF\n";
        let found: Vec<_> = declared_families(text).collect();
        assert_eq!(
            found,
            [("a", "counter"), ("b", "unknown"), ("c d", "gauge")]
        );
    }
}
