//! Rendering a registry for `/metrics`, in the format the scraper asked for.
//!
//! [`ExpositionFormat`] is the one entry point: [`negotiate`](ExpositionFormat::negotiate) picks
//! the format from the scraper's `Accept` header, [`encode`](ExpositionFormat::encode) renders a
//! registry in it, and [`content_type`](ExpositionFormat::content_type) is the header to answer
//! with.
//!
//! vLLM serves OpenMetrics text unconditionally, which breaks consumers that only read the
//! classic Prometheus text format 0.0.4; negotiating avoids that.

use std::fmt;

use prometheus_client::encoding::{prometheus_text, text};

use crate::accept::{parse_accept, MediaRange};
use crate::registry::Registry;
use crate::sanitize::sanitize;

/// How specifically a media range names a format: the most specific match decides its weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Specificity {
    Any,
    Subtypes,
    Exact,
}

#[derive(Clone, Copy, Debug)]
struct Preference {
    weight: u16,
    specificity: Specificity,
}

/// A text exposition format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExpositionFormat {
    /// OpenMetrics 1.0.0 text: `# UNIT` lines, counters' `# TYPE` under the base name, `# EOF`.
    OpenMetrics,
    /// The classic Prometheus text format 0.0.4: counters' `# HELP`/`# TYPE` under the
    /// `_total` name, no `# UNIT`, no `# EOF`.
    PrometheusText,
}

/// `Content-Type` of OpenMetrics text 1.0.0.
const OPENMETRICS_CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// `Content-Type` of the Prometheus text format 0.0.4.
const PROMETHEUS_TEXT_CONTENT_TYPE: &str = prometheus_text::CONTENT_TYPE;

impl ExpositionFormat {
    /// Picks a format from an HTTP `Accept` header, as RFC 9110 (section 12.5.1) reads it.
    ///
    /// * Each format takes the weight of the most specific media range that matches it
    ///   (`application/openmetrics-text` before `application/*` before `*/*`); `q=0` excludes it.
    /// * Weights follow the `qvalue` grammar (`0` to `1`, at most three decimals): an element
    ///   with `q=1.5` or `q=abc` is malformed and ignored. Quoted parameter values are data, so a
    ///   `q=` inside quotes is not a weight; parameters after the weight are extensions.
    /// * OpenMetrics is served as version 1.0.0: a range matches it without a `version` or with
    ///   `version=1.0.0` or `0.0.1` (the pre-release name Prometheus also asks for, same text),
    ///   and a `charset`, if given, must be `utf-8`. `version=2.0.0` does not match. The classic
    ///   text matches `text/plain` without a version or with `0.0.4` or `1.0.0` (its output uses
    ///   only classic metric names, which text 1.0.0 reads unchanged).
    /// * The format with the higher weight wins; a tie goes to OpenMetrics only when it is named
    ///   by its full media type. A missing header, `*/*`, and a header nothing of which we can
    ///   serve get the Prometheus text format, which every consumer reads.
    ///
    /// ```
    /// use metric_handles::ExpositionFormat;
    ///
    /// // What Prometheus itself sends: OpenMetrics preferred.
    /// let prometheus = "application/openmetrics-text;version=1.0.0;q=0.5,\
    ///                   text/plain;version=0.0.4;q=0.3,*/*;q=0.2";
    /// assert_eq!(ExpositionFormat::negotiate(Some(prometheus)), ExpositionFormat::OpenMetrics);
    /// assert_eq!(ExpositionFormat::negotiate(Some("*/*")), ExpositionFormat::PrometheusText);
    /// assert_eq!(ExpositionFormat::negotiate(None), ExpositionFormat::PrometheusText);
    /// ```
    pub fn negotiate(accept: Option<&str>) -> Self {
        let Some(accept) = accept else {
            return ExpositionFormat::PrometheusText;
        };
        let ranges = parse_accept(accept);
        let openmetrics = ExpositionFormat::OpenMetrics.preference(&ranges);
        let text = ExpositionFormat::PrometheusText.preference(&ranges);
        match (openmetrics, text) {
            (Some(om), text) if om.weight > 0 => {
                let text_weight = text.map_or(0, |t| t.weight);
                let om_named = om.specificity == Specificity::Exact;
                if om.weight > text_weight || (om.weight == text_weight && om_named) {
                    ExpositionFormat::OpenMetrics
                } else {
                    ExpositionFormat::PrometheusText
                }
            }
            _ => ExpositionFormat::PrometheusText,
        }
    }

    /// The weight and specificity of the most specific range in `ranges` that matches this
    /// format (the first one among equally specific ranges), if any does.
    fn preference(self, ranges: &[MediaRange]) -> Option<Preference> {
        let (kind, subtype, versions): (&str, &str, &[&str]) = match self {
            ExpositionFormat::OpenMetrics => {
                ("application", "openmetrics-text", &["1.0.0", "0.0.1"])
            }
            ExpositionFormat::PrometheusText => ("text", "plain", &["0.0.4", "1.0.0"]),
        };
        let mut best: Option<Preference> = None;
        for range in ranges {
            let Some((range_kind, range_subtype)) = range.media_type.split_once('/') else {
                continue;
            };
            let specificity = if range_kind == kind && range_subtype == subtype {
                let version_ok = range.param("version").is_none_or(|v| versions.contains(&v));
                let charset_ok = range
                    .param("charset")
                    .is_none_or(|c| c.eq_ignore_ascii_case("utf-8"));
                if !(version_ok && charset_ok) {
                    continue;
                }
                Specificity::Exact
            } else if range_kind == kind && range_subtype == "*" {
                Specificity::Subtypes
            } else if range_kind == "*" {
                Specificity::Any
            } else {
                continue;
            };
            if best.is_none_or(|b| specificity > b.specificity) {
                best = Some(Preference {
                    weight: range.weight,
                    specificity,
                });
            }
        }
        best
    }

    /// The HTTP `Content-Type` of this format.
    pub fn content_type(self) -> &'static str {
        match self {
            ExpositionFormat::OpenMetrics => OPENMETRICS_CONTENT_TYPE,
            ExpositionFormat::PrometheusText => PROMETHEUS_TEXT_CONTENT_TYPE,
        }
    }

    /// Encodes `registry` in this format.
    ///
    /// Every control character but the line feed (a carriage return in a label value, say) is
    /// written as its Unicode control picture (`\r` as `␍`), which every parser accepts, and
    /// OpenMetrics help text has its `\\` and `"` escaped. Encode with this rather than
    /// prometheus-client's encoders directly, which write both raw.
    ///
    /// ```
    /// use metric_handles::{ExpositionFormat, Registry};
    ///
    /// let registry = Registry::default();
    /// let text = ExpositionFormat::OpenMetrics.encode(&registry).unwrap();
    /// assert_eq!(text, "# EOF\n");
    /// ```
    pub fn encode(self, registry: &Registry) -> Result<String, fmt::Error> {
        let mut out = String::new();
        match self {
            ExpositionFormat::OpenMetrics => {
                registry.for_each_part(&mut |part| text::encode_registry(&mut out, part))?;
                text::encode_eof(&mut out)?;
            }
            ExpositionFormat::PrometheusText => {
                registry.for_each_part(&mut |part| prometheus_text::encode(&mut out, part))?
            }
        }
        Ok(sanitize(out, self == ExpositionFormat::OpenMetrics))
    }
}

#[cfg(test)]
mod tests {
    use super::ExpositionFormat::{self, OpenMetrics, PrometheusText};

    #[test]
    fn negotiation_honours_weights_and_defaults_to_classic_text() {
        let cases: &[(Option<&str>, ExpositionFormat)] = &[
            (None, PrometheusText),
            (Some(""), PrometheusText),
            (Some("*/*"), PrometheusText),
            (Some("application/json"), PrometheusText),
            (Some("application/openmetrics-text"), OpenMetrics),
            (
                Some("application/openmetrics-text; version=0.0.1"),
                OpenMetrics,
            ),
            (Some("text/plain;version=0.0.4"), PrometheusText),
            (Some("application/openmetrics-text;q=0"), PrometheusText),
            (
                Some("text/plain;q=0.9, application/openmetrics-text;q=0.8"),
                PrometheusText,
            ),
            (
                Some("text/plain;q=0.5, application/openmetrics-text;q=0.5"),
                OpenMetrics,
            ),
            (
                Some(
                    "application/openmetrics-text;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
                ),
                OpenMetrics,
            ),
            (
                Some("APPLICATION/OpenMetrics-Text ; q = 0.6 , */*;q=0.5"),
                OpenMetrics,
            ),
            (Some("application/openmetrics-text;q=abc"), PrometheusText),
            (Some(",,;;=,"), PrometheusText),
        ];
        for (accept, expected) in cases {
            assert_eq!(
                ExpositionFormat::negotiate(*accept),
                *expected,
                "Accept: {accept:?}"
            );
        }
    }

    #[test]
    fn negotiation_follows_rfc_9110_and_the_openmetrics_versions() {
        let cases: &[(&str, ExpositionFormat)] = &[
            // A `q=` inside a quoted parameter value is data, not the weight.
            (
                r#"application/openmetrics-text;q=0.1;ext="b;q=1;", text/plain;q=0.5"#,
                PrometheusText,
            ),
            (
                r#"text/plain;q=0.5, application/openmetrics-text;x="a,b;q=0.1";q=0.9"#,
                OpenMetrics,
            ),
            // A weight above 1 (or otherwise outside the qvalue grammar) makes the element
            // malformed: it is ignored, it does not win.
            (
                "application/openmetrics-text;q=1.5, text/plain;q=0.5",
                PrometheusText,
            ),
            (
                "application/openmetrics-text;q=0.1234, text/plain;q=0.5",
                PrometheusText,
            ),
            // We serve OpenMetrics 1.0.0 (0.0.1 is the same text, as Prometheus asks for it);
            // a range asking for another version does not match it.
            ("application/openmetrics-text;version=2.0.0", PrometheusText),
            (
                "application/openmetrics-text;version=2.0.0;q=1, text/plain;q=0.1",
                PrometheusText,
            ),
            ("application/openmetrics-text;version=1.0.0", OpenMetrics),
            (
                "application/openmetrics-text; version=\"1.0.0\"; charset=utf-8",
                OpenMetrics,
            ),
            (
                "application/openmetrics-text;charset=latin1",
                PrometheusText,
            ),
            // The most specific range decides a format's weight.
            ("text/plain;q=0, */*", OpenMetrics),
            ("application/*;q=0.9, text/plain;q=0.5", OpenMetrics),
            (
                "application/openmetrics-text;q=0, application/*",
                PrometheusText,
            ),
            ("text/plain;version=0.0.3", PrometheusText),
            // Prometheus 3's default scrape protocols.
            (
                "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,\
                 application/openmetrics-text;version=0.0.1;q=0.5,\
                 text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,\
                 text/plain;version=0.0.4;q=0.3,*/*;q=0.2",
                OpenMetrics,
            ),
        ];
        for (accept, expected) in cases {
            assert_eq!(
                ExpositionFormat::negotiate(Some(accept)),
                *expected,
                "Accept: {accept:?}"
            );
        }
    }

    #[test]
    fn nothing_acceptable_still_gets_the_classic_text() {
        let cases: &[&str] = &[
            "application/json",
            "text/plain;q=0, application/openmetrics-text;q=0",
            "text/plain;q=0, */*;q=0",
        ];
        for accept in cases {
            assert_eq!(ExpositionFormat::negotiate(Some(accept)), PrometheusText);
        }
    }
}
