//! One registry tree exposes each name once: a metrics struct registered twice, two structs
//! whose samples would collide, a prefix or const labels that make two families of one name,
//! the HTTP families or `VllmMetrics` registered twice are refused with an error naming both
//! sides (and nothing is registered); several models are served through one registration.

use std::borrow::Cow;

use crate::support::exposition::encode_openmetrics;
use metric_handles::histogram::GaugeHistogram;
#[cfg(feature = "vllm")]
use metric_handles::vllm::scheduler::SchedulerStats;
#[cfg(feature = "vllm")]
use metric_handles::vllm::{VllmMetrics, VllmMetricsConfig};
use metric_handles::Registry;
use metric_handles::{
    Counter, Family, Gauge, Histogram, Info, LabelEnum, MetricHandles, NoLabels, RegistrationError,
    StateSet,
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
#[track_caller]
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
    assert_eq!(err.family().name, "app:requests_total");
    assert_eq!(err.family().registered_by, "`RequestsGauge.requests_total`");
    assert_eq!(err.family().metric_type, "gauge");
    let existing = err.existing().expect("a name clash");
    assert_eq!(existing.name, "app:requests");
    assert_eq!(existing.metric_type, "counter");
    assert_eq!(existing.registered_by, "`Served.requests`");
    // The message names both sides: struct, field and type of each.
    assert_eq!(
        err.to_string(),
        "`RequestsGauge.requests_total` would write `app:requests_total` (as the gauge \
         `app:requests_total`), but the counter `app:requests` (registered by \
         `Served.requests`) writes it already: scrapers reject an exposition in which two \
         families write one name; rename one of them"
    );

    let err = refused(LatencyCount::try_register(&mut registry));
    assert_eq!(err.clashes_on(), Some("app:latency_count"));
    assert_eq!(err.existing().map(|e| e.metric_type), Some("histogram"));

    // Neither refused struct registered anything, not even `app:in_flight`.
    assert_eq!(encode_openmetrics(&registry), before);
}

#[test]
fn a_struct_registered_twice_is_an_error_not_a_duplicate_family() {
    let mut registry = Registry::default();
    Served::try_register(&mut registry).expect("first registration");
    let err = refused(Served::try_register(&mut registry));
    assert_eq!(err.family(), err.existing().expect("a name clash"));
    assert_eq!(
        err.to_string(),
        "`Served.requests` registers the counter `app:requests` a second time in this registry: \
         register each metrics struct once per registry, and record several label sets \
         (models, engines) through that one registration"
    );
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
#[should_panic(expected = "a second time in this registry")]
fn register_panics_with_the_error_message() {
    let mut registry = Registry::default();
    Served::register(&mut registry);
    Served::register(&mut registry);
}

#[derive(Debug, MetricHandles)]
pub struct KvStore {
    /// Keys stored
    #[metric(name = "kv_keys")]
    pub kv_keys: Family<NoLabels, Gauge>,
}

#[test]
fn a_prefixed_sub_registry_sees_the_names_of_the_whole_tree() {
    let mut registry = Registry::default();
    registry.register(
        "acme_kv_keys",
        "Keys stored by the old exporter",
        <Gauge>::default(),
    );
    let before = encode_openmetrics(&registry);
    let err = refused(KvStore::try_register(
        registry.sub_registry_with_prefix("acme"),
    ));
    assert_eq!(err.family().name, "acme_kv_keys");
    assert_eq!(err.family().registered_by, "`KvStore.kv_keys`");
    let existing = err.existing().expect("a name clash");
    assert_eq!(existing.registered_by, "`Registry::register`");
    assert!(
        err.to_string()
            .contains("`KvStore.kv_keys` would write `acme_kv_keys`"),
        "{err}"
    );
    // The empty sub-registry adds nothing to the exposition.
    assert_eq!(encode_openmetrics(&registry), before);
}

#[test]
fn one_struct_under_two_const_labels_is_refused_with_advice_to_label_it() {
    let mut registry = Registry::default();
    let region = |value: &'static str| (Cow::Borrowed("region"), Cow::Borrowed(value));
    KvStore::register(registry.sub_registry_with_label(region("eu")))
        .resolve(&NoLabels)
        .kv_keys
        .set(3);
    let before = encode_openmetrics(&registry);
    let err = refused(KvStore::try_register(
        registry.sub_registry_with_label(region("us")),
    ));
    assert_eq!(
        err.to_string(),
        r#"`KvStore.kv_keys` registers the gauge `kv_keys` a second time, with the const labels {region="us"} beside {region="eu"}: the exposition would hold two families named `kv_keys`, which scrapers reject; register it once and put the label into its label set instead"#
    );
    assert_eq!(encode_openmetrics(&registry), before);
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, metric_handles::LabelSet)]
pub struct Region {
    pub region: String,
}

#[derive(Debug, MetricHandles)]
#[metric_handles(labels = Region)]
pub struct RegionalStore {
    /// Keys stored
    #[metric(name = "kv_keys")]
    pub kv_keys: Family<Region, Gauge>,
}

#[test]
fn a_const_label_that_repeats_a_label_key_is_refused() {
    let mut registry = Registry::default();
    let sub = registry.sub_registry_with_label((Cow::Borrowed("region"), Cow::Borrowed("eu")));
    let err = refused(RegionalStore::try_register(sub));
    assert!(
        matches!(&err, RegistrationError::ConstLabelRepeatsKey { key, .. } if key == "region"),
        "{err:?}"
    );
    let sub = registry.sub_registry_with_label((Cow::Borrowed("le"), Cow::Borrowed("x")));
    let err = refused(KvStore::try_register(sub));
    assert!(
        matches!(&err, RegistrationError::InvalidConstLabel { key, .. } if key == "le"),
        "{err:?}"
    );
    assert_eq!(encode_openmetrics(&registry), "# EOF\n");
}

#[test]
fn http_metrics_registered_twice_is_an_error() {
    use metric_handles::http::HttpMetrics;
    let mut registry = Registry::default();
    HttpMetrics::try_register(&mut registry).expect("first");
    let before = encode_openmetrics(&registry);
    let err = refused(HttpMetrics::try_register(&mut registry));
    assert_eq!(err.family().registered_by, "`HttpMetrics.requests`");
    assert_eq!(encode_openmetrics(&registry), before);
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
    assert!(err.family().name.starts_with("vllm:"), "{err}");
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
    use metric_handles::descriptor::{MetricDescriptor, MetricKind};
    use metric_handles::RegisterOptions;
    let descriptors: Vec<MetricDescriptor> = Mixed::DESCRIPTORS
        .iter()
        .map(|d| MetricDescriptor {
            name: Box::leak(format!("{p}:{}", d.name).into_boxed_str()),
            ..*d
        })
        .collect();
    let options = RegisterOptions::new();
    metric_handles::__private::check_registration(registry, "Mixed", &descriptors, &options)?;
    for d in &descriptors {
        match d.kind {
            MetricKind::Counter => drop(reg::<Replica, Counter>(registry, d, &options)),
            MetricKind::Gauge => drop(reg::<Replica, Gauge>(registry, d, &options)),
            MetricKind::Histogram => drop(reg::<Replica, Histogram>(registry, d, &options)),
            other => panic!("`Mixed` declares no {other:?}"),
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
    assert_eq!(err.existing().map(|e| e.name.as_str()), Some("s7:jobs"));
    let err = register_mixed_as(&mut busy, "s0").unwrap_err();
    assert_eq!(err.existing().map(|e| e.name.as_str()), Some("s0:jobs"));
    // The check did not disturb the series the busy registry holds.
    let text = encode_openmetrics(&busy);
    assert_eq!(text.matches("jobs_total{replica=").count(), 2000);
}

/// Plug-in families claim their names in the registry's ledger like every other family: name,
/// unit and the sample names of their type, against each other and against the derived
/// families of the same registry.
#[test]
fn plug_in_families_whose_samples_collide_are_refused() {
    use metric_handles::family::{FamilyError, FamilySpec, RuntimeFamilies};

    let mut registry = Registry::default();
    Served::register(&mut registry);
    let plugins = RuntimeFamilies::<NoLabels>::register_in(&mut registry);
    plugins
        .register::<Counter>(&FamilySpec::counter("a", "A"))
        .expect("a");
    plugins
        .register::<Histogram>(&FamilySpec::histogram("h", "H", vec![1.0]))
        .expect("h");
    plugins
        .register::<Gauge>(&FamilySpec::gauge("x", "X").unit("seconds"))
        .expect("x");
    let before = encode_openmetrics(&registry);
    let cases: [(FamilySpec, &str, &str); 7] = [
        (FamilySpec::gauge("a_total", "G"), "a_total", "a"),
        (FamilySpec::gauge("a_created", "G"), "a_created", "a"),
        (FamilySpec::gauge("h_count", "G"), "h_count", "h"),
        (FamilySpec::gauge("h_sum", "G"), "h_sum", "h"),
        (
            FamilySpec::gauge("x_seconds", "G"),
            "x_seconds",
            "x_seconds",
        ),
        // A derived family of the same registry, reached through a unit.
        (
            FamilySpec::gauge("app:latency", "G").unit("count"),
            "app:latency_count",
            "app:latency",
        ),
        (
            FamilySpec::gauge("app:requests", "G"),
            "app:requests",
            "app:requests",
        ),
    ];
    for (spec, clash, existing) in cases {
        let error = match plugins.register::<Gauge>(&spec) {
            Err(FamilyError::NameTaken(error)) => error,
            other => panic!("{}: {other:?}", spec.name()),
        };
        assert_eq!(error.clashes_on(), Some(clash), "{error}");
        assert_eq!(
            error.existing().map(|e| e.name.as_str()),
            Some(existing),
            "{error}"
        );
    }
    assert_eq!(encode_openmetrics(&registry), before);
}

#[cfg(feature = "vllm")]
#[test]
fn plug_in_families_cannot_reach_vllms_names_through_a_unit_or_a_suffix() {
    use metric_handles::family::{FamilyError, FamilySpec};

    let mut registry = Registry::default();
    let metrics = VllmMetrics::register(&mut registry, VllmMetricsConfig::default());
    let plugins = metrics.plugin_families();
    let cases: [(FamilySpec, &str); 4] = [
        // vLLM's gauge, reached through the unit.
        (
            FamilySpec::gauge("vllm:num_requests", "G").unit("running"),
            "vllm:num_requests_running",
        ),
        // vLLM's counter, through its sample name.
        (
            FamilySpec::gauge("vllm:prompt_tokens_total", "G"),
            "vllm:prompt_tokens_total",
        ),
        // A deprecated name vLLM hides unless asked: reserved all the same.
        (
            FamilySpec::gauge("vllm:gpu_cache_usage", "G").unit("perc"),
            "vllm:gpu_cache_usage_perc",
        ),
        // The HTTP families, which a frontend registers beside vLLM's.
        (
            FamilySpec::gauge("http_requests_total", "G"),
            "http_requests_total",
        ),
    ];
    for (spec, clash) in cases {
        match plugins.register::<Gauge>(&spec) {
            Err(FamilyError::NameTaken(error)) => {
                assert_eq!(error.clashes_on(), Some(clash), "{error}")
            }
            other => panic!("{}: {other:?}", spec.name()),
        }
    }
}

/// The HTTP families carry the service's own prefix and labels when registered in a
/// sub-registry, and the collision check sees the prefixed names.
#[test]
fn http_metrics_take_the_prefix_and_const_labels_of_their_level() {
    use metric_handles::http::{Handler, HttpMetrics, HttpRequestLabels, StatusClass};
    let mut registry = Registry::default();
    let node = (Cow::Borrowed("node"), Cow::Borrowed("a"));
    let service = registry
        .sub_registry_with_prefix("kv")
        .sub_registry_with_label(node);
    let http = HttpMetrics::register(service);
    http.requests
        .get_or_create(&HttpRequestLabels {
            method: "GET".into(),
            status: StatusClass::from_code(200),
            handler: Handler::Route("/kv/{key}".into()),
        })
        .inc();
    http.duration_highr.observe(0.2);
    let text = encode_openmetrics(&registry);
    for line in [
        "# TYPE kv_http_requests counter",
        r#"kv_http_requests_total{node="a",method="GET",status="2xx",handler="/kv/{key}"} 1"#,
        r#"kv_http_request_duration_highr_seconds_count{node="a"} 1"#,
    ] {
        assert!(text.lines().any(|l| l == line), "{line} in\n{text}");
    }
    // `http_requests_total` at the root does not clash with `kv_http_requests_total`; a second
    // set under the same prefix does.
    HttpMetrics::try_register(&mut registry).expect("other names");
    let again = registry.sub_registry_with_prefix("kv");
    let err = HttpMetrics::try_register(again).unwrap_err();
    assert!(err.to_string().contains("`kv_http_requests`"), "{err}");
}

#[test]
fn bucket_and_native_overrides_of_a_counter_are_refused_and_nothing_is_registered() {
    use metric_handles::histogram::NativeConfig;
    use metric_handles::RegisterOptions;

    let mut registry = Registry::default();
    // Either would be dropped without a word: a counter has no buckets of either kind.
    let mut with_buckets = RegisterOptions::new();
    with_buckets
        .buckets("app:requests", vec![0.5, 5.0])
        .expect("valid buckets");
    let with_native = RegisterOptions::new().native("app:requests", Some(NativeConfig::default()));
    for (options, option) in [(with_buckets, "buckets"), (with_native, "native")] {
        let err = refused(Served::try_register_with(&mut registry, &options));
        match &err {
            RegistrationError::UnknownOverride {
                option: refused_option,
                known,
                ..
            } => {
                assert_eq!(*refused_option, option);
                assert_eq!(known, &["app:latency"]);
            }
            other => panic!("expected UnknownOverride, got {other:?}"),
        }
        assert_eq!(err.family().name, "app:requests");
        assert!(
            err.to_string().starts_with(&format!(
                "`RegisterOptions::{option}` given to `Served` names `app:requests`, which is \
                 none of the metrics registered with it that it can change (`app:latency`)"
            )),
            "{err}"
        );
        assert_eq!(encode_openmetrics(&registry), "# EOF\n");
    }

    // The same overrides of the histogram register and take effect.
    let options = RegisterOptions::new().native("app:latency", Some(NativeConfig::default()));
    let served = Served::try_register_with(&mut registry, &options).expect("a histogram");
    served.resolve(&NoLabels).latency.observe(0.25);
    assert!(served.resolve(&NoLabels).latency.native_config().is_some());
}

#[test]
fn an_override_naming_no_metric_of_the_struct_is_refused_and_nothing_is_registered() {
    use metric_handles::RegisterOptions;

    let mut registry = Registry::default();
    // A misspelt name: the buckets would silently stay the declared ones.
    let mut options = RegisterOptions::new();
    options
        .buckets("app:latence", vec![0.5, 5.0])
        .expect("valid buckets");
    let err = refused(Served::try_register_with(&mut registry, &options));
    match &err {
        RegistrationError::UnknownOverride { option, known, .. } => {
            assert_eq!(*option, "buckets");
            assert_eq!(known, &["app:latency"]);
        }
        other => panic!("expected UnknownOverride, got {other:?}"),
    }
    assert_eq!(err.family().name, "app:latence");
    assert_eq!(
        err.to_string(),
        "`RegisterOptions::buckets` given to `Served` names `app:latence`, which is none of the \
         metrics registered with it that it can change (`app:latency`): an override of a metric \
         not registered, or of one it does not apply to, changes nothing; give the primary name \
         of one of these, or leave it out (`RegisterOptions::for_descriptors` keeps the \
         overrides of one struct's metrics)"
    );
    assert_eq!(encode_openmetrics(&registry), "# EOF\n");

    // A limit for another struct's metric is refused too, and for_descriptors keeps only the
    // overrides of this struct's metrics.
    let shared = RegisterOptions::new()
        .max_series("app:in_flight", 4)
        .max_label_sets("app:requests", 2);
    let err = refused(Served::try_register_with(&mut registry, &shared));
    assert_eq!(err.family().name, "app:in_flight");
    let served =
        Served::try_register_with(&mut registry, &shared.for_descriptors(Served::DESCRIPTORS))
            .expect("the struct's own overrides register");
    served.resolve(&NoLabels).requests.inc();
    assert!(encode_openmetrics(&registry).contains("app:requests_total 1\n"));
}

#[derive(Debug, MetricHandles)]
pub struct QueueWait {
    /// How long the waiting requests have waited
    #[metric(name = "q_wait", buckets = [0.1, 1.0])]
    pub wait: Family<NoLabels, GaugeHistogram>,
}

#[derive(Debug, MetricHandles)]
pub struct QueueWaitCount {
    /// Requests waiting
    #[metric(name = "q_wait_count")]
    pub waiting: Family<NoLabels, Gauge>,
}

/// A gauge histogram is a `HISTOGRAM` in the protobuf format, which Prometheus stores as
/// `_bucket`, `_count` and `_sum`: a gauge `q_wait_count` beside the gauge histogram `q_wait`
/// would be overwritten by its count, whichever registers first and however.
#[test]
fn a_gauge_histograms_count_and_sum_are_claimed_however_the_other_family_registers() {
    use metric_handles::prometheus_client::metrics::gauge::Gauge as PcGauge;
    use metric_handles::prometheus_client::registry::Registry as PcRegistry;

    let mut registry = Registry::default();
    QueueWait::register(&mut registry)
        .resolve(&NoLabels)
        .wait
        .add(0.5);
    let before = encode_openmetrics(&registry);
    // Through `Registry::register`.
    for name in [
        "q_wait_count",
        "q_wait_sum",
        "q_wait_gcount",
        "q_wait_bucket",
    ] {
        let err = refused(registry.try_register(name, "A gauge", <Gauge>::default()));
        assert_eq!(err.clashes_on(), Some(name), "{err}");
        let existing = err.existing().expect("a name clash");
        assert_eq!(
            (existing.name.as_str(), existing.metric_type),
            ("q_wait", "gaugehistogram")
        );
    }
    // Through the derive.
    let err = refused(QueueWaitCount::try_register(&mut registry));
    assert_eq!(err.clashes_on(), Some("q_wait_count"), "{err}");
    // Through an included prometheus-client registry.
    let mut foreign = PcRegistry::default();
    foreign.register("q_wait_sum", "A gauge", PcGauge::<i64>::default());
    let err = refused(registry.try_include(foreign));
    assert_eq!(err.clashes_on(), Some("q_wait_sum"), "{err}");
    assert_eq!(encode_openmetrics(&registry), before);

    // The other order: the gauge histogram is refused beside the gauge.
    let mut registry = Registry::default();
    QueueWaitCount::register(&mut registry);
    let err = refused(QueueWait::try_register(&mut registry));
    assert_eq!(err.clashes_on(), Some("q_wait_count"), "{err}");
    let mut registry = Registry::default();
    let mut foreign = PcRegistry::default();
    foreign.register("q_wait_sum", "A gauge", PcGauge::<i64>::default());
    registry.include(foreign);
    let err = refused(QueueWait::try_register(&mut registry));
    assert_eq!(err.clashes_on(), Some("q_wait_sum"), "{err}");
}

#[derive(Debug, MetricHandles)]
pub struct OneCounter {
    /// Things counted
    #[metric(name = "x")]
    pub x: Family<NoLabels, Counter>,
}

#[derive(Debug, MetricHandles)]
pub struct OneGauge {
    /// A level
    #[metric(name = "x")]
    pub x: Family<NoLabels, Gauge>,
}

#[derive(Debug, MetricHandles)]
pub struct OneHistogram {
    /// Latency
    #[metric(name = "x", buckets = [0.1, 1.0], native)]
    pub x: Family<NoLabels, Histogram>,
}

#[derive(Debug, MetricHandles)]
pub struct OneGaugeHistogram {
    /// What waits now
    #[metric(name = "x", buckets = [0.1, 1.0])]
    pub x: Family<NoLabels, GaugeHistogram>,
}

#[derive(Debug, MetricHandles)]
pub struct OneInfo {
    /// The build
    #[metric(name = "x")]
    pub x: Family<NoLabels, Info>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum Mode {
    Idle,
    Busy,
}

#[derive(Debug, MetricHandles)]
pub struct OneStateSet {
    /// The mode
    #[metric(name = "x")]
    pub x: Family<NoLabels, StateSet<Mode>>,
}

/// Every name a scraper reads from `registry` in any format: the `# TYPE` names and sample
/// names of both text formats (OpenMetrics with `_created` lines), and with the `protobuf`
/// feature the series names Prometheus stores of each protobuf family.
fn names_written(registry: &Registry) -> std::collections::BTreeSet<String> {
    use metric_handles::exposition::EncodeOptions;
    use metric_handles::ExpositionFormat;

    let mut openmetrics = Vec::new();
    ExpositionFormat::OpenMetrics
        .encode_into_with(
            registry,
            &mut openmetrics,
            EncodeOptions::default().with_created_lines(true),
        )
        .expect("encodes");
    let texts = [
        String::from_utf8(openmetrics).expect("UTF-8"),
        ExpositionFormat::PrometheusText
            .encode(registry)
            .expect("encodes"),
    ];
    let mut names = std::collections::BTreeSet::new();
    for line in texts.iter().flat_map(|text| text.lines()) {
        let name = match line.strip_prefix("# TYPE ") {
            Some(rest) => rest.split(' ').next(),
            None if line.starts_with('#') => None,
            None => line.split(['{', ' ']).next(),
        };
        names.extend(name.map(str::to_owned));
    }
    #[cfg(feature = "protobuf")]
    {
        use metric_handles::prometheus_client::encoding::prometheus_protobuf::prometheus_data_model::{
            MetricFamily, MetricType,
        };
        use prost::Message;

        let mut body = Vec::new();
        ExpositionFormat::PrometheusProtobuf
            .encode_into(registry, &mut body)
            .expect("encodes");
        let mut rest = body.as_slice();
        while !rest.is_empty() {
            let family = MetricFamily::decode_length_delimited(&mut rest).expect("a family");
            // Prometheus's protobuf parser: a histogram's series (either type) are its
            // `_bucket`, `_count` and `_sum`, and its name for the native histogram.
            let suffixes: &[&str] = match family.r#type() {
                MetricType::Histogram | MetricType::GaugeHistogram => {
                    &["", "_bucket", "_count", "_sum"]
                }
                MetricType::Summary => &["", "_count", "_sum"],
                MetricType::Counter | MetricType::Gauge | MetricType::Untyped => &[""],
            };
            names.extend(
                suffixes
                    .iter()
                    .map(|suffix| format!("{}{suffix}", family.name)),
            );
        }
    }
    names
}

/// Whatever name any format writes for a family of any kind (its name, `_total`, `_created`,
/// `_bucket`, `_count`, `_sum`, `_gcount`, `_gsum`, `_info`, and what Prometheus stores from
/// protobuf), registering another family under it is refused.
#[test]
fn every_name_a_family_writes_in_any_format_is_refused_to_another_family() {
    type Register = fn(&mut Registry);
    let kinds: [(&str, Register); 6] = [
        ("counter", |r| {
            OneCounter::register(r).resolve(&NoLabels).x.inc();
        }),
        ("gauge", |r| {
            OneGauge::register(r).resolve(&NoLabels).x.set(1);
        }),
        ("histogram", |r| {
            OneHistogram::register(r).resolve(&NoLabels).x.observe(0.5)
        }),
        ("gaugehistogram", |r| {
            OneGaugeHistogram::register(r).resolve(&NoLabels).x.add(0.5)
        }),
        ("info", |r| {
            OneInfo::register(r).resolve(&NoLabels);
        }),
        ("stateset", |r| {
            OneStateSet::register(r)
                .resolve(&NoLabels)
                .x
                .set(Mode::Busy)
        }),
    ];
    for (kind, register) in kinds {
        let mut registry = Registry::default();
        register(&mut registry);
        let written = names_written(&registry);
        assert!(
            written.contains("x") || written.contains("x_total"),
            "{kind}: {written:?}"
        );
        for name in &written {
            let err = refused(registry.try_register(name.as_str(), "A gauge", <Gauge>::default()));
            assert_eq!(err.clashes_on(), Some(name.as_str()), "{kind}: {err}");
            assert_eq!(err.existing().map(|e| e.metric_type), Some(kind));
        }
    }
}

/// A name the text formats would write unquoted and the parsers reject (a space, a quote, a
/// `.`, a non-ASCII letter, an empty name), whether it comes from the name, the unit or the
/// prefix, is refused with the rule, and nothing is registered.
#[test]
fn names_no_scraper_accepts_are_refused_whatever_part_makes_them() {
    use metric_handles::prometheus_client::metrics::gauge::Gauge as PcGauge;
    use metric_handles::prometheus_client::registry::{Registry as PcRegistry, Unit};

    fn invalid_name(error: &RegistrationError) -> &str {
        match error {
            RegistrationError::InvalidName { family } => &family.name,
            other => panic!("expected InvalidName, got {other:?}"),
        }
    }

    let mut registry = Registry::default();
    registry.register("kept", "A gauge", <Gauge>::default());
    let before = encode_openmetrics(&registry);
    for name in ["", "a b", "a\"b", "a.b", "é", "1x", "a-b", "a\nb", "a{b}"] {
        let err = refused(registry.try_register(name, "A gauge", <Gauge>::default()));
        assert_eq!(invalid_name(&err), name);
        assert_eq!(
            err.to_string(),
            format!(
                "`Registry::register` would expose the gauge {name:?}, which is not a metric \
                 name scrapers accept: a metric name (with the registry's prefix and the unit, \
                 joined by `_`) must match `[a-zA-Z_:][a-zA-Z0-9_:]*` (ASCII letters, digits, \
                 `_` and `:`, not starting with a digit), or parsers reject the whole scrape"
            )
        );
        if name.is_empty() {
            // `_seconds` is a valid name.
            continue;
        }
        let err = refused(registry.try_register_with_unit(
            name,
            "A gauge",
            Unit::Seconds,
            <Gauge>::default(),
        ));
        assert_eq!(invalid_name(&err), format!("{name}_seconds"));
    }
    // A unit of prometheus-client's `Unit::Other` can make a valid name invalid.
    let err = refused(registry.try_register_with_unit(
        "ok",
        "A gauge",
        Unit::Other("per second".to_owned()),
        <Gauge>::default(),
    ));
    assert_eq!(invalid_name(&err), "ok_per second");
    // So can a prefix, for every registration under it, the derive's included.
    let dotted = registry.sub_registry_with_prefix("my.app");
    let err = refused(dotted.try_register("ok", "A gauge", <Gauge>::default()));
    assert_eq!(invalid_name(&err), "my.app_ok");
    let err = refused(KvStore::try_register(dotted));
    assert_eq!(invalid_name(&err), "my.app_kv_keys");
    assert_eq!(err.family().registered_by, "`KvStore.kv_keys`");
    // An included registry's names are read whole from its exposition.
    let mut foreign = PcRegistry::default();
    foreign.register("a b", "A gauge", PcGauge::<i64>::default());
    assert_eq!(invalid_name(&refused(registry.try_include(foreign))), "a b");
    assert_eq!(encode_openmetrics(&registry), before);

    // Names of the rule pass, `:` and a leading `_` included.
    for name in ["_x", ":x", "app:x_1", "A_b"] {
        registry
            .try_register(name, "A gauge", <Gauge>::default())
            .expect(name);
    }
}

/// A state set's name is also the label key of its states: a prefix with `:` makes it one no
/// parser accepts, though a gauge under the same prefix is fine.
#[test]
fn a_prefix_with_a_colon_is_refused_for_a_state_set_only() {
    let mut registry = Registry::default();
    let colon = registry.sub_registry_with_prefix("acme:gw");
    let err = refused(OneStateSet::try_register(colon));
    match &err {
        RegistrationError::InvalidName { family } => {
            assert_eq!(
                (family.name.as_str(), family.metric_type),
                ("acme:gw_x", "stateset")
            )
        }
        other => panic!("expected InvalidName, got {other:?}"),
    }
    assert!(
        err.to_string().contains("`[a-zA-Z_][a-zA-Z0-9_]*`"),
        "{err}"
    );
    OneGauge::try_register(colon).expect("a gauge may have `:` in its name");
    // Under a prefix without `:`, the prefix enters the state label's key.
    let plain = registry.sub_registry_with_prefix("acme");
    OneStateSet::register(plain)
        .resolve(&NoLabels)
        .x
        .set(Mode::Busy);
    let text = encode_openmetrics(&registry);
    assert!(text.contains("acme_x{acme_x=\"busy\"} 1\n"), "{text}");
}

#[test]
#[should_panic(expected = "would expose the gauge \"a b\", which is not a metric name")]
fn register_panics_on_a_name_no_scraper_accepts() {
    Registry::default().register("a b", "A gauge", <Gauge>::default());
}

thread_local! {
    /// Where the last panic of this thread was raised, while [`panic_location`] watches it.
    static PANICKED_AT: std::cell::RefCell<Option<(String, u32)>> =
        const { std::cell::RefCell::new(None) };
    static WATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The file and line `f`'s panic reports (what a user reads in the panic message), and the
/// message. A panic hook installed once records the location on the watching thread and
/// hands every other thread's panic to the previous hook, so tests running beside this one
/// keep their output.
fn panic_location(f: impl FnOnce()) -> ((String, u32), String) {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if WATCHING.with(std::cell::Cell::get) {
                let at = info.location().map(|l| (l.file().to_owned(), l.line()));
                PANICKED_AT.with(|slot| *slot.borrow_mut() = at);
            } else {
                previous(info);
            }
        }));
    });
    WATCHING.with(|w| w.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    WATCHING.with(|w| w.set(false));
    let payload = result.expect_err("the registration should have panicked");
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default();
    let at = PANICKED_AT
        .with(|slot| slot.borrow_mut().take())
        .expect("the hook saw the panic");
    (at, message)
}

/// A refused registration panics at the caller's line: a refused override given to a derived
/// struct's `register_with`, a clash in its `register`, and a clash or a bad name in
/// `Registry::register`, `register_with_unit` and `include`, not a line inside the derive's
/// output or the library.
#[test]
fn a_refused_registration_panics_at_the_callers_line() {
    use metric_handles::prometheus_client::metrics::gauge::Gauge as PcGauge;
    use metric_handles::prometheus_client::registry::{Registry as PcRegistry, Unit};
    use metric_handles::RegisterOptions;

    let here = file!().to_owned();
    let mut registry = Registry::default();
    let options = RegisterOptions::new().max_series("app:latence", 4);
    let (at, message) = panic_location(|| {
        Served::register_with(&mut registry, &options);
    });
    assert_eq!(at, (here.clone(), line!() - 2), "{message}");
    assert!(
        message.contains("`RegisterOptions::max_series` given to `Served`"),
        "{message}"
    );

    Served::register(&mut registry);
    let (at, message) = panic_location(|| {
        Served::register(&mut registry);
    });
    assert_eq!(at, (here.clone(), line!() - 2), "{message}");

    let (at, _) = panic_location(|| registry.register("app:requests", "G", <Gauge>::default()));
    assert_eq!(at, (here.clone(), line!() - 1));
    let (at, _) = panic_location(|| {
        registry.register_with_unit("a b", "G", Unit::Seconds, <Gauge>::default())
    });
    assert_eq!(at, (here.clone(), line!() - 2));
    let mut foreign = PcRegistry::default();
    foreign.register("app:requests", "G", PcGauge::<i64>::default());
    let (at, _) = panic_location(|| registry.include(foreign));
    assert_eq!(at, (here, line!() - 1));
}

#[derive(Debug, MetricHandles)]
pub struct Timed {
    /// Time spent
    #[metric(name = "busy", unit = "seconds", buckets = [0.1, 1.0])]
    pub busy: Family<NoLabels, Histogram>,
}

/// An override names a metric by its declared `name`: without the registry's prefix and
/// without the unit, though the exposition writes both.
#[test]
fn overrides_take_the_declared_name_not_the_exposed_one() {
    use metric_handles::RegisterOptions;

    let mut registry = Registry::default();
    let acme = registry.sub_registry_with_prefix("acme");
    for exposed in ["acme_busy_seconds", "acme_busy", "busy_seconds"] {
        let mut options = RegisterOptions::new();
        options.buckets(exposed, vec![0.5]).expect("valid buckets");
        let err = refused(Timed::try_register_with(acme, &options));
        match &err {
            RegistrationError::UnknownOverride { known, .. } => assert_eq!(known, &["busy"]),
            other => panic!("{exposed}: expected UnknownOverride, got {other:?}"),
        }
    }
    let mut options = RegisterOptions::new();
    options.buckets("busy", vec![0.5]).expect("valid buckets");
    Timed::try_register_with(acme, &options)
        .expect("the declared name")
        .resolve(&NoLabels)
        .busy
        .observe(0.2);
    let text = encode_openmetrics(&registry);
    assert!(
        text.contains("acme_busy_seconds_bucket{le=\"0.5\"} 1\n"),
        "{text}"
    );
}
