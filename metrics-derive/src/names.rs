//! The lexical rules of Prometheus names, label keys and units.

/// The label keys Prometheus or this library reserve, with why.
const RESERVED_KEYS: &[(&str, &str)] = &[
    ("le", "histograms use it for bucket bounds"),
    ("quantile", "summaries use it for quantiles"),
    (
        "otel_metric_overflow",
        "the overflow series of a full family carries it",
    ),
];

/// Checks a metric name against `[a-zA-Z_:][a-zA-Z0-9_:]*`.
pub fn check_metric_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    match chars.next() {
        None => return Err("it cannot be empty".to_owned()),
        Some(c) if !(c.is_ascii_alphabetic() || c == '_' || c == ':') => {
            return Err(format!(
                "`{name}` is not a valid Prometheus metric name (it must start with a letter, `_` or `:`)"
            ))
        }
        Some(_) => {}
    }
    match chars.find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == ':')) {
        Some(bad) => Err(format!(
            "`{name}` is not a valid Prometheus metric name (`{}` is not allowed; use letters, digits, `_` and `:`)",
            bad.escape_default()
        )),
        None => Ok(()),
    }
}

/// Checks a label key against `[a-zA-Z_][a-zA-Z0-9_]*` and the reserved keys.
pub fn check_label_key(key: &str) -> Result<(), String> {
    let mut chars = key.chars();
    match chars.next() {
        None => return Err("a label key cannot be empty (`\"\"`)".to_owned()),
        Some(c) if !(c.is_ascii_alphabetic() || c == '_') => {
            return Err(format!(
                "`{key}` is not a valid Prometheus label key (it must start with a letter or `_`)"
            ))
        }
        Some(_) => {}
    }
    if let Some(bad) = chars.find(|c| !(c.is_ascii_alphanumeric() || *c == '_')) {
        return Err(format!(
            "`{key}` is not a valid Prometheus label key (`{}` is not allowed; use letters, digits and `_`)",
            bad.escape_default()
        ));
    }
    if key.starts_with("__") {
        return Err(format!(
            "label key `{key}` is reserved (keys starting with `__` are for Prometheus' internal use)"
        ));
    }
    if let Some((_, why)) = RESERVED_KEYS.iter().find(|(reserved, _)| *reserved == key) {
        return Err(format!("label key `{key}` is reserved ({why})"));
    }
    Ok(())
}

/// Checks a unit: lower-case letters, digits and `_`, starting with a letter.
pub fn check_unit(unit: &str) -> Result<(), String> {
    let mut chars = unit.chars();
    let valid = matches!(chars.next(), Some(c) if c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if valid {
        Ok(())
    } else {
        Err(format!(
            "`{unit}` is not a valid unit (use lower-case letters, digits and `_`, e.g. `unit = \"seconds\"`)"
        ))
    }
}

/// The names a metric family claims in the exposition: its family name and every sample name
/// its type adds (OpenMetrics reserves `_created` too, and Python's parser counts it). Two
/// metrics of one registry must claim disjoint sets, or their samples collide.
pub fn claimed_names(family: &str, kind: crate::ty::Leaf) -> Vec<String> {
    let suffixes: &[&str] = match kind {
        crate::ty::Leaf::Counter => &["", "_total", "_created"],
        crate::ty::Leaf::Gauge => &[""],
        crate::ty::Leaf::Histogram => &["", "_bucket", "_count", "_sum", "_created"],
    };
    suffixes.iter().map(|s| format!("{family}{s}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_names() {
        assert!(check_metric_name("vllm:num_requests_running").is_ok());
        assert!(check_metric_name(":a_1").is_ok());
        assert!(check_metric_name("").is_err());
        assert!(check_metric_name("1abc").is_err());
        assert!(check_metric_name("a-b").is_err());
        assert!(check_metric_name("a b").is_err());
    }

    #[test]
    fn label_keys() {
        assert!(check_label_key("model_name").is_ok());
        assert!(check_label_key("_x").is_ok());
        assert!(check_label_key("a:b").is_err());
        assert!(check_label_key("le").is_err());
        assert!(check_label_key("quantile").is_err());
        assert!(check_label_key("__name").is_err());
        assert!(check_label_key("9").is_err());
    }

    #[test]
    fn units() {
        assert!(check_unit("seconds").is_ok());
        assert!(check_unit("Seconds").is_err());
        assert!(check_unit("").is_err());
        assert!(check_unit("per-second").is_err());
    }
}
