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
use prometheus_client::registry::Registry;

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
    /// Picks a format from an HTTP `Accept` header.
    ///
    /// Each media range's `q` weight is honoured (`q=0` excludes it). The format with the
    /// highest weight wins; a tie goes to OpenMetrics only when it is named explicitly. A
    /// missing header, `*/*`, a header naming neither format, and anything unparsable get the
    /// Prometheus text format, which every consumer reads.
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
        let mut openmetrics: Option<f32> = None;
        let mut text: Option<f32> = None;
        let mut wildcard: Option<f32> = None;
        for range in accept.split(',') {
            let mut parts = range.split(';').map(str::trim);
            let media_type = parts.next().unwrap_or("").to_ascii_lowercase();
            let mut weight = 1.0_f32;
            for parameter in parts {
                if let Some((name, value)) = parameter.split_once('=') {
                    if name.trim().eq_ignore_ascii_case("q") {
                        weight = value.trim().parse().unwrap_or(0.0);
                    }
                }
            }
            if !weight.is_finite() {
                weight = 0.0;
            }
            let slot = match media_type.as_str() {
                "application/openmetrics-text" => &mut openmetrics,
                "text/plain" | "text/*" => &mut text,
                "*/*" => &mut wildcard,
                _ => continue,
            };
            *slot = Some(slot.map_or(weight, |w: f32| w.max(weight)));
        }
        let text = text.or(wildcard).unwrap_or(0.0);
        match openmetrics {
            Some(om) if om > 0.0 && om >= text => ExpositionFormat::OpenMetrics,
            _ => ExpositionFormat::PrometheusText,
        }
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
    /// ```
    /// use metric_handles::prometheus_client::registry::Registry;
    /// use metric_handles::ExpositionFormat;
    ///
    /// let registry = Registry::default();
    /// let text = ExpositionFormat::OpenMetrics.encode(&registry).unwrap();
    /// assert_eq!(text, "# EOF\n");
    /// ```
    pub fn encode(self, registry: &Registry) -> Result<String, fmt::Error> {
        let mut out = String::new();
        match self {
            ExpositionFormat::OpenMetrics => text::encode(&mut out, registry)?,
            ExpositionFormat::PrometheusText => prometheus_text::encode(&mut out, registry)?,
        }
        Ok(out)
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
}
