//! Shared by the reliability tests: the stress level, the registry encoded in either format,
//! and a small parser of the text exposition written independently of the encoder (label-value
//! escapes included), so a test checks what a scraper would read rather than trusting the code
//! under test.
#![allow(dead_code)]

use metric_handles::ExpositionFormat;
use metric_handles::Registry;

/// Whether `METRIC_HANDLES_STRESS=long` asks for the long variants.
pub fn long_stress() -> bool {
    std::env::var("METRIC_HANDLES_STRESS").as_deref() == Ok("long")
}

/// `default`, or `long` when `METRIC_HANDLES_STRESS=long`.
pub fn stress<T>(default: T, long: T) -> T {
    if long_stress() {
        long
    } else {
        default
    }
}

/// The registry in the classic Prometheus text format (what `scrape` parses).
pub fn encode_text(registry: &Registry) -> String {
    ExpositionFormat::PrometheusText
        .encode(registry)
        .expect("encodes")
}

/// Asserts that `text` holds every one of `lines`, showing the whole text when one is missing.
#[track_caller]
pub fn assert_has_lines(text: &str, lines: &[&str]) {
    for line in lines {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
}

/// The registry in the OpenMetrics text format.
pub fn encode_openmetrics(registry: &Registry) -> String {
    ExpositionFormat::OpenMetrics
        .encode(registry)
        .expect("encodes")
}

/// One sample line: its name, its labels in order, and its value as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: Vec<(String, String)>,
    pub value: String,
}

impl Sample {
    /// The value of label `key`, unescaped.
    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Parses every sample of a Prometheus text (or OpenMetrics) exposition, panicking with the line
/// on anything malformed: `name{k="v",...} value` or `name value`; `#` lines are skipped.
pub fn parse(text: &str) -> Vec<Sample> {
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "ends with a newline"
    );
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|line| parse_line(line).unwrap_or_else(|e| panic!("{e}: {line:?}")))
        .collect()
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == ':'
}

fn parse_line(line: &str) -> Result<Sample, &'static str> {
    let mut chars = line.chars().peekable();
    let mut name = String::new();
    while let Some(&c) = chars.peek() {
        if !is_name_char(c) {
            break;
        }
        name.push(c);
        chars.next();
    }
    if name.is_empty() {
        return Err("no metric name");
    }
    let mut labels = Vec::new();
    if chars.peek() == Some(&'{') {
        chars.next();
        loop {
            if chars.peek() == Some(&'}') {
                chars.next();
                break;
            }
            let mut key = String::new();
            for c in chars.by_ref() {
                if c == '=' {
                    break;
                }
                if !(c.is_ascii_alphanumeric() || c == '_') {
                    return Err("invalid label key");
                }
                key.push(c);
            }
            if key.is_empty() || chars.next() != Some('"') {
                return Err("label without =\"");
            }
            let mut value = String::new();
            loop {
                match chars.next().ok_or("unterminated label value")? {
                    '"' => break,
                    '\\' => value.push(match chars.next() {
                        Some('\\') => '\\',
                        Some('"') => '"',
                        Some('n') => '\n',
                        _ => return Err("bad escape"),
                    }),
                    '\n' => return Err("raw newline in a label value"),
                    c => value.push(c),
                }
            }
            labels.push((key, value));
            match chars.next() {
                Some(',') => {}
                Some('}') => break,
                _ => return Err("expected , or }"),
            }
        }
    }
    if chars.next() != Some(' ') {
        return Err("expected a space before the value");
    }
    let value: String = chars.collect();
    let numeric = matches!(value.as_str(), "+Inf" | "-Inf" | "NaN") || value.parse::<f64>().is_ok();
    if !numeric {
        return Err("value is not a number");
    }
    Ok(Sample {
        name,
        labels,
        value,
    })
}

#[test]
fn the_parser_reads_escapes_and_rejects_malformed_lines() {
    let samples = parse("# HELP x y\nx_total{a=\"q\\\"\\\\\\n\",le=\"+Inf\"} 3\ny 1.5e308\n");
    assert_eq!(samples[0].label("a"), Some("q\"\\\n"));
    assert_eq!(samples[0].label("le"), Some("+Inf"));
    assert_eq!(samples[1].value, "1.5e308");
    for bad in [
        "x{a=\"1} 2",
        "x{a=1} 2",
        "x 1 2",
        "x{a=\"1\"}2",
        "{a=\"1\"} 2",
    ] {
        assert!(parse_line(bad).is_err(), "{bad}");
    }
}
