//! `idle_timeout` on a `Dynamic` field, in each accepted spelling, and overridden (or turned
//! off) at registration.

use std::time::Duration;

use metric_handles::{
    Counter, Dynamic, Family, Histogram, LabelSet, MetricHandles, NoLabels, RegisterOptions,
    Registry,
};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Tenant {
    pub tenant: String,
}

#[derive(MetricHandles)]
pub struct Gateway {
    /// Requests by tenant
    #[metric(name = "gw:requests", idle_timeout = "5m")]
    pub requests: Family<NoLabels, Dynamic<Tenant, Counter>>,
    /// Latency by tenant
    #[metric(name = "gw:latency", unit = "seconds", buckets = [0.1, 1.0], idle_timeout = "1h30m")]
    pub latency: Family<NoLabels, Dynamic<Tenant, Histogram>>,
    /// Errors by tenant
    #[metric(name = "gw:errors", idle_timeout = "250ms", max_series = 64)]
    pub errors: Family<NoLabels, Dynamic<Tenant, Counter>>,
}

fn main() {
    let mut registry = Registry::default();
    let options = RegisterOptions::new()
        .idle_timeout("gw:requests", Duration::from_secs(60))
        .idle_timeout("gw:errors", None);
    let metrics = Gateway::register_with(&mut registry, &options);
    let handles = metrics.resolve(&NoLabels);
    let acme = Tenant {
        tenant: "acme".to_owned(),
    };
    handles.requests.get_or_create(&acme).inc();
    handles.latency.get_or_create(&acme).observe(0.2);
    handles.errors.get_or_create(&acme).inc();
    assert_eq!(handles.requests.expire_idle(), 0);
}
