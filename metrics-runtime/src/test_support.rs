//! What the unit tests share: the text a registry exposes, and the check that it holds the
//! lines a test expects.

use crate::Registry;

/// The registry's exposition in the classic Prometheus text format.
pub(crate) fn exposition(registry: &Registry) -> String {
    crate::ExpositionFormat::PrometheusText
        .encode(registry)
        .expect("encodes")
}

/// Asserts that `text` holds every one of `lines`, showing the whole text when one is missing.
#[track_caller]
pub(crate) fn assert_has_lines(text: &str, lines: &[&str]) {
    for line in lines {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
}
