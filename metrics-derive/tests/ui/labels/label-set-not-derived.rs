use metric_handles::Registry;
use metric_handles::{Counter, Family, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub struct KvLabels {
    pub store: String,
}

#[derive(MetricHandles)]
#[metric_handles(labels = KvLabels)]
pub struct Metrics {
    /// Gets
    #[metric(name = "kv:gets")]
    gets: Family<KvLabels, Counter>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let h = metrics.resolve(&KvLabels { store: "a".into() });
    h.gets.inc();
}
