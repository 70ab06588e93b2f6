use metric_handles::Registry;
use metric_handles::{Counter, Dynamic, Family, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Shard {
    pub shard: u32,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Tenant {
    pub tenant: String,
}

#[derive(MetricHandles)]
#[metric_handles(labels = Shard)]
pub struct Metrics {
    /// Requests by tenant
    #[metric(name = "kv:tenant_requests", max_label_sets = 3)]
    requests: Family<Shard, Dynamic<Tenant, Counter>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&Shard { shard: 0 });
    handles.requests.get_or_create(&Tenant { tenant: "t".into() }).inc();
}
