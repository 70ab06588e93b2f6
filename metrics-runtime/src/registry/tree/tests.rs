use std::borrow::Cow;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{prometheus_text, text, DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Unit;

use super::*;
use crate::ExpositionFormat;

fn label(key: &'static str, value: &'static str) -> ConstLabel {
    (Cow::Borrowed(key), Cow::Borrowed(value))
}

fn counter(value: u64) -> Counter {
    let counter = Counter::default();
    counter.inc_by(value);
    counter
}

#[test]
fn a_tree_encodes_byte_for_byte_as_prometheus_clients_own_tree() {
    // The same registrations into prometheus-client's registry and into ours.
    let mut theirs = Inner::with_prefix("app");
    theirs.register("requests", "Requests", counter(3));
    let sub = theirs.sub_registry_with_prefix("db");
    sub.register_with_unit("wait", "Wait", Unit::Seconds, Gauge::<i64>::default());
    let nested = sub.sub_registry_with_label(label("pool", "main"));
    nested.register("queries", "Queries", counter(5));
    theirs
        .sub_registry_with_label(label("region", "eu"))
        .register("up", "Up", Gauge::<i64>::default());

    let mut ours = Registry::with_prefix("app");
    ours.register("requests", "Requests", counter(3));
    let sub = ours.sub_registry_with_prefix("db");
    sub.register_with_unit("wait", "Wait", Unit::Seconds, Gauge::<i64>::default());
    let nested = sub.sub_registry_with_label(label("pool", "main"));
    assert_eq!(nested.prefix(), Some("app_db"));
    assert_eq!(
        nested.const_labels().collect::<Vec<_>>(),
        [("pool", "main")]
    );
    nested.register("queries", "Queries", counter(5));
    ours.sub_registry_with_label(label("region", "eu"))
        .register("up", "Up", Gauge::<i64>::default());

    let mut openmetrics = String::new();
    text::encode(&mut openmetrics, &theirs).unwrap();
    assert!(
        openmetrics.contains(r#"app_db_queries_total{pool="main"} 5"#),
        "{openmetrics}"
    );
    assert_eq!(
        ExpositionFormat::OpenMetrics.encode(&ours).unwrap(),
        openmetrics
    );
    let mut classic = String::new();
    prometheus_text::encode(&mut classic, &theirs).unwrap();
    assert_eq!(
        ExpositionFormat::PrometheusText.encode(&ours).unwrap(),
        classic
    );
}

#[test]
fn a_sub_registry_sees_its_parents_names_with_the_prefix_applied() {
    let mut registry = Registry::default();
    registry.register("acme_kv_keys", "Keys", Gauge::<i64>::default());
    let acme = registry.sub_registry_with_prefix("acme");
    let err = acme
        .try_register("kv_keys", "Keys", Gauge::<i64>::default())
        .unwrap_err();
    assert_eq!(err.clashes_on(), Some("acme_kv_keys"));
    assert_eq!(err.family().name, "acme_kv_keys");
    // And a parent sees its sub-registries' names.
    acme.register("kv_bytes", "Bytes", Gauge::<i64>::default());
    let err = registry
        .try_register_with_unit("acme_kv", "Bytes", Unit::Bytes, Gauge::<i64>::default())
        .unwrap_err();
    assert_eq!(err.clashes_on(), Some("acme_kv_bytes"));
    let text = ExpositionFormat::OpenMetrics.encode(&registry).unwrap();
    assert_eq!(text.matches("# TYPE").count(), 2, "{text}");
}

#[test]
fn one_family_under_two_const_labels_is_refused() {
    let mut registry = Registry::default();
    registry
        .sub_registry_with_label(label("region", "eu"))
        .register("up", "Up", Gauge::<i64>::default());
    let err = registry
        .sub_registry_with_label(label("region", "us"))
        .try_register("up", "Up", Gauge::<i64>::default())
        .unwrap_err();
    let existing = err.existing().expect("a name clash");
    assert_eq!(
        existing.const_labels,
        [("region".to_owned(), "eu".to_owned())]
    );
    assert_eq!(
        err.family().const_labels,
        [("region".to_owned(), "us".to_owned())]
    );
    let message = err.to_string();
    assert!(
        message.contains(r#"{region="us"} beside {region="eu"}"#),
        "{message}"
    );
    assert!(
        message.contains("put the label into its label set"),
        "{message}"
    );
}

/// A collector writing one counter family.
#[derive(Debug)]
struct Requests;

impl Collector for Requests {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), fmt::Error> {
        let counter = counter(1);
        let metric =
            encoder.encode_descriptor("requests", "Requests", None, counter.metric_type())?;
        counter.encode(metric)
    }
}

#[test]
fn a_collectors_families_are_claimed_with_the_registry_prefix() {
    let mut registry = Registry::default();
    registry
        .sub_registry_with_prefix("app")
        .register_collector(Box::new(Requests));
    let err = registry
        .try_register("app_requests_total", "As a gauge", Gauge::<i64>::default())
        .unwrap_err();
    assert_eq!(err.clashes_on(), Some("app_requests_total"));
    assert_eq!(
        err.existing().map(|e| e.registered_by.as_str()),
        Some("a collector")
    );
    // A second copy of the collector clashes as a whole, and is not registered.
    let app = registry.sub_registry_with_prefix("app");
    assert!(app.try_register_collector(Box::new(Requests)).is_err());
    let text = ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    assert_eq!(text.matches("app_requests_total 1").count(), 1, "{text}");
}

#[test]
fn an_included_registry_is_exposed_and_its_names_claimed() {
    let mut foreign = Inner::with_prefix("lib");
    foreign.register("events", "Events", counter(2));
    let mut registry = Registry::default();
    registry.register("lib_up", "Up", Gauge::<i64>::default());
    registry.include(foreign);
    let text = ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    assert!(text.contains("lib_events_total 2"), "{text}");
    let err = registry
        .try_register("lib_events_created", "Clash", Gauge::<i64>::default())
        .unwrap_err();
    assert_eq!(
        err.existing().map(|e| e.registered_by.as_str()),
        Some("an included prometheus-client registry")
    );

    // A foreign registry whose names clash with ours is refused whole.
    let mut clashing = Inner::default();
    clashing.register("lib_up", "Up", Gauge::<i64>::default());
    assert!(registry.try_include(clashing).is_err());
    assert_eq!(
        ExpositionFormat::PrometheusText.encode(&registry).unwrap(),
        text
    );
}

#[test]
#[should_panic(expected = "`Registry::register` registers the gauge `x` a second time")]
fn register_panics_with_the_clash() {
    let mut registry = Registry::default();
    registry.register("x", "X", Gauge::<i64>::default());
    registry.register("x", "X", Gauge::<i64>::default());
}
