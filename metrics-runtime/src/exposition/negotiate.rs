//! Content negotiation: which format and name escaping scheme answer a scraper's `Accept`
//! header (RFC 9110 section 12.5.1, as Prometheus and client_golang's `expfmt` read it).

use prometheus_client::encoding::prometheus_text;

use super::accept::{parse_accept, MediaRange};
use super::format::ExpositionFormat;
#[cfg(feature = "protobuf")]
use super::protobuf;

/// How specifically a media range names a format: the most specific match decides its weight
/// (RFC 9110: a range naming the version overrides one naming the media type alone).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Specificity {
    Any,
    Subtypes,
    Exact,
    Versioned,
}

#[derive(Clone, Copy, Debug)]
struct Preference {
    weight: u16,
    specificity: Specificity,
    /// The `escaping` parameter of the range that matched, when it names a known scheme.
    escaping: Option<NameEscaping>,
}

/// How a 1.0.0 format says metric names were escaped: the `escaping=` parameter of its
/// `Content-Type` (Prometheus's content negotiation, as client_golang's `expfmt` answers it).
///
/// This crate writes only legacy names, which every scheme leaves as they are, so a response
/// states the scheme the scraper asked for, or `underscores` when it asked for none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NameEscaping {
    /// `allow-utf-8`: names are written as they are, quoted when not legacy names.
    AllowUtf8 = 0,
    /// `underscores`: every character outside the legacy set becomes `_` (the default).
    #[default]
    Underscores = 1,
    /// `dots`: as `underscores`, with `.` written as `_dot_` and `_` as `__`.
    Dots = 2,
    /// `values`: names outside the legacy set are written `U__` followed by code points.
    Values = 3,
}

impl NameEscaping {
    /// The parameter value (`allow-utf-8`, `underscores`, `dots`, `values`).
    pub const fn as_str(self) -> &'static str {
        match self {
            NameEscaping::AllowUtf8 => "allow-utf-8",
            NameEscaping::Underscores => "underscores",
            NameEscaping::Dots => "dots",
            NameEscaping::Values => "values",
        }
    }

    /// The scheme named `value`, or `None` for a value Prometheus does not define.
    pub fn from_param(value: &str) -> Option<Self> {
        [
            NameEscaping::AllowUtf8,
            NameEscaping::Underscores,
            NameEscaping::Dots,
            NameEscaping::Values,
        ]
        .into_iter()
        .find(|scheme| scheme.as_str().eq_ignore_ascii_case(value))
    }
}

/// What a scrape is answered with: the format, and the name escaping scheme the
/// `Content-Type` of a 1.0.0 format states.
///
/// ```
/// use metric_handles::ExpositionFormat;
/// use metric_handles::exposition::{NameEscaping, Negotiated};
///
/// // Prometheus 3.4 and later, by default.
/// let accept = "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,\
///               application/openmetrics-text;version=0.0.1;q=0.5,\
///               text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,\
///               text/plain;version=0.0.4;q=0.3,*/*;q=0.2";
/// let negotiated = Negotiated::from_accept(Some(accept));
/// assert_eq!(negotiated.format, ExpositionFormat::OpenMetrics);
/// assert_eq!(negotiated.escaping, NameEscaping::AllowUtf8);
/// assert_eq!(
///     negotiated.content_type(),
///     "application/openmetrics-text; version=1.0.0; charset=utf-8; escaping=allow-utf-8"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Negotiated {
    /// The format to encode in.
    pub format: ExpositionFormat,
    /// The escaping scheme a 1.0.0 format's `Content-Type` states (unused by text 0.0.4).
    pub escaping: NameEscaping,
}

impl Negotiated {
    /// Negotiates the format from an HTTP `Accept` header, as
    /// [`ExpositionFormat::negotiate`] does, and takes the escaping scheme from the media range
    /// that chose it (`underscores` when that range names none or names an unknown one).
    pub fn from_accept(accept: Option<&str>) -> Self {
        let Some(accept) = accept else {
            return Negotiated::classic_text();
        };
        let ranges = parse_accept(accept);
        let preferences = ExpositionFormat::ALL.map(|format| (format, format.preference(&ranges)));
        let acceptable = preferences
            .iter()
            .filter_map(|(format, preference)| Some((*format, (*preference)?)))
            .filter(|(_, preference)| preference.weight > 0);
        let Some(best) = acceptable.clone().map(|(_, p)| p.weight).max() else {
            return Negotiated::classic_text();
        };
        let tied = || acceptable.clone().filter(|(_, p)| p.weight == best);
        // A tie goes to a format named by its full media type (in the order of `ALL`); among
        // formats only a wildcard matched, to the classic text, which every consumer reads.
        let chosen = tied()
            .find(|(_, p)| p.specificity >= Specificity::Exact)
            .or_else(|| tied().find(|(f, _)| *f == ExpositionFormat::PrometheusText))
            .or_else(|| tied().next());
        match chosen {
            Some((format, preference)) => Negotiated {
                format,
                escaping: preference.escaping.unwrap_or_default(),
            },
            None => Negotiated::classic_text(),
        }
    }

    fn classic_text() -> Self {
        Negotiated {
            format: ExpositionFormat::PrometheusText,
            escaping: NameEscaping::Underscores,
        }
    }

    /// The HTTP `Content-Type` to answer with: the 1.0.0 formats carry `escaping=`.
    pub const fn content_type(self) -> &'static str {
        let scheme = self.escaping as usize;
        match self.format {
            ExpositionFormat::PrometheusText => prometheus_text::CONTENT_TYPE,
            ExpositionFormat::OpenMetrics => OPENMETRICS_CONTENT_TYPES[scheme],
            ExpositionFormat::PrometheusTextV1 => TEXT_V1_CONTENT_TYPES[scheme],
            #[cfg(feature = "protobuf")]
            ExpositionFormat::PrometheusProtobuf => protobuf::CONTENT_TYPE,
        }
    }
}

/// `base` with each `escaping=` parameter, in the order of [`NameEscaping`]'s variants.
macro_rules! with_each_escaping {
    ($base:literal) => {
        [
            concat!($base, "; escaping=allow-utf-8"),
            concat!($base, "; escaping=underscores"),
            concat!($base, "; escaping=dots"),
            concat!($base, "; escaping=values"),
        ]
    };
}

/// The `Content-Type` of OpenMetrics 1.0.0, by escaping scheme.
const OPENMETRICS_CONTENT_TYPES: [&str; 4] =
    with_each_escaping!("application/openmetrics-text; version=1.0.0; charset=utf-8");

/// The `Content-Type` of the Prometheus text format 1.0.0, by escaping scheme.
const TEXT_V1_CONTENT_TYPES: [&str; 4] =
    with_each_escaping!("text/plain; version=1.0.0; charset=utf-8");

impl ExpositionFormat {
    /// Every format, in the order a tie between formats named by their full media type is
    /// broken in: the text formats before protobuf, which only a scraper that prefers it gets.
    #[cfg(not(feature = "protobuf"))]
    const ALL: [ExpositionFormat; 3] = [
        ExpositionFormat::OpenMetrics,
        ExpositionFormat::PrometheusText,
        ExpositionFormat::PrometheusTextV1,
    ];
    #[cfg(feature = "protobuf")]
    const ALL: [ExpositionFormat; 4] = [
        ExpositionFormat::OpenMetrics,
        ExpositionFormat::PrometheusText,
        ExpositionFormat::PrometheusTextV1,
        ExpositionFormat::PrometheusProtobuf,
    ];

    /// Picks a format from an HTTP `Accept` header, as RFC 9110 (section 12.5.1) reads it.
    ///
    /// * Each format takes the weight of the most specific media range that matches it
    ///   (`application/openmetrics-text` before `application/*` before `*/*`); `q=0` excludes it.
    /// * Weights follow the `qvalue` grammar (`0` to `1`, at most three decimals): an element
    ///   with `q=1.5` or `q=abc` is malformed and ignored. Quoted parameter values are data, so a
    ///   `q=` inside quotes is not a weight; parameters after the weight are extensions.
    /// * OpenMetrics is served as version 1.0.0: a range matches it without a `version` or with
    ///   `version=1.0.0` or `0.0.1` (the pre-release name Prometheus also asks for, same text),
    ///   and a `charset`, if given, must be `utf-8`. `version=2.0.0` does not match. The
    ///   Prometheus text formats match `text/plain` without a version, and each its own version
    ///   (`0.0.4`, `1.0.0`).
    /// * The format with the higher weight wins; a tie goes to a format named by its full media
    ///   type, in the order OpenMetrics, text 0.0.4, text 1.0.0 (so a bare `text/plain` gets
    ///   0.0.4, and text 1.0.0 is answered when a range names its version). A missing header,
    ///   `*/*`, and a header nothing of which we can serve get the Prometheus text format 0.0.4,
    ///   which every consumer reads.
    /// * With the `protobuf` feature, the Prometheus protobuf format is a candidate like the
    ///   others, matched only by its full media type with both parameters Prometheus sends:
    ///   `application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited`
    ///   (another `proto` or `encoding`, or a missing one, does not match it, as client_golang's
    ///   `expfmt.Negotiate` reads it). A wildcard (`*/*`, `application/*`) never selects it: a
    ///   binary body goes only to a scraper that names it. Without the feature such a range
    ///   matches nothing, and the scraper's next preference (OpenMetrics, for Prometheus) is
    ///   served.
    ///
    /// [`Negotiated::from_accept`] also says which name escaping scheme to state.
    ///
    /// ```
    /// use metric_handles::ExpositionFormat;
    ///
    /// // What Prometheus 2 sends: OpenMetrics preferred.
    /// let prometheus = "application/openmetrics-text;version=1.0.0,\
    ///                   application/openmetrics-text;version=0.0.1;q=0.75,\
    ///                   text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
    /// assert_eq!(ExpositionFormat::negotiate(Some(prometheus)), ExpositionFormat::OpenMetrics);
    /// assert_eq!(ExpositionFormat::negotiate(Some("*/*")), ExpositionFormat::PrometheusText);
    /// assert_eq!(ExpositionFormat::negotiate(None), ExpositionFormat::PrometheusText);
    /// ```
    pub fn negotiate(accept: Option<&str>) -> Self {
        Negotiated::from_accept(accept).format
    }

    /// The HTTP `Content-Type` of this format; a 1.0.0 format states `escaping=underscores`,
    /// what a scraper that asks for no scheme is answered with
    /// ([`Negotiated::content_type`] states the scheme asked for).
    pub const fn content_type(self) -> &'static str {
        Negotiated {
            format: self,
            escaping: NameEscaping::Underscores,
        }
        .content_type()
    }

    /// The weight and specificity of the most specific range in `ranges` that matches this
    /// format (the first one among equally specific ranges), if any does.
    fn preference(self, ranges: &[MediaRange]) -> Option<Preference> {
        let (kind, subtype, versions): (&str, &str, &[Option<&str>]) = match self {
            ExpositionFormat::OpenMetrics => (
                "application",
                "openmetrics-text",
                &[None, Some("1.0.0"), Some("0.0.1")],
            ),
            ExpositionFormat::PrometheusText => ("text", "plain", &[None, Some("0.0.4")]),
            ExpositionFormat::PrometheusTextV1 => ("text", "plain", &[None, Some("1.0.0")]),
            #[cfg(feature = "protobuf")]
            ExpositionFormat::PrometheusProtobuf => return protobuf_preference(ranges),
        };
        let mut best: Option<Preference> = None;
        for range in ranges {
            let Some((range_kind, range_subtype)) = range.media_type.split_once('/') else {
                continue;
            };
            let specificity = if range_kind == kind && range_subtype == subtype {
                let version_ok = versions.contains(&range.param("version"));
                let charset_ok = range
                    .param("charset")
                    .is_none_or(|c| c.eq_ignore_ascii_case("utf-8"));
                if !(version_ok && charset_ok) {
                    continue;
                }
                if range.param("version").is_some() {
                    Specificity::Versioned
                } else {
                    Specificity::Exact
                }
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
                    escaping: range.param("escaping").and_then(NameEscaping::from_param),
                });
            }
        }
        best
    }
}

/// The weight of the first range in `ranges` naming the Prometheus protobuf format with its
/// `proto` and `encoding` parameters (see [`ExpositionFormat::negotiate`]).
#[cfg(feature = "protobuf")]
fn protobuf_preference(ranges: &[MediaRange]) -> Option<Preference> {
    let range = ranges.iter().find(|range| {
        range.media_type == protobuf::MEDIA_TYPE
            && range.param("proto") == Some(protobuf::PROTO)
            && range.param("encoding") == Some(protobuf::ENCODING)
    })?;
    Some(Preference {
        weight: range.weight,
        specificity: Specificity::Versioned,
        escaping: range.param("escaping").and_then(NameEscaping::from_param),
    })
}

#[cfg(test)]
mod tests {
    use super::ExpositionFormat::{self, OpenMetrics, PrometheusText, PrometheusTextV1};

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
            // Text 1.0.0 when a range names its version; a bare `text/plain` is 0.0.4.
            ("text/plain;version=1.0.0", PrometheusTextV1),
            ("text/plain", PrometheusText),
            (
                "text/plain;version=1.0.0;q=0.5, text/plain;version=0.0.4;q=0.5",
                PrometheusText,
            ),
            (
                "text/plain;version=1.0.0;q=0.6, application/openmetrics-text;q=0.5",
                PrometheusTextV1,
            ),
            (
                "text/plain;version=1.0.0;q=0, text/plain;q=0.5",
                PrometheusText,
            ),
            ("text/plain;q=0, text/plain;version=1.0.0", PrometheusTextV1),
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
