//! What each Prometheus version asks for, and what it is answered with.
//!
//! The `Accept` headers are fixed strings: Prometheus 3.4 and later build theirs from the
//! configured scrape protocols and name escaping scheme, as prometheus/prometheus
//! `scrape/scrape_test.go` (`TestAcceptHeader`) expects them; Prometheus 3.0 to 3.3 put
//! `escaping=allow-utf-8` on every element; Prometheus 2.x sends one of the two constants of
//! its `scrape/scrape.go` (`scrapeAcceptHeader`, and `scrapeAcceptHeaderWithProtobuf` with
//! `--enable-feature=native-histograms`). Prometheus 3 fails a scrape whose `Content-Type` is
//! missing or unknown, so the header is asserted whole.

use metric_handles::exposition::{NameEscaping, Negotiated};
use metric_handles::{ExpositionFormat, Registry};

const OPENMETRICS_UTF8: &str =
    "application/openmetrics-text; version=1.0.0; charset=utf-8; escaping=allow-utf-8";
const OPENMETRICS_UNDERSCORES: &str =
    "application/openmetrics-text; version=1.0.0; charset=utf-8; escaping=underscores";

/// (who sends it, `Accept`, the format, the `Content-Type` answered)
const SCRAPERS: &[(&str, &str, ExpositionFormat, &str)] = &[
    (
        "Prometheus 3.4-3.14, default scrape protocols (escaping allow-utf-8)",
        "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,\
         application/openmetrics-text;version=0.0.1;q=0.5,\
         text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,\
         text/plain;version=0.0.4;q=0.3,*/*;q=0.2",
        ExpositionFormat::OpenMetrics,
        OPENMETRICS_UTF8,
    ),
    (
        "Prometheus 3.4-3.14, default scrape protocols, escaping underscores",
        "application/openmetrics-text;version=1.0.0;escaping=underscores;q=0.6,\
         application/openmetrics-text;version=0.0.1;q=0.5,\
         text/plain;version=1.0.0;escaping=underscores;q=0.4,\
         text/plain;version=0.0.4;q=0.3,*/*;q=0.2",
        ExpositionFormat::OpenMetrics,
        OPENMETRICS_UNDERSCORES,
    ),
    (
        "Prometheus 3.0-3.3, default scrape protocols",
        "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,\
         application/openmetrics-text;version=0.0.1;escaping=allow-utf-8;q=0.5,\
         text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,\
         text/plain;version=0.0.4;escaping=allow-utf-8;q=0.3,*/*;q=0.2",
        ExpositionFormat::OpenMetrics,
        OPENMETRICS_UTF8,
    ),
    (
        "Prometheus 3, scrape_protocols: [PrometheusText1.0.0, PrometheusText0.0.4]",
        "text/plain;version=1.0.0;escaping=allow-utf-8;q=0.6,\
         text/plain;version=0.0.4;q=0.5,*/*;q=0.4",
        ExpositionFormat::PrometheusTextV1,
        "text/plain; version=1.0.0; charset=utf-8; escaping=allow-utf-8",
    ),
    (
        "Prometheus 3, scrape_protocols: [PrometheusText0.0.4]",
        "text/plain;version=0.0.4;q=0.6,*/*;q=0.5",
        ExpositionFormat::PrometheusText,
        "text/plain; version=0.0.4; charset=utf-8",
    ),
    (
        "Prometheus 2.x (2.42), scrapeAcceptHeader",
        "application/openmetrics-text;version=1.0.0,\
         application/openmetrics-text;version=0.0.1;q=0.75,\
         text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
        ExpositionFormat::OpenMetrics,
        OPENMETRICS_UNDERSCORES,
    ),
    (
        "curl and browsers",
        "*/*",
        ExpositionFormat::PrometheusText,
        "text/plain; version=0.0.4; charset=utf-8",
    ),
];

/// Scrapers that ask for the Prometheus protobuf format first: (who, `Accept`, the format and
/// `Content-Type` answered without the `protobuf` feature, their next preference).
const PROTOBUF_FIRST: &[(&str, &str, ExpositionFormat, &str)] = &[
    (
        "Prometheus 3.4-3.14, protobuf first, escaping dots",
        "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.6,\
         application/openmetrics-text;version=1.0.0;escaping=dots;q=0.5,\
         application/openmetrics-text;version=0.0.1;q=0.4,\
         text/plain;version=1.0.0;escaping=dots;q=0.3,\
         text/plain;version=0.0.4;q=0.2,*/*;q=0.1",
        ExpositionFormat::OpenMetrics,
        "application/openmetrics-text; version=1.0.0; charset=utf-8; escaping=dots",
    ),
    (
        "Prometheus 3.4-3.14, scrape_native_histograms (protobuf first, escaping allow-utf-8)",
        "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.6,\
         application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,\
         application/openmetrics-text;version=0.0.1;q=0.4,\
         text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,\
         text/plain;version=0.0.4;q=0.2,*/*;q=0.1",
        ExpositionFormat::OpenMetrics,
        OPENMETRICS_UTF8,
    ),
    (
        "Prometheus 2.x (2.42), scrapeAcceptHeaderWithProtobuf",
        "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,\
         application/openmetrics-text;version=1.0.0;q=0.8,\
         application/openmetrics-text;version=0.0.1;q=0.75,\
         text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
        ExpositionFormat::OpenMetrics,
        OPENMETRICS_UNDERSCORES,
    ),
];

/// What client_golang's `expfmt` (`FmtProtoDelim`) answers a protobuf scrape with.
#[cfg(feature = "protobuf")]
const PROTOBUF_CONTENT_TYPE: &str =
    "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";

#[test]
fn protobuf_first_scrapers_get_protobuf_with_the_feature_and_their_next_preference_without() {
    for (who, accept, fallback, fallback_content_type) in PROTOBUF_FIRST {
        let negotiated = Negotiated::from_accept(Some(accept));
        #[cfg(feature = "protobuf")]
        {
            let _ = (fallback, fallback_content_type);
            assert_eq!(
                negotiated.format,
                ExpositionFormat::PrometheusProtobuf,
                "{who}"
            );
            assert_eq!(negotiated.content_type(), PROTOBUF_CONTENT_TYPE, "{who}");
        }
        #[cfg(not(feature = "protobuf"))]
        {
            assert_eq!(negotiated.format, *fallback, "{who}");
            assert_eq!(negotiated.content_type(), *fallback_content_type, "{who}");
        }
    }
}

#[test]
fn each_prometheus_version_gets_the_format_and_content_type_it_expects() {
    for (who, accept, format, content_type) in SCRAPERS {
        let negotiated = Negotiated::from_accept(Some(accept));
        assert_eq!(negotiated.format, *format, "{who}");
        assert_eq!(negotiated.content_type(), *content_type, "{who}");
        assert_eq!(ExpositionFormat::negotiate(Some(accept)), *format, "{who}");
    }
}

#[test]
fn escaping_comes_from_the_range_that_chose_the_format() {
    let cases: &[(&str, ExpositionFormat, NameEscaping)] = &[
        // The chosen range names no scheme: underscores, whatever other ranges say.
        (
            "application/openmetrics-text;q=0.9, text/plain;version=1.0.0;escaping=dots;q=0.5",
            ExpositionFormat::OpenMetrics,
            NameEscaping::Underscores,
        ),
        (
            "text/plain;version=1.0.0;escaping=values",
            ExpositionFormat::PrometheusTextV1,
            NameEscaping::Values,
        ),
        // A scheme Prometheus does not define is ignored.
        (
            "text/plain;version=1.0.0;escaping=rot13",
            ExpositionFormat::PrometheusTextV1,
            NameEscaping::Underscores,
        ),
        (
            "application/openmetrics-text;escaping=Allow-UTF-8",
            ExpositionFormat::OpenMetrics,
            NameEscaping::AllowUtf8,
        ),
    ];
    for (accept, format, escaping) in cases {
        let negotiated = Negotiated::from_accept(Some(accept));
        assert_eq!(
            (negotiated.format, negotiated.escaping),
            (*format, *escaping),
            "Accept: {accept}"
        );
    }
    // Text 0.0.4 states no scheme, even when one was asked for.
    let classic = Negotiated::from_accept(Some("text/plain;version=0.0.4;escaping=allow-utf-8"));
    assert_eq!(
        classic.content_type(),
        "text/plain; version=0.0.4; charset=utf-8"
    );
}

#[test]
fn text_1_0_0_is_the_classic_text_for_legacy_names() {
    let mut registry = Registry::default();
    let counter = metric_handles::Counter::<u64>::default();
    counter.inc_by(3);
    registry.register("kv_requests", "Requests served", counter);
    let v1 = ExpositionFormat::PrometheusTextV1
        .encode(&registry)
        .unwrap();
    assert_eq!(
        v1,
        ExpositionFormat::PrometheusText.encode(&registry).unwrap()
    );
    assert!(v1.contains("kv_requests_total 3\n"), "{v1}");
    assert_eq!(
        ExpositionFormat::PrometheusTextV1.content_type(),
        "text/plain; version=1.0.0; charset=utf-8; escaping=underscores"
    );
}

#[test]
fn every_1_0_0_content_type_states_its_scheme() {
    use NameEscaping::{AllowUtf8, Dots, Underscores, Values};
    for escaping in [AllowUtf8, Underscores, Dots, Values] {
        for (format, base) in [
            (
                ExpositionFormat::OpenMetrics,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            ),
            (
                ExpositionFormat::PrometheusTextV1,
                "text/plain; version=1.0.0; charset=utf-8",
            ),
        ] {
            assert_eq!(
                Negotiated { format, escaping }.content_type(),
                format!("{base}; escaping={}", escaping.as_str())
            );
        }
    }
}
