//! One registry exposes each name once: a metrics struct registered twice, two structs whose
//! samples would collide, or `VllmMetrics` registered twice are refused with an error (and
//! nothing is registered); several models are served through one registration.

use metric_handles::prometheus_client::registry::Registry;
#[cfg(feature = "vllm")]
use metric_handles::vllm::{SchedulerStats, VllmMetrics, VllmMetricsConfig};
use metric_handles::{
    Counter, Family, Gauge, Histogram, MetricHandles, NoLabels, RegistrationError,
};

#[derive(MetricHandles)]
pub struct Served {
    /// Requests served
    #[metric(name = "app:requests")]
    pub requests: Family<NoLabels, Counter>,
    /// Request latency
    #[metric(name = "app:latency", buckets = [0.1, 1.0])]
    pub latency: Family<NoLabels, Histogram>,
}

#[derive(MetricHandles)]
pub struct RequestsGauge {
    /// Requests in flight
    #[metric(name = "app:in_flight")]
    pub in_flight: Family<NoLabels, Gauge>,
    /// Requests served, as a gauge
    #[metric(name = "app:requests_total")]
    pub requests_total: Family<NoLabels, Gauge>,
}

#[derive(MetricHandles)]
pub struct LatencyCount {
    /// Latencies measured
    #[metric(name = "app:latency_count")]
    pub latency_count: Family<NoLabels, Gauge>,
}

/// The error of a registration that must fail.
fn refused<T>(result: Result<T, RegistrationError>) -> RegistrationError {
    match result {
        Ok(_) => panic!("the registration should have been refused"),
        Err(error) => error,
    }
}

fn exposition(registry: &Registry) -> String {
    metric_handles::ExpositionFormat::OpenMetrics
        .encode(registry)
        .expect("encodes")
}

#[test]
fn colliding_samples_across_structs_are_refused_and_nothing_is_registered() {
    let mut registry = Registry::default();
    let served = Served::try_register(&mut registry).expect("first registration");
    served.resolve(&NoLabels).requests.inc();
    let before = exposition(&registry);

    let err = refused(RequestsGauge::try_register(&mut registry));
    assert_eq!(err.name, "app:requests_total");
    assert_eq!(err.existing, "app:requests");
    assert_eq!(err.existing_type, "counter");
    assert!(err.to_string().contains("app:requests_total"), "{err}");

    let err = refused(LatencyCount::try_register(&mut registry));
    assert_eq!(err.clashes_on, "app:latency_count");
    assert_eq!(err.existing_type, "histogram");

    // Neither refused struct registered anything, not even `app:in_flight`.
    assert_eq!(exposition(&registry), before);
}

#[test]
fn a_struct_registered_twice_is_an_error_not_a_duplicate_family() {
    let mut registry = Registry::default();
    Served::try_register(&mut registry).expect("first registration");
    let err = refused(Served::try_register(&mut registry));
    assert_eq!(
        (err.name.as_str(), err.existing.as_str()),
        ("app:requests", "app:requests")
    );
    assert!(err.to_string().contains("already registered"), "{err}");
    assert_eq!(
        exposition(&registry)
            .matches("# TYPE app:requests ")
            .count(),
        1
    );
    // Another registry is independent.
    Served::try_register(&mut Registry::default()).expect("fresh registry");
}

#[test]
#[should_panic(expected = "already registered")]
fn register_panics_with_the_error_message() {
    let mut registry = Registry::default();
    Served::register(&mut registry);
    Served::register(&mut registry);
}

#[cfg(feature = "vllm")]
#[test]
fn vllm_metrics_registered_twice_is_an_error() {
    let mut registry = Registry::default();
    VllmMetrics::try_register(&mut registry, VllmMetricsConfig::default()).expect("first");
    let before = exposition(&registry);
    let err = VllmMetrics::try_register(
        &mut registry,
        VllmMetricsConfig {
            model_name: "second-model".into(),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(err.name.starts_with("vllm:"), "{err}");
    assert_eq!(exposition(&registry), before);
}

#[cfg(feature = "vllm")]
#[test]
fn several_models_record_through_one_registration() {
    let mut registry = Registry::default();
    let llama = VllmMetrics::register(
        &mut registry,
        VllmMetricsConfig {
            model_name: "llama".into(),
            ..Default::default()
        },
    );
    let qwen = llama.with_model("qwen");
    assert_eq!(qwen.config().model_name, "qwen");
    for (metrics, running) in [(&llama, 3), (&qwen, 5)] {
        metrics.scheduler().record(
            0,
            &SchedulerStats {
                num_running_reqs: running,
                ..Default::default()
            },
        );
    }
    let text = exposition(&registry);
    assert!(text.contains(r#"vllm:num_requests_running{model_name="llama",engine="0"} 3"#));
    assert!(text.contains(r#"vllm:num_requests_running{model_name="qwen",engine="0"} 5"#));
    for line in text.lines().filter(|l| l.starts_with("# TYPE ")) {
        assert_eq!(text.matches(&format!("{line}\n")).count(), 1, "{line}");
    }
    // Removing qwen's engine 0 leaves llama's engine 0.
    assert!(qwen.scheduler().remove_engine(0));
    let text = exposition(&registry);
    assert!(text.contains(r#"model_name="llama",engine="0""#));
    assert!(!text.contains(r#"model_name="qwen""#));
}
