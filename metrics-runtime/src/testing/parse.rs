//! Reading a text exposition back: one sample line at a time, and the `# HELP`/`# TYPE`/`# UNIT`
//! lines that open each family.
//!
//! Written for both text formats this crate serves (OpenMetrics 1.0.0 and the Prometheus text
//! format 0.0.4): label values with their three escapes (`\\`, `\"`, `\n`), values as
//! Prometheus writes them (`+Inf`, `-Inf`, `NaN`, integers, floats), an optional timestamp and
//! an optional OpenMetrics exemplar (`# {labels} value [timestamp]`), which is kept as text.

use std::fmt;

/// One sample: its name as written (with its suffix, `_total`, `_bucket`, ...), its labels in
/// the order written, and its value.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The sample's name, suffix included (`http_requests_total`, `latency_seconds_bucket`).
    pub name: String,
    /// The labels as written, in order, with their values unescaped.
    pub labels: Vec<(String, String)>,
    /// The value (`+Inf`, `-Inf` and `NaN` included).
    pub value: f64,
    /// What follows the value on its line, if anything (a timestamp, an exemplar), as written.
    pub rest: Option<String>,
}

impl Sample {
    /// The value of label `key`, unescaped, if the sample has it.
    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the sample's labels are exactly `labels`, in any order.
    pub fn has_exactly(&self, labels: &[(&str, &str)]) -> bool {
        self.labels.len() == labels.len() && self.has_all(labels)
    }

    /// Whether the sample has every label of `labels` (and maybe others).
    pub fn has_all(&self, labels: &[(&str, &str)]) -> bool {
        labels
            .iter()
            .all(|(key, value)| self.label(key) == Some(*value))
    }
}

/// A line of an exposition that is not a sample, a family's metadata or the end marker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The line's number, counting from 1.
    pub line_number: usize,
    /// The line as written.
    pub line: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}: {}: {:?}",
            self.line_number, self.reason, self.line
        )
    }
}

impl std::error::Error for ParseError {}

/// What one line of an exposition is.
#[derive(Debug)]
pub(super) enum Line {
    /// `# HELP name ...`, `# TYPE name ...` or `# UNIT name ...`: the family `name`.
    Metadata { family: String },
    /// `# EOF`, or another comment.
    Comment,
    /// A sample.
    Sample(Sample),
}

/// Reads one line (without its line feed).
pub(super) fn parse_line(line: &str) -> Result<Line, &'static str> {
    if let Some(comment) = line.strip_prefix('#') {
        let mut words = comment.trim_start().splitn(3, ' ');
        return Ok(match (words.next(), words.next()) {
            (Some("HELP" | "TYPE" | "UNIT"), Some(family)) if !family.is_empty() => {
                Line::Metadata {
                    family: family.to_owned(),
                }
            }
            (Some("HELP" | "TYPE" | "UNIT"), _) => return Err("metadata line without a name"),
            _ => Line::Comment,
        });
    }
    parse_sample(line).map(Line::Sample)
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == ':'
}

fn parse_sample(line: &str) -> Result<Sample, &'static str> {
    let name_len = line.find(|c: char| !is_name_char(c)).unwrap_or(line.len());
    let (name, mut rest) = line.split_at(name_len);
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return Err("no metric name");
    }
    let mut labels = Vec::new();
    if let Some(after_brace) = rest.strip_prefix('{') {
        let (parsed, after) = parse_labels(after_brace)?;
        labels = parsed;
        rest = after;
    }
    let rest = rest
        .strip_prefix(' ')
        .ok_or("expected a space before the value")?;
    let (value, tail) = match rest.split_once(' ') {
        Some((value, tail)) => (value, Some(tail.to_owned())),
        None => (rest, None),
    };
    Ok(Sample {
        name: name.to_owned(),
        labels,
        value: parse_value(value)?,
        rest: tail,
    })
}

/// Labels as written: key and unescaped value, in order.
type Labels = Vec<(String, String)>;

/// Reads `k="v",...}` and returns the labels and what follows the closing brace.
fn parse_labels(mut text: &str) -> Result<(Labels, &str), &'static str> {
    let mut labels = Vec::new();
    loop {
        if let Some(after) = text.strip_prefix('}') {
            return Ok((labels, after));
        }
        let (key, after_key) = text.split_once("=\"").ok_or("label without =\"")?;
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err("invalid label key");
        }
        let mut value = String::new();
        let mut chars = after_key.char_indices();
        let end = loop {
            match chars.next().ok_or("unterminated label value")? {
                (at, '"') => break at,
                (_, '\\') => value.push(match chars.next() {
                    Some((_, '\\')) => '\\',
                    Some((_, '"')) => '"',
                    Some((_, 'n')) => '\n',
                    _ => return Err("unknown escape in a label value"),
                }),
                (_, c) => value.push(c),
            }
        };
        labels.push((key.to_owned(), value));
        text = &after_key[end + 1..];
        if let Some(after_comma) = text.strip_prefix(',') {
            text = after_comma;
        } else if !text.starts_with('}') {
            return Err("expected , or } after a label");
        }
    }
}

fn parse_value(value: &str) -> Result<f64, &'static str> {
    match value {
        "+Inf" | "Inf" => Ok(f64::INFINITY),
        "-Inf" => Ok(f64::NEG_INFINITY),
        "NaN" => Ok(f64::NAN),
        // Rust's parser also reads "inf" and "nan", which no exposition writes.
        _ if value
            .chars()
            .any(|c| c.is_ascii_alphabetic() && c != 'e' && c != 'E') =>
        {
            Err("value is not a number")
        }
        _ => value.parse().map_err(|_| "value is not a number"),
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_line, Line};

    fn sample(line: &str) -> super::Sample {
        match parse_line(line) {
            Ok(Line::Sample(sample)) => sample,
            other => panic!("{line:?} read as {other:?}"),
        }
    }

    #[test]
    fn label_values_are_unescaped_and_special_values_read() {
        let s = sample(r#"x_total{a="q\"\\\n",le="+Inf"} 3"#);
        assert_eq!(s.name, "x_total");
        assert_eq!(s.label("a"), Some("q\"\\\n"));
        assert_eq!(s.label("le"), Some("+Inf"));
        assert_eq!(s.value, 3.0);
        assert_eq!(sample("y -Inf").value, f64::NEG_INFINITY);
        assert!(sample("y NaN").value.is_nan());
        assert_eq!(sample("y 1.5e308").value, 1.5e308);
        assert_eq!(sample("y{} 2").labels, vec![]);
    }

    #[test]
    fn timestamps_and_exemplars_are_kept_as_written() {
        let s = sample(r#"c_total{a="1"} 4 # {trace_id="ab"} 1.0 1700000000.5"#);
        assert_eq!(s.value, 4.0);
        assert_eq!(
            s.rest.as_deref(),
            Some(r#"# {trace_id="ab"} 1.0 1700000000.5"#)
        );
    }

    #[test]
    fn metadata_and_comments_are_told_apart() {
        assert!(matches!(
            parse_line("# HELP http_requests Requests served."),
            Ok(Line::Metadata { family }) if family == "http_requests"
        ));
        assert!(matches!(parse_line("# EOF"), Ok(Line::Comment)));
        assert!(parse_line("# TYPE").is_err());
    }

    #[test]
    fn malformed_lines_are_rejected() {
        for bad in [
            "x{a=\"1} 2",
            "x{a=1} 2",
            "x{a=\"1\"}2",
            "{a=\"1\"} 2",
            "x{a=\"1\" b=\"2\"} 2",
            "x{a=\"\\t\"} 2",
            "x inf",
            "x two",
            "1x 2",
        ] {
            assert!(parse_line(bad).is_err(), "{bad} was accepted");
        }
    }
}
