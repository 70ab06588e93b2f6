use metric_handles::{Counter, Family, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Tenant {
    pub tenant: String,
}

#[derive(MetricHandles)]
pub struct Gateway {
    /// Requests by tenant
    #[metric(name = "gw:requests", idle_timeout = "5m")]
    pub requests: Family<Tenant, Counter>,
}

fn main() {}
