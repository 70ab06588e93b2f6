//! The `metrics` facade's recorder: what its macros record is in the registry's exposition,
//! parses everywhere, clashes with nothing, and stays bounded.

use std::thread;
use std::time::Duration;

use metric_handles::descriptor::MetricKind;
#[cfg(feature = "protobuf")]
use metric_handles::histogram::NativeConfig;
use metric_handles::metrics_facade::{FacadeBuilder, FacadeRecorder, Matcher, Refusal};
use metric_handles::testing::{Sample, Scrape};
use metric_handles::{Counter, ExpositionFormat, Family, MetricHandles, NoLabels, Registry};

use crate::support::external_tool::{
    available_or_skip, prometheus_client_samples, promtool_check_metrics, runs,
};

/// Whether promtool is here (a missing one fails the test under `.ci/run`).
fn promtool(test: &str) -> bool {
    available_or_skip(
        runs("promtool", &["--version"]),
        test,
        "promtool",
        "apt-get install prometheus",
    )
}

fn text(registry: &Registry) -> String {
    ExpositionFormat::PrometheusText.encode(registry).unwrap()
}

fn openmetrics(registry: &Registry) -> String {
    ExpositionFormat::OpenMetrics.encode(registry).unwrap()
}

/// Every sample of `exposition` (which must parse).
fn parse(exposition: &str) -> Vec<Sample> {
    let scrape = Scrape::parse(exposition).expect("the exposition parses");
    scrape.samples().cloned().collect()
}

/// The value of the one sample `name{labels}` of `exposition` (labels in any order).
fn sample(exposition: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    let found: Vec<f64> = parse(exposition)
        .into_iter()
        .filter(|s| s.name == name && s.labels.len() == labels.len())
        .filter(|s| labels.iter().all(|(k, v)| s.label(k) == Some(*v)))
        .map(|s| s.value)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one sample {name}{labels:?} in:\n{exposition}"
    );
    found[0]
}

/// Records one of each kind with awkward names, keys and values.
fn record_awkward_things(recorder: &FacadeRecorder) {
    metrics::with_local_recorder(recorder, || {
        metrics::describe_counter!("http.requests", "Requests served\nby route");
        metrics::counter!("http.requests", "route" => "/a\"b", "http-method" => "GET").increment(2);
        metrics::counter!("http.requests", "http-method" => "GET", "route" => "/a\"b").increment(3);
        metrics::counter!("jobs_total", "le" => "x", "__name__" => "y").absolute(7);
        metrics::gauge!("queue.depth", "queue" => "in\\box").set(4.5);
        metrics::gauge!("queue.depth", "queue" => "in\\box").decrement(1.0);
        metrics::describe_histogram!("task_seconds", metrics::Unit::Seconds, "Task time");
        for value in [0.001, 0.2, 3.0, f64::NAN, f64::INFINITY] {
            metrics::histogram!("task_seconds", "kind" => "io").record(value);
        }
    });
}

#[test]
fn what_the_macros_record_is_exposed_and_parses_with_every_parser() {
    let mut registry = Registry::default();
    let recorder = FacadeBuilder::new().build(&mut registry);
    record_awkward_things(&recorder);

    let classic = text(&registry);
    let om = openmetrics(&registry);
    // Label order does not make two series; invalid characters become `_`; reserved keys
    // are renamed; values are escaped.
    assert_eq!(
        sample(
            &om,
            "http_requests_total",
            &[("http_method", "GET"), ("route", "/a\"b")]
        ),
        5.0
    );
    assert_eq!(
        sample(
            &om,
            "jobs_total",
            &[("exported___name__", "y"), ("exported_le", "x")]
        ),
        7.0
    );
    assert_eq!(sample(&om, "queue_depth", &[("queue", "in\\box")]), 3.5);
    assert_eq!(sample(&om, "task_seconds_count", &[("kind", "io")]), 5.0);
    assert_eq!(
        sample(
            &om,
            "task_seconds_bucket",
            &[("kind", "io"), ("le", "0.25")]
        ),
        2.0
    );
    assert!(
        om.contains("# HELP http_requests Requests served by route.\n"),
        "{om}"
    );
    assert!(om.contains("# UNIT task_seconds seconds\n"), "{om}");
    assert!(
        om.contains("# HELP queue_depth .\n"),
        "an undescribed family's help: {om}"
    );

    let test = "what_the_macros_record_is_exposed_and_parses_with_every_parser";
    if promtool(test) {
        assert_eq!(promtool_check_metrics(&classic), Vec::<String>::new());
    }
    let python = runs("python3", &["-c", "import prometheus_client"]);
    if !available_or_skip(
        python,
        test,
        "python3 with prometheus_client",
        "pip install prometheus-client",
    ) {
        return;
    }
    for (format, exposition) in [("openmetrics", &om), ("text", &classic)] {
        let samples = prometheus_client_samples(format, exposition);
        let count = samples
            .iter()
            .find(|(name, _)| name.starts_with("task_seconds_count"))
            .map(|(_, value)| *value);
        assert_eq!(count, Some(5.0), "{format}: {samples:?}");
    }
}

#[cfg(feature = "protobuf")]
#[test]
fn the_protobuf_exposition_carries_the_facade_families_with_native_buckets_where_matched() {
    let mut registry = Registry::default();
    let native = NativeConfig::from_factor(1.1);
    let recorder = FacadeBuilder::new()
        .native_for(Matcher::Prefix("rpc_".into()), Some(native))
        .build(&mut registry);
    metrics::with_local_recorder(&recorder, || {
        metrics::histogram!("rpc_seconds").record(0.3);
        metrics::histogram!("db_seconds").record(0.3);
        metrics::counter!("rpcs").increment(1);
    });
    let mut body = Vec::new();
    ExpositionFormat::PrometheusProtobuf
        .encode_into(&registry, &mut body)
        .unwrap();
    let families = crate::protobuf::decode_all(&body);
    let named = |name: &str| {
        families
            .iter()
            .find(|family| family.name == name)
            .unwrap_or_else(|| panic!("{name} in {families:?}"))
    };
    let rpc = named("rpc_seconds").metric[0].histogram.clone().unwrap();
    assert_eq!(rpc.sample_count, 1);
    assert_eq!(
        (
            rpc.schema,
            rpc.positive_span.len(),
            rpc.positive_delta.as_slice()
        ),
        (3, 1, &[1][..]),
        "native buckets on the matched name: {rpc:?}"
    );
    let db = named("db_seconds").metric[0].histogram.clone().unwrap();
    assert!(
        db.positive_span.is_empty() && db.zero_threshold == 0.0,
        "{db:?}"
    );
    assert_eq!(
        named("rpcs_total").metric[0].counter.clone().unwrap().value,
        1.0
    );
}

/// A family the program declares itself.
#[derive(MetricHandles)]
#[metric_handles(handles = AppHandles, labels = NoLabels)]
struct App {
    /// Requests the app served
    #[metric(name = "app_requests")]
    requests: Family<NoLabels, Counter>,
}

#[test]
fn a_name_another_family_has_is_refused_loudly_and_every_record_counted() {
    let mut registry = Registry::default();
    let app = App::register(&mut registry).resolve(&NoLabels);
    let recorder = FacadeBuilder::new().build(&mut registry);
    metrics::with_local_recorder(&recorder, || {
        for _ in 0..3 {
            metrics::counter!("app_requests_total").increment(10);
        }
        metrics::counter!("shared").increment(1);
        metrics::gauge!("shared").set(1.0);
    });
    app.requests.inc();

    let om = openmetrics(&registry);
    assert_eq!(
        sample(&om, "app_requests_total", &[]),
        1.0,
        "the derived family is untouched"
    );
    assert_eq!(
        sample(&om, "shared_total", &[]),
        1.0,
        "the first kind keeps the name"
    );
    assert_eq!(
        recorder.refused(),
        [
            ("app_requests".to_owned(), Refusal::NameTaken),
            ("shared".to_owned(), Refusal::NameTaken)
        ]
    );
    assert_eq!(recorder.refused_records(), 4);
    let refused = "metric_handles_facade_refused_registrations_total";
    assert_eq!(sample(&om, refused, &[("reason", "name_taken")]), 4.0);
    if promtool("a_name_another_family_has_is_refused_loudly_and_every_record_counted") {
        assert_eq!(
            promtool_check_metrics(&text(&registry)),
            Vec::<String>::new()
        );
    }
}

#[test]
fn past_a_names_series_limit_new_label_sets_share_the_overflow_series_and_lose_nothing() {
    let mut registry = Registry::default();
    let recorder = FacadeBuilder::new()
        .max_series_for(Matcher::Full("by_user".into()), 3)
        .unwrap()
        .build(&mut registry);
    metrics::with_local_recorder(&recorder, || {
        for user in 0..100u32 {
            for _ in 0..=user % 3 {
                metrics::counter!("by_user", "user" => user.to_string()).increment(1);
            }
        }
    });
    let om = openmetrics(&registry);
    let samples: Vec<_> = parse(&om)
        .into_iter()
        .filter(|s| s.name == "by_user_total")
        .collect();
    assert_eq!(
        samples.len(),
        4,
        "three label sets and the overflow series:\n{om}"
    );
    let total: f64 = samples.iter().map(|s| s.value).sum();
    assert_eq!(total, (0..100).map(|u| f64::from(u % 3 + 1)).sum::<f64>());
    assert_eq!(
        sample(&om, "by_user_total", &[("otel_metric_overflow", "true")]),
        total - (1.0 + 2.0 + 3.0)
    );
    let cached = format!("{recorder:?}");
    assert!(
        cached.contains("cached_handles: 3"),
        "the overflow is never cached: {cached}"
    );
}

#[test]
fn past_the_family_limit_new_names_are_refused_and_counted() {
    let mut registry = Registry::default();
    let recorder = FacadeBuilder::new().max_families(2).build(&mut registry);
    metrics::with_local_recorder(&recorder, || {
        for name in ["a", "b", "c", "d", "a"] {
            metrics::counter!(name).increment(1);
        }
    });
    assert_eq!(recorder.families(), 2);
    assert_eq!(recorder.refused_records(), 2);
    let om = openmetrics(&registry);
    let refused = "metric_handles_facade_refused_registrations_total";
    assert_eq!(
        sample(&om, refused, &[("reason", "too_many_families")]),
        2.0
    );
    assert_eq!(sample(&om, "a_total", &[]), 2.0);
}

#[test]
fn idle_series_leave_the_exposition_and_a_kept_handle_brings_them_back() {
    let mut registry = Registry::default();
    let recorder = FacadeBuilder::new()
        .idle_timeout(&[MetricKind::Counter], Duration::from_millis(30))
        .build(&mut registry);
    let kept = metrics::with_local_recorder(&recorder, || {
        metrics::gauge!("level").set(1.0);
        let kept = metrics::counter!("events", "k" => "kept");
        kept.increment(1);
        kept
    });
    // The first scrape sees the series active; quiet past the timeout, they go.
    assert!(openmetrics(&registry).contains("events_total{k=\"kept\"} 1"));
    thread::sleep(Duration::from_millis(80));
    let om = openmetrics(&registry);
    assert!(!om.contains("events_total{"), "{om}");
    assert!(
        om.contains("level 1"),
        "gauges have no idle timeout here: {om}"
    );
    kept.increment(2);
    assert!(openmetrics(&registry).contains("events_total{k=\"kept\"} 3"));
}

#[test]
fn a_macro_call_after_its_series_was_given_up_to_a_new_label_set_is_exported() {
    let mut registry = Registry::default();
    let recorder = FacadeBuilder::new()
        .max_series(2)
        .unwrap()
        .idle_timeout(&[MetricKind::Counter], Duration::from_millis(30))
        .build(&mut registry);
    let jobs = |k: &'static str, n| {
        metrics::with_local_recorder(&recorder, || {
            metrics::counter!("jobs", "k" => k).increment(n);
        });
    };
    jobs("a", 1);
    jobs("b", 1);
    openmetrics(&registry); // the sweep sees both active
    thread::sleep(Duration::from_millis(80));
    openmetrics(&registry); // quiet past the timeout: both dormant
                            // A new label set takes a dormant one's place; the handles cached for `a` and `b` may
                            // now point at a series nobody exports: the macro calls must look them up again.
    jobs("c", 1);
    jobs("a", 5);
    jobs("b", 5);
    let om = openmetrics(&registry);
    let total: f64 = parse(&om)
        .into_iter()
        .filter(|s| s.name == "jobs_total")
        .map(|s| s.value)
        .sum();
    assert!(
        total >= 11.0,
        "every record made after the series went dormant is exported:\n{om}"
    );
}

#[test]
fn a_description_after_the_first_record_still_gives_the_help_text() {
    let mut registry = Registry::default();
    let recorder = FacadeBuilder::new().build(&mut registry);
    metrics::with_local_recorder(&recorder, || {
        metrics::counter!("late_bytes").increment(1);
        metrics::describe_counter!("late_bytes", metrics::Unit::Bytes, "Bytes described late");
    });
    let om = openmetrics(&registry);
    assert!(om.contains("# HELP late_bytes Bytes described late.\n# TYPE late_bytes counter\n# UNIT late_bytes bytes\n"), "{om}");
    assert_eq!(sample(&om, "late_bytes_total", &[]), 1.0);
}

#[test]
fn a_facade_label_with_a_const_label_key_of_the_registry_is_renamed() {
    let mut registry = Registry::with_labels([("region".into(), "eu".into())].into_iter());
    let recorder = FacadeBuilder::new().build(&mut registry);
    metrics::with_local_recorder(&recorder, || {
        metrics::counter!("hits", "region" => "us").increment(1);
    });
    let om = openmetrics(&registry);
    assert_eq!(
        sample(
            &om,
            "hits_total",
            &[("region", "eu"), ("exported_region", "us")]
        ),
        1.0
    );
    if promtool("a_facade_label_with_a_const_label_key_of_the_registry_is_renamed") {
        assert_eq!(
            promtool_check_metrics(&text(&registry)),
            Vec::<String>::new()
        );
    }
}

#[test]
fn threads_recording_new_and_known_keys_at_once_lose_no_count() {
    let mut registry = Registry::default();
    let recorder = FacadeBuilder::new().build(&mut registry);
    thread::scope(|scope| {
        for t in 0..4u32 {
            let recorder = &recorder;
            scope.spawn(move || {
                metrics::with_local_recorder(recorder, || {
                    for i in 0..2_000u32 {
                        metrics::counter!("spread", "k" => (i % 50).to_string()).increment(1);
                        metrics::histogram!("shared_seconds").record(f64::from(t));
                    }
                });
            });
        }
    });
    let om = openmetrics(&registry);
    let total: f64 = parse(&om)
        .into_iter()
        .filter(|s| s.name == "spread_total")
        .map(|s| s.value)
        .sum();
    assert_eq!(total, 8_000.0);
    assert_eq!(sample(&om, "shared_seconds_count", &[]), 8_000.0);
}
