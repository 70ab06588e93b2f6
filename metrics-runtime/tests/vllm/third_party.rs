//! A third-party KV connector's families (`VllmMetrics::plugin_families`) while engines join
//! and leave: series resolved through `resolve_for_engine` leave with their engine, even when
//! the resolution races the leave, and families without extra labels (or with extra label
//! values declared up front, as a descriptor's constant labels) get a zero series per present
//! engine, as vLLM's connector adapter pre-creates them.

use std::sync::mpsc::channel;
use std::thread::{scope, sleep};
use std::time::Duration;

use crate::support::vllm::*;
use metric_handles::family::{FamilySpec, RuntimeFamily};
use metric_handles::prometheus_client::metrics::gauge::Gauge;
use metric_handles::testing::Scrape;
use metric_handles::vllm::{EngineLabels, VllmMetrics};
use metric_handles::{Counter, Dynamic, Family, Histogram, LabelSet, MetricHandles};

const LOOKUPS: &str = "acme:kv_lookups";

fn register_lookups(metrics: &VllmMetrics) -> RuntimeFamily<EngineLabels, Counter> {
    metrics
        .plugin_families()
        .register::<Counter>(
            &FamilySpec::counter(LOOKUPS, "KV lookups by tier").label_keys(["tier"]),
        )
        .expect("a valid, free name")
}

/// The connector's resolution: engine `engine`'s `tier` series.
fn host_lookups(
    metrics: &VllmMetrics,
    lookups: &RuntimeFamily<EngineLabels, Counter>,
    engine: u32,
) -> Counter {
    metrics.resolve_for_engine(engine, |_, labels| {
        lookups
            .get_or_create(labels, &["host"])
            .expect("one value per key")
    })
}

fn lookups_of(registry: &metric_handles::Registry, engine: &str) -> bool {
    scrape(registry).has(
        &format!("{LOOKUPS}_total"),
        &[("engine", engine), ("tier", "host")],
    )
}

#[test]
fn series_resolved_for_an_engine_leave_with_it_and_come_back_with_its_next_join() {
    let (registry, metrics) = setup_default();
    let lookups = register_lookups(&metrics);

    host_lookups(&metrics, &lookups, 1).inc_by(3);
    let s = scrape(&registry);
    assert_eq!(
        s.value(
            &format!("{LOOKUPS}_total"),
            &[("engine", "1"), ("tier", "host")]
        ),
        3.0
    );
    // Resolving joined the engine, as a record would: its own families are there too.
    assert!(s.has("vllm:num_requests_running", &[("engine", "1")]));

    assert!(metrics.scheduler().remove_engine(1));
    assert!(
        !lookups_of(&registry, "1"),
        "the connector's series left with engine 1"
    );

    // A resolution after the leave joins the engine again, so its next leave removes it.
    let next = host_lookups(&metrics, &lookups, 1);
    next.inc();
    assert_eq!(
        scrape(&registry).value(
            &format!("{LOOKUPS}_total"),
            &[("engine", "1"), ("tier", "host")]
        ),
        1.0,
        "a fresh series for the engine's next incarnation"
    );
    assert!(metrics.scheduler().remove_engine(1));
    assert!(!lookups_of(&registry, "1"));
}

#[test]
fn a_resolution_racing_the_leave_never_outlives_the_engine() {
    let (registry, metrics) = setup_default();
    let lookups = register_lookups(&metrics);
    metrics.scheduler().add_engine(1);
    let (leave_now, leave) = channel();
    scope(|s| {
        let metrics = &metrics;
        s.spawn(move || {
            leave.recv().expect("the resolution has started");
            assert!(metrics.scheduler().remove_engine(1));
        });
        metrics.resolve_for_engine(1, |_, labels| {
            // The engine starts to leave while its series are being resolved: the leave must
            // wait for the resolution, and then take its series along.
            leave_now.send(()).expect("the leaving thread waits");
            sleep(Duration::from_millis(50));
            lookups
                .get_or_create(labels, &["host"])
                .expect("one value per key")
                .inc();
        });
    });
    assert!(
        !lookups_of(&registry, "1"),
        "a series resolved as engine 1 left must leave with it"
    );
    assert!(!scrape(&registry).has("vllm:num_requests_running", &[("engine", "1")]));
}

/// The extra label of [`FakeConnector::by_tier`].
#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
struct Tier {
    tier: String,
}

/// A connector's families, as vLLM's connector adapter test registers them
/// (`rust/src/engine-core-client/src/connector_metrics/adapter.rs`): a gauge, a counter, a
/// histogram; and one with a data-dependent label, which cannot be pre-created.
#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels, handles = FakeConnectorHandles)]
struct FakeConnector {
    /// gauge
    #[metric(name = "fake_gauge")]
    gauge: Family<EngineLabels, Gauge>,
    /// puts
    #[metric(name = "fake_puts")]
    puts: Family<EngineLabels, Counter>,
    /// latency
    #[metric(name = "fake_latency_seconds", buckets = [0.01, 0.1, 1.0])]
    latency: Family<EngineLabels, Histogram>,
    /// hits
    #[metric(name = "fake_tier_hits")]
    by_tier: Family<EngineLabels, Dynamic<Tier, Counter>>,
}

fn register_fake_connector(metrics: &VllmMetrics) -> FakeConnector {
    FakeConnector::try_register_in(metrics.plugin_families()).expect("free names")
}

/// Every series of families `fake_*` of `engine`, as written.
fn fake_series(text: &str, engine: &str) -> Vec<String> {
    let engine = format!(r#"engine="{engine}""#);
    text.lines()
        .filter(|l| l.starts_with("fake_") && l.contains(&engine))
        .map(str::to_owned)
        .collect()
}

#[test]
fn families_registered_while_engines_are_present_get_a_zero_series_per_engine() {
    let (registry, metrics) = setup_default();
    for engine in [0, 1] {
        metrics.scheduler().add_engine(engine);
    }
    let connector = register_fake_connector(&metrics);
    let text = scrape(&registry).text;
    for engine in ["0", "1"] {
        let labels = format!(r#"{{model_name="model",engine="{engine}"}}"#);
        for zero in [
            format!("fake_puts_total{labels} 0"),
            format!("fake_latency_seconds_count{labels} 0"),
            format!("fake_latency_seconds_sum{labels} 0"),
            format!("fake_gauge{labels} 0"),
        ] {
            assert!(text.contains(&zero), "engine {engine}: {zero} in\n{text}");
        }
    }
    assert!(
        !text.contains("fake_tier_hits_total{"),
        "a data-dependent label: {text}"
    );

    // A record on engine 0 updates engine 0 only.
    let engine0 = metrics.resolve_for_engine(0, |_, labels| connector.resolve(labels));
    engine0.puts.inc_by(3);
    engine0.gauge.set(2);
    engine0.latency.observe(0.05);
    engine0
        .by_tier
        .get_or_create(&Tier {
            tier: "host".into(),
        })
        .inc();
    let s = scrape(&registry);
    assert_eq!(s.counter("fake_puts", "0"), 3.0);
    assert_eq!(s.counter("fake_puts", "1"), 0.0);
    assert_eq!(s.hist("fake_latency_seconds", "1").count, 0.0);
    assert_eq!(s.hist("fake_latency_seconds", "0").count, 1.0);
    assert_eq!(
        s.value("fake_gauge", &[("model_name", "model"), ("engine", "0")]),
        2.0
    );
    assert_eq!(
        s.value(
            "fake_tier_hits_total",
            &[("model_name", "model"), ("engine", "0"), ("tier", "host")]
        ),
        1.0
    );
}

#[test]
fn an_engine_that_joins_later_gets_its_zero_series_and_they_leave_with_it() {
    let (registry, metrics) = setup_default();
    let _connector = register_fake_connector(&metrics);
    assert!(
        fake_series(&scrape(&registry).text, "0").is_empty(),
        "no engine yet"
    );
    let qwen = metrics.with_model("qwen");
    // Engines past the 256 slots and of another model too.
    for (recorder, engine) in [(&metrics, 2), (&metrics, 300), (&qwen, 2)] {
        recorder.scheduler().add_engine(engine);
    }
    let text = scrape(&registry).text;
    for engine in ["2", "300"] {
        // puts, gauge, and the histogram's 4 buckets, count and sum; per model.
        assert_eq!(
            fake_series(&text, engine).len(),
            if engine == "2" { 16 } else { 8 }
        );
    }
    assert!(text.contains(r#"fake_puts_total{model_name="qwen",engine="2"} 0"#));

    assert!(metrics.scheduler().remove_engine(2));
    let left = fake_series(&scrape(&registry).text, "2");
    assert_eq!(left.len(), 8, "{left:?}");
    assert!(
        left.iter().all(|l| l.contains(r#"model_name="qwen""#)),
        "only the other model's engine 2 is left: {left:?}"
    );
    let text = scrape(&registry).text;
    assert!(!text.contains(r#"fake_puts_total{model_name="model",engine="2"}"#));
    // A family registered after the leave has no series for the engine that left.
    let late: RuntimeFamily<EngineLabels, Counter> = metrics
        .plugin_families()
        .register(&FamilySpec::counter("fake_late", "late"))
        .expect("free");
    assert_eq!(late.len(), 2, "engine 300 of model, engine 2 of qwen");
    // Joining again brings fresh zero series.
    metrics.scheduler().add_engine(2);
    assert!(scrape(&registry)
        .text
        .contains(r#"fake_late_total{model_name="model",engine="2"} 0"#));
}

/// A connector descriptor's families as vLLM's connector adapter test registers them: a
/// counter, a histogram, and a gauge whose descriptor entries carry the constant label
/// `path` (`local`, and `remote` from a second entry of the same name: vLLM registers the
/// name once and pre-creates each entry's constant labels).
fn register_descriptor_families(metrics: &VllmMetrics) -> RuntimeFamily<EngineLabels, Gauge> {
    let plugins = metrics.plugin_families();
    plugins
        .register::<Counter>(&FamilySpec::counter("fake_puts", "puts"))
        .expect("valid, free");
    plugins
        .register::<Histogram>(&FamilySpec::histogram(
            "fake_latency_seconds",
            "latency",
            vec![0.01, 0.1, 1.0],
        ))
        .expect("valid, free");
    plugins
        .register::<Gauge>(
            &FamilySpec::gauge("fake_gauge", "gauge")
                .label_keys(["path"])
                .precreate(["local"])
                .precreate(["remote"]),
        )
        .expect("valid, free")
}

/// The value of `name` for `model`'s engine `engine`, with `extra` labels after those.
fn engine_value(scrape: &Scrape, name: &str, engine: &str, extra: &[(&str, &str)]) -> Option<f64> {
    let mut labels = vec![("model_name", "model"), ("engine", engine)];
    labels.extend_from_slice(extra);
    scrape.value(name, &labels)
}

#[test]
fn registration_precreates_zero_series_for_every_engine_and_constant_label_set() {
    let (registry, metrics) = setup_default();
    for engine in [0, 1] {
        metrics.scheduler().add_engine(engine);
    }
    let gauge = register_descriptor_families(&metrics);

    let first = Scrape::of(&registry);
    for engine in ["0", "1"] {
        assert_eq!(
            engine_value(&first, "fake_puts_total", engine, &[]),
            Some(0.0)
        );
        assert_eq!(
            engine_value(&first, "fake_latency_seconds_count", engine, &[]),
            Some(0.0)
        );
        for path in ["local", "remote"] {
            assert_eq!(
                engine_value(&first, "fake_gauge", engine, &[("path", path)]),
                Some(0.0),
                "engine {engine}, path {path}"
            );
        }
    }

    // A record on engine 0 lands in its pre-created series: one sample, not a second one.
    metrics.resolve_for_engine(0, |_, labels| {
        gauge
            .get_or_create(labels, &["local"])
            .expect("one value per key")
            .set(3);
    });
    let after = Scrape::of(&registry);
    let local_0: Vec<f64> = after
        .samples()
        .filter(|s| s.name == "fake_gauge" && s.has_all(&[("engine", "0"), ("path", "local")]))
        .map(|s| s.value)
        .collect();
    assert_eq!(local_0, [3.0]);
    assert_eq!(
        engine_value(&after, "fake_gauge", "1", &[("path", "local")]),
        Some(0.0),
        "engine 1 stays at 0"
    );
}

#[test]
fn an_engine_joining_later_gets_the_constant_label_series_and_they_leave_with_it() {
    let (registry, metrics) = setup_default();
    let _gauge = register_descriptor_families(&metrics);
    metrics.scheduler().add_engine(3);
    let joined = Scrape::of(&registry);
    for path in ["local", "remote"] {
        assert_eq!(
            engine_value(&joined, "fake_gauge", "3", &[("path", path)]),
            Some(0.0),
            "{path}"
        );
    }

    assert!(metrics.scheduler().remove_engine(3));
    let left = Scrape::of(&registry);
    assert_eq!(
        left.samples().filter(|s| s.name == "fake_gauge").count(),
        0,
        "the engine's pre-created series left with it"
    );
}
