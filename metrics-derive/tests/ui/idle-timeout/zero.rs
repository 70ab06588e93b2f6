use metric_handles::{Counter, Dynamic, Family, LabelSet, MetricHandles, NoLabels};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Tenant {
    pub tenant: String,
}

#[derive(MetricHandles)]
pub struct Gateway {
    /// Requests by tenant
    #[metric(name = "gw:requests", idle_timeout = "0s")]
    pub requests: Family<NoLabels, Dynamic<Tenant, Counter>>,
}

fn main() {}
