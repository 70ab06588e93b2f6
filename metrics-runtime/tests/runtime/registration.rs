//! One registry exposes each name once: a metrics struct registered twice, two structs whose
//! samples would collide, or `VllmMetrics` registered twice are refused with an error (and
//! nothing is registered); several models are served through one registration.

use crate::support::exposition::encode_openmetrics;
use metric_handles::prometheus_client::registry::Registry;
#[cfg(feature = "vllm")]
use metric_handles::vllm::{SchedulerStats, VllmMetrics, VllmMetricsConfig};
use metric_handles::{
    Counter, Family, Gauge, Histogram, MetricHandles, NoLabels, RegistrationError,
};

#[derive(Debug, MetricHandles)]
pub struct Served {
    /// Requests served
    #[metric(name = "app:requests")]
    pub requests: Family<NoLabels, Counter>,
    /// Request latency
    #[metric(name = "app:latency", buckets = [0.1, 1.0])]
    pub latency: Family<NoLabels, Histogram>,
}

#[derive(Debug, MetricHandles)]
pub struct RequestsGauge {
    /// Requests in flight
    #[metric(name = "app:in_flight")]
    pub in_flight: Family<NoLabels, Gauge>,
    /// Requests served, as a gauge
    #[metric(name = "app:requests_total")]
    pub requests_total: Family<NoLabels, Gauge>,
}

#[derive(Debug, MetricHandles)]
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

#[test]
fn colliding_samples_across_structs_are_refused_and_nothing_is_registered() {
    let mut registry = Registry::default();
    let served = Served::try_register(&mut registry).expect("first registration");
    served.resolve(&NoLabels).requests.inc();
    let before = encode_openmetrics(&registry);

    let err = refused(RequestsGauge::try_register(&mut registry));
    assert_eq!(err.name, "app:requests_total");
    assert_eq!(err.existing, "app:requests");
    assert_eq!(err.existing_type, "counter");
    assert!(err.to_string().contains("app:requests_total"), "{err}");

    let err = refused(LatencyCount::try_register(&mut registry));
    assert_eq!(err.clashes_on, "app:latency_count");
    assert_eq!(err.existing_type, "histogram");

    // Neither refused struct registered anything, not even `app:in_flight`.
    assert_eq!(encode_openmetrics(&registry), before);
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
        encode_openmetrics(&registry)
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
    let before = encode_openmetrics(&registry);
    let err = VllmMetrics::try_register(
        &mut registry,
        VllmMetricsConfig {
            model_name: "second-model".into(),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(err.name.starts_with("vllm:"), "{err}");
    assert_eq!(encode_openmetrics(&registry), before);
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
    let text = encode_openmetrics(&registry);
    assert!(text.contains(r#"vllm:num_requests_running{model_name="llama",engine="0"} 3"#));
    assert!(text.contains(r#"vllm:num_requests_running{model_name="qwen",engine="0"} 5"#));
    for line in text.lines().filter(|l| l.starts_with("# TYPE ")) {
        assert_eq!(text.matches(&format!("{line}\n")).count(), 1, "{line}");
    }
    // Removing qwen's engine 0 leaves llama's engine 0.
    assert!(qwen.scheduler().remove_engine(0));
    let text = encode_openmetrics(&registry);
    assert!(text.contains(r#"model_name="llama",engine="0""#));
    assert!(!text.contains(r#"model_name="qwen""#));
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, metric_handles::LabelSet)]
pub struct Replica {
    pub replica: u32,
}

/// One family of each type, the template of the many structs registered below.
#[derive(Debug, MetricHandles)]
#[metric_handles(labels = Replica)]
pub struct Mixed {
    /// Jobs done
    #[metric(name = "jobs")]
    pub jobs: Family<Replica, Counter>,
    /// Jobs queued
    #[metric(name = "queued")]
    pub queued: Family<Replica, Gauge>,
    /// Job time
    #[metric(name = "job_time", unit = "seconds", buckets = [0.1, 1.0, 10.0])]
    pub job_time: Family<Replica, Histogram>,
}

/// Registers `Mixed`'s families under the prefix `p`, through the calls a generated
/// `try_register_with` makes: the registration check, then one `register_family` per field.
fn register_mixed_as(registry: &mut Registry, p: &str) -> Result<(), RegistrationError> {
    use metric_handles::__private::register_family as reg;
    use metric_handles::{MetricDescriptor, MetricKind, RegisterOptions};
    let descriptors: Vec<MetricDescriptor> = Mixed::DESCRIPTORS
        .iter()
        .map(|d| MetricDescriptor {
            name: Box::leak(format!("{p}:{}", d.name).into_boxed_str()),
            ..*d
        })
        .collect();
    let options = RegisterOptions::new();
    metric_handles::__private::check_registration(registry, &descriptors, &options)?;
    for d in &descriptors {
        match d.kind {
            MetricKind::Counter => drop(reg::<Replica, Counter>(registry, d, &options)),
            MetricKind::Gauge => drop(reg::<Replica, Gauge>(registry, d, &options)),
            MetricKind::Histogram => drop(reg::<Replica, Histogram>(registry, d, &options)),
        }
    }
    Ok(())
}

/// Registers `count` structs of three families each, returning the milliseconds the first
/// and the last tenth took.
fn register_many(registry: &mut Registry, count: usize) -> (f64, f64, f64) {
    let tenth = count / 10;
    let mut times = Vec::with_capacity(count);
    for i in 0..count {
        let started = std::time::Instant::now();
        register_mixed_as(registry, &format!("s{i}")).expect("distinct names register");
        times.push(started.elapsed().as_secs_f64() * 1e3);
    }
    let first: f64 = times[..tenth].iter().sum();
    let last: f64 = times[count - tenth..].iter().sum();
    (times.iter().sum(), first, last)
}

#[test]
fn registering_many_structs_costs_in_proportion_to_what_is_registered() {
    let count = 200;
    let mut registry = Registry::default();
    let (total, first, last) = register_many(&mut registry, count);
    // A registry already holding 2,000 label sets (a struct resolved for 2,000 replicas).
    let mut busy = Registry::default();
    let replicas = Mixed::register(&mut busy);
    for replica in 0..2000 {
        replicas.resolve(&Replica { replica });
    }
    let (busy_total, busy_first, busy_last) = register_many(&mut busy, count);
    println!(
        "registering {count} structs of 3 families: {total:.1} ms (first 20: {first:.2} ms, last \
         20: {last:.2} ms); beside 2,000 resolved label sets: {busy_total:.1} ms (first 20: \
         {busy_first:.2} ms, last 20: {busy_last:.2} ms)"
    );
    // Every family is exposed once, and a name already taken is still refused.
    let text = encode_openmetrics(&registry);
    assert_eq!(text.matches("# TYPE ").count(), 3 * count);
    let err = register_mixed_as(&mut registry, "s7").unwrap_err();
    assert_eq!(err.existing, "s7:jobs");
    let err = register_mixed_as(&mut busy, "s0").unwrap_err();
    assert_eq!(err.existing, "s0:jobs");
    // The check did not disturb the series the busy registry holds.
    let text = encode_openmetrics(&busy);
    assert_eq!(text.matches("jobs_total{replica=").count(), 2000);
}
