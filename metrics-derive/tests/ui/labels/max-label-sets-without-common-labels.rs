use metric_handles::Registry;
use metric_handles::{Counter, Dynamic, Family, LabelSet, MetricHandles, NoLabels};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Tenant {
    pub tenant: String,
}

#[derive(MetricHandles)]
pub struct Metrics {
    /// Requests by tenant
    #[metric(name = "app:requests", max_label_sets = 3)]
    requests: Family<NoLabels, Dynamic<Tenant, Counter>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let h = metrics.resolve(&NoLabels);
    h.requests.get_or_create(&Tenant { tenant: "t".into() }).inc();
}
