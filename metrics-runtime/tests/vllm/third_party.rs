//! A third-party KV connector's families (`VllmMetrics::plugin_families`) while engines join
//! and leave: series resolved through `resolve_for_engine` leave with their engine, even when
//! the resolution races the leave.

use std::sync::mpsc::channel;
use std::thread::{scope, sleep};
use std::time::Duration;

use crate::support::vllm::*;
use metric_handles::plugin::{FamilySpec, RuntimeFamily};
use metric_handles::vllm::{EngineLabels, VllmMetrics};
use metric_handles::Counter;

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
