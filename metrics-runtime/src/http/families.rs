//! The HTTP request families and their registration.

use super::labels::{HttpHandlerLabels, HttpRequestLabels, HTTP_MAX_SERIES};
use crate::buckets::Buckets;
use crate::descriptor::{MetricDescriptor, MetricKind};
use crate::family::register::register_family;
use crate::labels::NoLabels;
use crate::registry::RegisterOptions;
use crate::registry::{check_registration, RegistrationError, Registry};
use crate::{Counter, Family, Histogram, LabelSet};

/// Bounds of `http_request_duration_seconds`, in seconds (vLLM's Rust frontend,
/// `rust/src/metrics/src/api_server.rs`).
pub const HTTP_REQUEST_DURATION_BUCKETS: &[f64] = &[0.1, 0.5, 1.0];

/// Bounds of `http_request_duration_highr_seconds`, in seconds (vLLM's Rust frontend,
/// `rust/src/metrics/src/api_server.rs`).
pub const HTTP_REQUEST_DURATION_HIGHR_BUCKETS: &[f64] = &[
    0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0,
    7.5, 10.0, 30.0, 60.0,
];

/// Route templates whose requests are not recorded: vLLM's Rust frontend's list
/// (`rust/src/server/src/middleware/metrics.rs`), which extends the Python server's
/// (`vllm/entrypoints/serve/instrumentator/metrics.py`) with its own control endpoints.
pub const EXCLUDED_HANDLERS: &[&str] = &[
    "/metrics",
    "/health",
    "/load",
    "/ping",
    "/version",
    "/server_info",
    "/reset_prefix_cache",
    "/reset_mm_cache",
    "/reset_encoder_cache",
    "/collective_rpc",
    "/sleep",
    "/wake_up",
    "/is_sleeping",
];

/// Whether requests to the route template `handler` are left out of the HTTP families.
pub fn is_excluded_handler(handler: &str) -> bool {
    EXCLUDED_HANDLERS.contains(&handler)
}

/// The three HTTP families, registered.
#[derive(Clone, Debug)]
pub struct HttpMetrics {
    /// `http_requests_total` {`method`, `status`, `handler`}.
    pub requests: Family<HttpRequestLabels, Counter>,
    /// `http_request_duration_seconds` {`method`, `handler`}.
    pub duration: Family<HttpHandlerLabels, Histogram>,
    /// `http_request_duration_highr_seconds`, unlabelled.
    pub duration_highr: Histogram,
}

impl HttpMetrics {
    /// `http_requests_total`: help text is vLLM's Rust frontend's, without the final `.` the
    /// exposition adds (as for the two below).
    pub const REQUESTS: MetricDescriptor = MetricDescriptor::new(
        "http_requests",
        "requests",
        MetricKind::Counter,
        "Counter",
        "Total number of HTTP requests by method, status, and handler",
    )
    .common_labels(<HttpRequestLabels as LabelSet>::KEYS)
    .max_label_sets(HTTP_MAX_SERIES)
    .with_computed(
        "+1 per HTTP request, by method, status class (`2xx`...) and matched route template \
        (`none` when no route matched), recorded by an HTTP layer through \
        `metric_handles::http::HttpMetrics`; requests to `EXCLUDED_HANDLERS` are not counted.",
    );

    /// `http_request_duration_seconds`.
    pub const DURATION: MetricDescriptor = MetricDescriptor::new(
        "http_request_duration_seconds",
        "duration",
        MetricKind::Histogram,
        "Histogram",
        "Duration of HTTP requests in seconds grouped by method and handler",
    )
    .common_labels(<HttpHandlerLabels as LabelSet>::KEYS)
    .buckets(Buckets::Explicit(HTTP_REQUEST_DURATION_BUCKETS))
    .max_label_sets(HTTP_MAX_SERIES)
    .with_computed(
        "Observes each request's duration, by method and route template (same exclusions).",
    );

    /// `http_request_duration_highr_seconds`.
    pub const DURATION_HIGHR: MetricDescriptor = MetricDescriptor::new(
        "http_request_duration_highr_seconds",
        "duration_highr",
        MetricKind::Histogram,
        "Histogram",
        "High-resolution duration of HTTP requests in seconds",
    )
    .buckets(Buckets::Explicit(HTTP_REQUEST_DURATION_HIGHR_BUCKETS))
    .max_label_sets(1)
    .with_computed("Observes each request's duration, unlabelled (same exclusions).");

    /// The three families, in registration order: feeds the metric catalogue.
    pub const DESCRIPTORS: &'static [MetricDescriptor] =
        &[Self::REQUESTS, Self::DURATION, Self::DURATION_HIGHR];

    /// Registers the three families in `registry`.
    ///
    /// # Panics
    ///
    /// If a name they would write is taken (a second registration in one registry, say);
    /// [`try_register`](Self::try_register) returns the error instead.
    #[track_caller]
    pub fn register(registry: &mut Registry) -> Self {
        Self::register_with(registry, &RegisterOptions::new())
    }

    /// Registers the three families with `options` (bucket overrides and series limits, keyed
    /// by the names above).
    ///
    /// # Panics
    ///
    /// As [`register`](Self::register).
    #[track_caller]
    pub fn register_with(registry: &mut Registry, options: &RegisterOptions) -> Self {
        match Self::try_register_with(registry, options) {
            Ok(metrics) => metrics,
            Err(error) => panic!("{error}"),
        }
    }

    /// Registers the three families, unless a name they would write is taken: then nothing
    /// is registered and the error names both families.
    pub fn try_register(registry: &mut Registry) -> Result<Self, RegistrationError> {
        Self::try_register_with(registry, &RegisterOptions::new())
    }

    /// [`try_register`](Self::try_register) with `options`.
    pub fn try_register_with(
        registry: &mut Registry,
        options: &RegisterOptions,
    ) -> Result<Self, RegistrationError> {
        check_registration(registry, "HttpMetrics", Self::DESCRIPTORS, options)?;
        let requests = register_family(registry, &Self::REQUESTS, options);
        let duration = register_family(registry, &Self::DURATION, options);
        let duration_highr =
            register_family::<NoLabels, Histogram>(registry, &Self::DURATION_HIGHR, options);
        Ok(HttpMetrics {
            requests,
            duration,
            duration_highr: duration_highr.get_or_create(&NoLabels),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::{Handler, StatusClass, UNMATCHED_HANDLER};
    use crate::test_support::{assert_has_lines, exposition};
    use crate::LabelEnum;

    #[test]
    fn status_codes_map_to_vllm_status_classes() {
        let label = |code| StatusClass::from_code(code).label_value();
        assert_eq!(label(101), "1xx");
        assert_eq!(label(200), "2xx");
        assert_eq!(label(204), "2xx");
        assert_eq!(label(302), "3xx");
        assert_eq!(label(404), "4xx");
        assert_eq!(label(503), "5xx");
        assert_eq!(label(99), "unknown");
        assert_eq!(label(600), "unknown");
        assert_eq!(label(0), "unknown");
    }

    #[test]
    fn control_endpoints_are_excluded_and_inference_routes_are_not() {
        for handler in ["/metrics", "/health", "/sleep", "/wake_up", "/is_sleeping"] {
            assert!(is_excluded_handler(handler), "{handler}");
        }
        for handler in [
            "/v1/completions",
            "/v1/models",
            UNMATCHED_HANDLER,
            "/health/x",
        ] {
            assert!(!is_excluded_handler(handler), "{handler}");
        }
    }

    /// Each family is written three times here (its constant, its entry in `DESCRIPTORS`, its
    /// registration): a family registered but left out of `DESCRIPTORS` would be missing from
    /// the catalogue and from the registration's name check, so the two must list the same
    /// families, in the same order.
    #[test]
    fn the_registered_families_are_the_descriptors() {
        let mut registry = Registry::default();
        let http = HttpMetrics::register(&mut registry);
        // One series each, so that every family writes its `# TYPE` line.
        http.requests
            .get_or_create(&HttpRequestLabels {
                method: "GET".into(),
                status: StatusClass::Success,
                handler: Handler::Unmatched,
            })
            .inc();
        http.duration
            .get_or_create(&HttpHandlerLabels {
                method: "GET".into(),
                handler: Handler::Unmatched,
            })
            .observe(0.1);
        let text = exposition(&registry);
        let exposed: Vec<&str> = text
            .lines()
            .filter_map(|line| line.strip_prefix("# TYPE "))
            .filter_map(|line| line.split(' ').next())
            .collect();
        let declared: Vec<String> = HttpMetrics::DESCRIPTORS
            .iter()
            .map(MetricDescriptor::exposed_name)
            .collect();
        assert_eq!(exposed, declared);
    }

    #[test]
    fn the_three_families_are_exposed_with_vllm_names_labels_and_buckets() {
        let mut registry = Registry::default();
        let http = HttpMetrics::register(&mut registry);
        http.requests
            .get_or_create(&HttpRequestLabels {
                method: "GET".into(),
                status: StatusClass::from_code(404),
                handler: Handler::Unmatched,
            })
            .inc();
        let handler = HttpHandlerLabels {
            method: "POST".into(),
            handler: Handler::Route("/v1/completions".into()),
        };
        http.duration.get_or_create(&handler).observe(0.3);
        http.duration_highr.observe(0.3);
        let text = exposition(&registry);
        assert_has_lines(
            &text,
            &[
                "# HELP http_requests_total Total number of HTTP requests by method, status, and handler.",
                "# TYPE http_requests_total counter",
                r#"http_requests_total{method="GET",status="4xx",handler="none"} 1"#,
                "# HELP http_request_duration_seconds Duration of HTTP requests in seconds grouped by method and handler.",
                r#"http_request_duration_seconds_bucket{method="POST",handler="/v1/completions",le="0.1"} 0"#,
                r#"http_request_duration_seconds_bucket{method="POST",handler="/v1/completions",le="0.5"} 1"#,
                r#"http_request_duration_seconds_bucket{method="POST",handler="/v1/completions",le="+Inf"} 1"#,
                "# HELP http_request_duration_highr_seconds High-resolution duration of HTTP requests in seconds.",
                r#"http_request_duration_highr_seconds_bucket{le="0.25"} 0"#,
                r#"http_request_duration_highr_seconds_bucket{le="0.5"} 1"#,
                r#"http_request_duration_highr_seconds_bucket{le="60"} 1"#,
                "http_request_duration_highr_seconds_count 1",
            ],
        );
    }
}
