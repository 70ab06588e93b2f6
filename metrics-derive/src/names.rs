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

/// A Prometheus lexical rule, `[first][rest]*`, with the words its messages use.
struct Pattern {
    /// What is checked: `"metric name"`.
    what: &'static str,
    first: fn(char) -> bool,
    /// The first character's rule in words.
    starts_with: &'static str,
    rest: fn(char) -> bool,
    /// Every character's rule in words.
    allowed: &'static str,
}

/// `[a-zA-Z_:][a-zA-Z0-9_:]*`.
const METRIC_NAME: Pattern = Pattern {
    what: "metric name",
    first: |c| c.is_ascii_alphabetic() || c == '_' || c == ':',
    starts_with: "an ASCII letter, `_` or `:`",
    rest: |c| c.is_ascii_alphanumeric() || c == '_' || c == ':',
    allowed: "ASCII letters, digits, `_` and `:`",
};

/// `[a-zA-Z_][a-zA-Z0-9_]*`.
const LABEL_KEY: Pattern = Pattern {
    what: "label key",
    first: |c| c.is_ascii_alphabetic() || c == '_',
    starts_with: "an ASCII letter or `_`",
    rest: |c| c.is_ascii_alphanumeric() || c == '_',
    allowed: "ASCII letters, digits and `_`",
};

impl Pattern {
    /// Checks a non-empty `text` (an empty one passes: each caller says why it is not allowed).
    fn check(&self, text: &str) -> Result<(), String> {
        let what = self.what;
        let mut chars = text.chars();
        // A non-ASCII first character breaks the character rule, not the first-character one:
        // "use ASCII letters" says more than "it must start with a letter" about `é`.
        let bad = match chars.next() {
            Some(first) if first.is_ascii() && !(self.first)(first) => {
                return Err(format!(
                    "`{text}` is not a valid Prometheus {what} (it must start with {})",
                    self.starts_with
                ));
            }
            Some(first) if !first.is_ascii() => Some(first),
            _ => chars.find(|c| !(self.rest)(*c)),
        };
        match bad {
            Some(bad) => Err(format!(
                "`{text}` is not a valid Prometheus {what} ({} is not allowed; use {})",
                shown(bad),
                self.allowed
            )),
            None => Ok(()),
        }
    }
}

/// A character as a message names it: itself, and its code point when it is not ASCII (an
/// invisible or look-alike character is then still identifiable); escaped when it would not
/// print.
fn shown(c: char) -> String {
    let printed = if c.is_control() || (c.is_whitespace() && c != ' ') {
        c.escape_debug().to_string()
    } else {
        c.to_string()
    };
    if c.is_ascii() {
        format!("`{printed}`")
    } else {
        format!("`{printed}` (U+{:04X})", u32::from(c))
    }
}

/// Checks a metric name against `[a-zA-Z_:][a-zA-Z0-9_:]*`.
pub fn check_metric_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("it cannot be empty".to_owned());
    }
    METRIC_NAME.check(name)
}

/// Checks a label key against `[a-zA-Z_][a-zA-Z0-9_]*` and the reserved keys.
pub fn check_label_key(key: &str) -> Result<(), String> {
    if key.is_empty() {
        return Err("a label key cannot be empty (`\"\"`)".to_owned());
    }
    LABEL_KEY.check(key)?;
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

/// Checks a unit: lower-case ASCII letters, digits and `_`, starting with a letter.
pub fn check_unit(unit: &str) -> Result<(), String> {
    let mut chars = unit.chars();
    let valid = matches!(chars.next(), Some(c) if c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if valid {
        Ok(())
    } else {
        Err(format!(
            "`{unit}` is not a valid unit (use lower-case ASCII letters, digits and `_`, e.g. `unit = \"seconds\"`)"
        ))
    }
}

/// The names a metric family claims in the exposition: its family name and every sample name
/// its type adds in any format (OpenMetrics reserves `_created` too, and Python's parser counts
/// it; a gauge histogram is a histogram in the protobuf format, stored with `_count` and
/// `_sum`). Two metrics of one registry must claim disjoint sets, or their samples collide.
pub fn claimed_names(family: &str, kind: crate::ty::Leaf) -> Vec<String> {
    let suffixes: &[&str] = match kind {
        crate::ty::Leaf::Counter => &["", "_total", "_created"],
        crate::ty::Leaf::Gauge => &[""],
        crate::ty::Leaf::Histogram => &["", "_bucket", "_count", "_sum", "_created"],
        crate::ty::Leaf::Info => &["", "_info"],
        crate::ty::Leaf::StateSet => &[""],
        crate::ty::Leaf::GaugeHistogram => &["", "_bucket", "_gcount", "_gsum", "_count", "_sum"],
    };
    suffixes.iter().map(|s| format!("{family}{s}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asserts that `check` accepts every `valid` text and rejects every `invalid` one.
    fn assert_checks(check: fn(&str) -> Result<(), String>, valid: &[&str], invalid: &[&str]) {
        for text in valid {
            assert!(check(text).is_ok(), "`{text}` should be accepted");
        }
        for text in invalid {
            assert!(check(text).is_err(), "`{text}` should be rejected");
        }
    }

    #[test]
    fn metric_names() {
        assert_checks(
            check_metric_name,
            &["vllm:num_requests_running", ":a_1"],
            &["", "1abc", "a-b", "a b"],
        );
    }

    #[test]
    fn label_keys() {
        assert_checks(
            check_label_key,
            &["model_name", "_x"],
            &["a:b", "le", "quantile", "__name", "9"],
        );
    }

    #[test]
    fn messages_say_which_rule_is_broken() {
        for (name, message) in [
            ("", "it cannot be empty"),
            ("1a", "`1a` is not a valid Prometheus metric name (it must start with an ASCII letter, `_` or `:`)"),
            ("a-b", "`a-b` is not a valid Prometheus metric name (`-` is not allowed; use ASCII letters, digits, `_` and `:`)"),
            ("app:größe", "`app:größe` is not a valid Prometheus metric name (`ö` (U+00F6) is not allowed; use ASCII letters, digits, `_` and `:`)"),
            ("éa", "`éa` is not a valid Prometheus metric name (`é` (U+00E9) is not allowed; use ASCII letters, digits, `_` and `:`)"),
            ("a\u{a0}b", "`a\u{a0}b` is not a valid Prometheus metric name (`\\u{a0}` (U+00A0) is not allowed; use ASCII letters, digits, `_` and `:`)"),
        ] {
            assert_eq!(check_metric_name(name).unwrap_err(), message);
        }
        for (key, message) in [
            ("", "a label key cannot be empty (`\"\"`)"),
            (":a", "`:a` is not a valid Prometheus label key (it must start with an ASCII letter or `_`)"),
            ("a:b", "`a:b` is not a valid Prometheus label key (`:` is not allowed; use ASCII letters, digits and `_`)"),
            ("größe", "`größe` is not a valid Prometheus label key (`ö` (U+00F6) is not allowed; use ASCII letters, digits and `_`)"),
            ("__a", "label key `__a` is reserved (keys starting with `__` are for Prometheus' internal use)"),
        ] {
            assert_eq!(check_label_key(key).unwrap_err(), message);
        }
    }

    #[test]
    fn units() {
        assert_checks(check_unit, &["seconds"], &["Seconds", "", "per-second"]);
    }
}
