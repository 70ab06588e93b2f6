//! Several fixed axes on one member (`ByLabels`), member types read by trait (aliases, paths,
//! a member of the user's own), the deterministic series order, and the two cardinality
//! limits of a `Dynamic` field (per label set, and on label sets).

use std::sync::atomic::AtomicU64;

mod support;

use metric_handles::axis::{ByLabels, Position};
use metric_handles::descriptor::{LabelAxis, MetricKind};
use metric_handles::testing::{sample_value, Scrape};
use metric_handles::Registry;
use metric_handles::{
    ByPosition, Counter, Dynamic, Family, Gauge, Histogram, LabelEnum, LabelSet, MetricHandles,
    NoLabels, RegisterOptions,
};
use support::prometheus_text;

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Service {
    pub service: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "UPPERCASE")]
pub enum Method {
    Get,
    Post,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
pub enum Status {
    #[label(rename = "2xx")]
    Success,
    #[label(rename = "4xx")]
    ClientError,
    #[label(rename = "5xx")]
    ServerError,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum Operation {
    Put,
    Get,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Tenant {
    pub tenant: String,
}

/// How vLLM's Rust code names its metric types.
type U64Counter = Counter<u64, AtomicU64>;
type F64Gauge = Gauge<f64, AtomicU64>;

#[derive(Debug, MetricHandles)]
#[metric_handles(labels = Service)]
pub struct Gateway {
    /// Requests by method and status class
    #[metric(name = "gw:requests", label = ["method", "status"])]
    pub requests: Family<Service, ByLabels<(Method, Status), Counter>>,
    /// Request latency by method and status class
    #[metric(name = "gw:latency", unit = "seconds", label = ["method", "status"], buckets = [0.1, 1.0])]
    pub latency: Family<Service, ByLabels<(Method, Status), Histogram>>,
    /// Retries by operation and attempt
    #[metric(name = "gw:retries", label = ["operation", "attempt"], positions = 3)]
    pub retries: Family<Service, ByLabels<(Operation, Position), Counter>>,
    /// Three axes
    #[metric(name = "gw:cube", label = ["method", "operation", "status"])]
    pub cube: Family<Service, ByLabels<(Method, Operation, Status), U64Counter>>,
    /// Bytes sent, through an alias
    #[metric(name = "gw:bytes")]
    pub bytes: Family<Service, U64Counter>,
    /// Load, through an alias
    #[metric(name = "gw:load")]
    pub load: Family<Service, F64Gauge>,
    /// prometheus-client's own counter, by path
    #[metric(name = "gw:pc_requests")]
    pub pc: Family<Service, prometheus_client::metrics::counter::Counter>,
    /// Draft positions
    #[metric(name = "gw:positions", label = "position", positions = 2)]
    pub positions: Family<Service, ByPosition<Counter>>,
    /// Requests by tenant
    #[metric(name = "gw:tenant_requests", max_series = 2, max_label_sets = 3)]
    pub tenants: Family<Service, Dynamic<Tenant, Counter>>,
}

fn service(name: &str) -> Service {
    Service {
        service: name.into(),
    }
}

fn samples(text: &str, prefix: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with(prefix))
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_grid_exports_every_combination_at_zero_in_declaration_order() {
    let mut registry = Registry::default();
    let metrics = Gateway::register(&mut registry);
    let h = metrics.resolve(&service("api"));
    h.requests
        .get_or_create((Method::Post, Status::ServerError))
        .inc();
    h.requests
        .get_or_create((Method::Get, Status::Success))
        .inc_by(3);
    let text = prometheus_text(&registry);
    assert_eq!(
        samples(&text, "gw:requests_total"),
        [
            r#"gw:requests_total{service="api",method="GET",status="2xx"} 3"#,
            r#"gw:requests_total{service="api",method="GET",status="4xx"} 0"#,
            r#"gw:requests_total{service="api",method="GET",status="5xx"} 0"#,
            r#"gw:requests_total{service="api",method="POST",status="2xx"} 0"#,
            r#"gw:requests_total{service="api",method="POST",status="4xx"} 0"#,
            r#"gw:requests_total{service="api",method="POST",status="5xx"} 1"#,
        ]
    );
    h.latency
        .get_or_create((Method::Get, Status::ClientError))
        .observe(0.5);
    let text = prometheus_text(&registry);
    assert!(
        text.contains(
            r#"gw:latency_seconds_bucket{service="api",method="GET",status="4xx",le="1"} 1"#
        ),
        "{text}"
    );
    assert_eq!(samples(&text, "gw:latency_seconds_count").len(), 6);
}

#[test]
fn three_axes_and_a_position_axis() {
    let mut registry = Registry::default();
    let metrics = Gateway::register(&mut registry);
    let h = metrics.resolve(&service("api"));
    assert_eq!(h.cube.preresolved(), 2 * 2 * 3);
    h.cube
        .get_or_create((Method::Post, Operation::Get, Status::ClientError))
        .inc();
    assert_eq!(h.retries.preresolved(), 2 * 3);
    h.retries.get_or_create((Operation::Get, 2)).inc();
    // `get` never creates: a pre-resolved combination is there, a position beyond them is not
    // until `get_or_create` makes it.
    assert_eq!(h.retries.get((Operation::Get, 2)).map(|c| c.get()), Some(1));
    assert!(h.retries.get((Operation::Put, 9)).is_none());
    // Beyond the pre-resolved positions: looked up, never lost, sorted numerically.
    h.retries.get_or_create((Operation::Put, 9)).inc();
    h.retries.get_or_create((Operation::Put, 4)).inc();
    assert_eq!(h.retries.get((Operation::Put, 9)).map(|c| c.get()), Some(1));
    let text = prometheus_text(&registry);
    let cube = samples(&text, "gw:cube_total");
    assert_eq!(cube.len(), 12);
    assert_eq!(
        cube[0],
        r#"gw:cube_total{service="api",method="GET",operation="put",status="2xx"} 0"#
    );
    assert!(cube.contains(
        &r#"gw:cube_total{service="api",method="POST",operation="get",status="4xx"} 1"#.to_owned()
    ));
    assert_eq!(
        samples(&text, "gw:retries_total"),
        [
            r#"gw:retries_total{service="api",operation="put",attempt="0"} 0"#,
            r#"gw:retries_total{service="api",operation="put",attempt="1"} 0"#,
            r#"gw:retries_total{service="api",operation="put",attempt="2"} 0"#,
            r#"gw:retries_total{service="api",operation="get",attempt="0"} 0"#,
            r#"gw:retries_total{service="api",operation="get",attempt="1"} 0"#,
            r#"gw:retries_total{service="api",operation="get",attempt="2"} 1"#,
            r#"gw:retries_total{service="api",operation="put",attempt="4"} 1"#,
            r#"gw:retries_total{service="api",operation="put",attempt="9"} 1"#,
        ]
    );
}

#[test]
fn descriptors_describe_grids_and_aliased_members() {
    let d = Gateway::DESCRIPTORS;
    assert_eq!(
        d[0].axis,
        Some(LabelAxis::Grid {
            axes: &[
                LabelAxis::Enum {
                    key: "method",
                    values: &["GET", "POST"]
                },
                LabelAxis::Enum {
                    key: "status",
                    values: &["2xx", "4xx", "5xx"]
                },
            ]
        })
    );
    assert_eq!(d[0].label_keys(), ["service", "method", "status"]);
    assert_eq!(
        d[2].axis,
        Some(LabelAxis::Grid {
            axes: &[
                LabelAxis::Enum {
                    key: "operation",
                    values: &["put", "get"]
                },
                LabelAxis::Position {
                    key: "attempt",
                    count: 3
                },
            ]
        })
    );
    assert_eq!(d[2].axis.unwrap().preresolved(), 6);
    assert_eq!(d[4].kind, MetricKind::Counter);
    assert_eq!(d[4].value_type, "U64Counter");
    assert_eq!(d[5].kind, MetricKind::Gauge);
    assert_eq!(d[6].kind, MetricKind::Counter);
    assert_eq!(d[8].max_series, 2);
    assert_eq!(d[8].max_label_sets, 3);
}

#[test]
fn aliases_and_paths_record_like_the_spelled_types() {
    let mut registry = Registry::default();
    let metrics = Gateway::register(&mut registry);
    let h = metrics.resolve(&service("api"));
    h.bytes.inc_by(10);
    h.load.set(0.25);
    h.pc.inc();
    let scrape = Scrape::of(&registry);
    assert_eq!(
        scrape.family("gw:bytes").unwrap().lines[1],
        "# TYPE gw:bytes counter"
    );
    assert_eq!(
        scrape.value("gw:bytes_total", &[("service", "api")]),
        Some(10.0)
    );
    assert_eq!(scrape.value("gw:load", &[("service", "api")]), Some(0.25));
    assert_eq!(
        scrape.value("gw:pc_requests_total", &[("service", "api")]),
        Some(1.0)
    );
}

#[test]
fn positions_come_out_numerically() {
    let mut registry = Registry::default();
    let metrics = Gateway::register(&mut registry);
    let h = metrics.resolve(&service("api"));
    for position in [4, 3, 7, 2] {
        h.positions.get_or_create(position).inc();
    }
    let text = prometheus_text(&registry);
    let positions: Vec<String> = samples(&text, "gw:positions_total")
        .iter()
        .map(|l| {
            l.split("position=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(positions, ["0", "1", "2", "3", "4", "7"]);
}

#[test]
fn the_dynamic_limit_applies_per_label_set_and_keeps_the_common_labels() {
    let mut registry = Registry::default();
    let metrics = Gateway::register(&mut registry);
    // Three services (the label-set limit), each with three tenants (one over the per-set
    // limit of two).
    for s in ["a", "b", "c"] {
        let h = metrics.resolve(&service(s));
        for t in ["t1", "t2", "t3"] {
            h.tenants.get_or_create(&Tenant { tenant: t.into() }).inc();
        }
    }
    // A fourth service is over the label-set limit: the family's own overflow.
    let h = metrics.resolve(&service("d"));
    h.tenants
        .get_or_create(&Tenant {
            tenant: "t1".into(),
        })
        .inc();
    let text = prometheus_text(&registry);
    assert_eq!(
        samples(&text, "gw:tenant_requests_total"),
        [
            r#"gw:tenant_requests_total{service="a",tenant="t1"} 1"#,
            r#"gw:tenant_requests_total{service="a",tenant="t2"} 1"#,
            r#"gw:tenant_requests_total{service="a",otel_metric_overflow="true"} 1"#,
            r#"gw:tenant_requests_total{service="b",tenant="t1"} 1"#,
            r#"gw:tenant_requests_total{service="b",tenant="t2"} 1"#,
            r#"gw:tenant_requests_total{service="b",otel_metric_overflow="true"} 1"#,
            r#"gw:tenant_requests_total{service="c",tenant="t1"} 1"#,
            r#"gw:tenant_requests_total{service="c",tenant="t2"} 1"#,
            r#"gw:tenant_requests_total{service="c",otel_metric_overflow="true"} 1"#,
            r#"gw:tenant_requests_total{otel_metric_overflow="true",tenant="t1"} 1"#,
        ]
    );
}

#[test]
fn raising_positions_at_registration_stays_within_max_series() {
    #[derive(MetricHandles)]
    pub struct Small {
        /// Retries
        #[metric(name = "s:retries", label = ["operation", "attempt"], positions = 2, max_series = 8)]
        pub retries: Family<NoLabels, ByLabels<(Operation, Position), Counter>>,
    }
    let mut registry = Registry::default();
    let options = RegisterOptions::new().positions("s:retries", 100);
    let metrics = Small::register_with(&mut registry, &options);
    let h = metrics.resolve(&NoLabels);
    assert_eq!(h.retries.positions(), 4, "8 series / 2 operations");
    h.retries.get_or_create((Operation::Get, 50)).inc();
    let retries = sample_value(
        &registry,
        "s:retries_total",
        &[("operation", "get"), ("attempt", "50")],
    );
    assert_eq!(retries, Some(1.0));
}

#[test]
fn several_position_axes_are_lowered_together_until_the_grid_fits_max_series() {
    type FourPositions = ByLabels<(Position, Position, Position, Position), Counter>;
    #[derive(MetricHandles)]
    pub struct Wide {
        /// Four position axes
        #[metric(name = "w:four", label = ["a", "b", "c", "d"], positions = 2)]
        pub four: Family<NoLabels, FourPositions>,
        /// Two position axes beside an enum
        #[metric(name = "w:mixed", label = ["operation", "x", "y"], positions = 2, max_series = 100)]
        pub mixed: Family<NoLabels, ByLabels<(Operation, Position, Position), Counter>>,
    }
    let mut registry = Registry::default();
    // 256 positions on four axes would be 256^4 = 4.3 billion series per label set.
    let options = RegisterOptions::new()
        .positions("w:four", 256)
        .positions("w:mixed", 256);
    let metrics = Wide::register_with(&mut registry, &options);
    let h = metrics.resolve(&NoLabels);
    // The largest count whose product fits: 6^4 = 1,296 <= 2,048 < 7^4 = 2,401.
    assert_eq!(h.four.positions(), 6);
    assert_eq!(h.four.preresolved(), 1296);
    // 2 operations x 7^2 = 98 <= 100 < 2 x 8^2 = 128.
    assert_eq!(h.mixed.positions(), 7);
    assert_eq!(h.mixed.preresolved(), 98);
    // Positions past the lowered count still record, through the bounded lookup.
    h.four.get_or_create((255, 0, 7, 1)).inc();
    h.mixed.get_or_create((Operation::Put, 9, 0)).inc();
    let scrape = Scrape::of(&registry);
    assert_eq!(scrape.family("w:four").unwrap().samples.len(), 1296 + 1);
    let four = [("a", "255"), ("b", "0"), ("c", "7"), ("d", "1")];
    assert_eq!(scrape.value("w:four_total", &four), Some(1.0));
    let mixed = [("operation", "put"), ("x", "9"), ("y", "0")];
    assert_eq!(scrape.value("w:mixed_total", &mixed), Some(1.0));
}
