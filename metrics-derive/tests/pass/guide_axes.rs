// The "Several fixed axes" and "Cardinality limits" examples of docs/guide.md, with the exact
// exposition the guide shows. Keep the two in sync.
use metric_handles::Registry;
use metric_handles::{Counter, Dynamic, Family, LabelEnum, LabelSet, MetricHandles};
use metric_handles::axis::{ByLabels, Position};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Service {
    pub service: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Tenant {
    pub tenant: String,
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
    #[label(rename = "5xx")]
    ServerError,
}

#[derive(MetricHandles)]
#[metric_handles(labels = Service)]
pub struct Gateway {
    /// Requests by method and status class
    #[metric(name = "gw:requests", label = ["method", "status"])]
    pub requests: Family<Service, ByLabels<(Method, Status), Counter>>,

    /// Retries by method and attempt
    #[metric(name = "gw:retries", label = ["method", "attempt"], positions = 2)]
    pub retries: Family<Service, ByLabels<(Method, Position), Counter>>,

    /// Requests by tenant
    #[metric(name = "gw:tenant_requests", max_series = 2, max_label_sets = 3)]
    pub tenants: Family<Service, Dynamic<Tenant, Counter>>,
}

fn service(name: &str) -> Service {
    Service {
        service: name.into(),
    }
}

fn samples<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.starts_with(prefix)).collect()
}

fn main() {
    let mut registry = Registry::default();
    let gateway = Gateway::register(&mut registry);
    let h = gateway.resolve(&service("api"));
    h.requests.get((Method::Post, Status::ServerError)).inc();
    h.retries.get_or_create((Method::Get, 1)).inc();
    let text = metric_handles::ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    assert_eq!(
        samples(&text, "gw:requests_total"),
        [
            r#"gw:requests_total{service="api",method="GET",status="2xx"} 0"#,
            r#"gw:requests_total{service="api",method="GET",status="5xx"} 0"#,
            r#"gw:requests_total{service="api",method="POST",status="2xx"} 0"#,
            r#"gw:requests_total{service="api",method="POST",status="5xx"} 1"#,
        ]
    );
    assert_eq!(
        samples(&text, "gw:retries_total"),
        [
            r#"gw:retries_total{service="api",method="GET",attempt="0"} 0"#,
            r#"gw:retries_total{service="api",method="GET",attempt="1"} 1"#,
            r#"gw:retries_total{service="api",method="POST",attempt="0"} 0"#,
            r#"gw:retries_total{service="api",method="POST",attempt="1"} 0"#,
        ]
    );

    let mut registry = Registry::default();
    let gateway = Gateway::register(&mut registry);
    for s in ["a", "b", "c"] {
        let h = gateway.resolve(&service(s));
        for t in ["t1", "t2", "t3"] {
            h.tenants.get_or_create(&Tenant { tenant: t.into() }).inc();
        }
    }
    let h = gateway.resolve(&service("d"));
    h.tenants.get_or_create(&Tenant { tenant: "t1".into() }).inc();
    let text = metric_handles::ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    let tenants = samples(&text, "gw:tenant_requests_total");
    assert_eq!(tenants.len(), 10);
    assert_eq!(tenants[2], r#"gw:tenant_requests_total{service="a",otel_metric_overflow="true"} 1"#);
    assert_eq!(tenants[8], r#"gw:tenant_requests_total{service="c",otel_metric_overflow="true"} 1"#);
    assert_eq!(tenants[9], r#"gw:tenant_requests_total{otel_metric_overflow="true",tenant="t1"} 1"#);
}
