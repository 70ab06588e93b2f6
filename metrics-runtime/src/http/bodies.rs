//! The opt-in HTTP families: request and response body sizes and requests in progress.
//!
//! vLLM's Rust frontend exports none of them, so [`HttpMetrics`](super::HttpMetrics) leaves them
//! out and a server registers them on purpose ([`HttpBodyMetrics::register`]) and hands them to
//! the HTTP layer (`HttpMetricsLayer::with_body_metrics`, feature `http-layer`), which measures
//! by wrapping the request and response bodies:
//!
//! * `http_request_size_bytes` {`method`, `handler`}: a histogram of the request body bytes the
//!   service read (the data frames it polled; a body it never read counts 0), observed when the
//!   service drops the request body;
//! * `http_response_size_bytes` {`method`, `handler`}: a histogram of the response body bytes
//!   the body yielded to the server (the data frames, after any encoding applied inside the
//!   layer; headers and trailers not counted), observed when the body ends or is dropped
//!   unfinished (the client went away);
//! * `http_requests_inprogress` {`method`, `handler`}: a gauge of the requests between reaching
//!   the layer and the end of their response body (or the drop of their response future or
//!   body, whichever comes first).
//!
//! The names are prometheus-fastapi-instrumentator's. Its two sizes are summaries over the
//! `Content-Length` headers only, labelled by `handler`; these are histograms of the bytes that
//! went through (a streamed response without a `Content-Length` has its real size), by `method`
//! and `handler` as `http_request_duration_seconds` is.

use crate::buckets::Buckets;
use crate::descriptor::{MetricDescriptor, MetricKind};
use crate::family::register::register_family;
use crate::http::{HttpHandlerLabels, HTTP_MAX_SERIES};
use crate::registry::RegisterOptions;
use crate::registry::{check_registration, RegistrationError, Registry};
use crate::{Family, Gauge, Histogram, LabelSet};

/// Bounds of `http_request_size_bytes` and `http_response_size_bytes`, in bytes: powers of 4
/// from 64 B to 16 MiB.
pub const HTTP_BODY_SIZE_BUCKETS: &[f64] = &[
    64.0,
    256.0,
    1024.0,
    4096.0,
    16384.0,
    65536.0,
    262_144.0,
    1_048_576.0,
    4_194_304.0,
    16_777_216.0,
];

/// The three opt-in HTTP families, registered.
#[derive(Clone, Debug)]
pub struct HttpBodyMetrics {
    /// `http_request_size_bytes` {`method`, `handler`}.
    pub request_size: Family<HttpHandlerLabels, Histogram>,
    /// `http_response_size_bytes` {`method`, `handler`}.
    pub response_size: Family<HttpHandlerLabels, Histogram>,
    /// `http_requests_inprogress` {`method`, `handler`}.
    pub in_progress: Family<HttpHandlerLabels, Gauge>,
}

impl HttpBodyMetrics {
    /// `http_request_size_bytes`.
    pub const REQUEST_SIZE: MetricDescriptor = MetricDescriptor::new(
        "http_request_size_bytes",
        "request_size",
        MetricKind::Histogram,
        "Histogram",
        "Bytes of HTTP request bodies read by the service, by method and handler",
    )
    .common_labels(<HttpHandlerLabels as LabelSet>::KEYS)
    .buckets(Buckets::Explicit(HTTP_BODY_SIZE_BUCKETS))
    .max_label_sets(HTTP_MAX_SERIES)
    .with_computed(
        "Observes the request body bytes the service read (the data frames it polled) when it \
        drops the body, by method and route template (the exclusions of the HTTP families).",
    );

    /// `http_response_size_bytes`.
    pub const RESPONSE_SIZE: MetricDescriptor = MetricDescriptor::new(
        "http_response_size_bytes",
        "response_size",
        MetricKind::Histogram,
        "Histogram",
        "Bytes of HTTP response bodies sent, by method and handler",
    )
    .common_labels(<HttpHandlerLabels as LabelSet>::KEYS)
    .buckets(Buckets::Explicit(HTTP_BODY_SIZE_BUCKETS))
    .max_label_sets(HTTP_MAX_SERIES)
    .with_computed(
        "Observes the response body bytes yielded to the server when the body ends or is \
        dropped unfinished, by method and route template (same exclusions).",
    );

    /// `http_requests_inprogress`.
    pub const IN_PROGRESS: MetricDescriptor = MetricDescriptor::new(
        "http_requests_inprogress",
        "in_progress",
        MetricKind::Gauge,
        "Gauge",
        "HTTP requests in progress, by method and handler",
    )
    .common_labels(<HttpHandlerLabels as LabelSet>::KEYS)
    .max_label_sets(HTTP_MAX_SERIES)
    .with_computed(
        "+1 when a request reaches the HTTP layer, -1 when its response body ends or is dropped, \
        or its response future is dropped or fails, by method and route template (same \
        exclusions).",
    );

    /// The three families, in registration order.
    pub const DESCRIPTORS: &'static [MetricDescriptor] =
        &[Self::REQUEST_SIZE, Self::RESPONSE_SIZE, Self::IN_PROGRESS];

    /// Registers the three families in `registry`.
    ///
    /// # Panics
    ///
    /// If a name they would write is taken; [`try_register`](Self::try_register) returns the
    /// error instead.
    #[track_caller]
    pub fn register(registry: &mut Registry) -> Self {
        match Self::try_register_with(registry, &RegisterOptions::new()) {
            Ok(metrics) => metrics,
            Err(error) => panic!("{error}"),
        }
    }

    /// Registers the three families, unless a name they would write is taken: then nothing
    /// is registered.
    pub fn try_register(registry: &mut Registry) -> Result<Self, RegistrationError> {
        Self::try_register_with(registry, &RegisterOptions::new())
    }

    /// [`try_register`](Self::try_register) with `options` (bucket overrides and series
    /// limits, keyed by the names above).
    pub fn try_register_with(
        registry: &mut Registry,
        options: &RegisterOptions,
    ) -> Result<Self, RegistrationError> {
        check_registration(registry, "HttpBodyMetrics", Self::DESCRIPTORS, options)?;
        Ok(HttpBodyMetrics {
            request_size: register_family(registry, &Self::REQUEST_SIZE, options),
            response_size: register_family(registry, &Self::RESPONSE_SIZE, options),
            in_progress: register_family(registry, &Self::IN_PROGRESS, options),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::Handler;
    use crate::test_support::{assert_has_lines, exposition};

    #[test]
    fn the_three_families_are_exposed_with_their_names_labels_and_buckets() {
        let mut registry = Registry::default();
        let bodies = HttpBodyMetrics::register(&mut registry);
        let labels = HttpHandlerLabels {
            method: "POST".into(),
            handler: Handler::Route("/v1/completions".into()),
        };
        bodies.request_size.get_or_create(&labels).observe(100.0);
        bodies.response_size.get_or_create(&labels).observe(5000.0);
        bodies.in_progress.get_or_create(&labels).inc();
        assert_has_lines(
            &exposition(&registry),
            &[
                "# TYPE http_request_size_bytes histogram",
                r#"http_request_size_bytes_bucket{method="POST",handler="/v1/completions",le="64"} 0"#,
                r#"http_request_size_bytes_bucket{method="POST",handler="/v1/completions",le="256"} 1"#,
                "# TYPE http_response_size_bytes histogram",
                r#"http_response_size_bytes_bucket{method="POST",handler="/v1/completions",le="4096"} 0"#,
                r#"http_response_size_bytes_bucket{method="POST",handler="/v1/completions",le="16384"} 1"#,
                "# TYPE http_requests_inprogress gauge",
                r#"http_requests_inprogress{method="POST",handler="/v1/completions"} 1"#,
            ],
        );
        assert!(HttpBodyMetrics::try_register(&mut registry).is_err());
    }
}
