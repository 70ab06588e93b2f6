use metric_handles::{Counter, Family, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Tenant {
    pub tenant: String,
}

type Requests = Counter;

#[derive(MetricHandles)]
pub struct Gateway {
    /// Requests by tenant
    #[metric(name = "gw:requests", idle_timeout = "5m")]
    pub requests: Family<Tenant, Requests>,
}

fn main() {
    let mut registry = metric_handles::Registry::default();
    let _ = Gateway::register(&mut registry);
}
