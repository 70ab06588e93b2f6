use metric_handles::Registry;
use metric_handles::{Counter, Family, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct StoreLabels {
    #[label(rename = "größe")]
    pub size: String,
}

#[derive(MetricHandles)]
#[metric_handles(labels = StoreLabels)]
pub struct Metrics {
    /// Gets
    #[metric(name = "kv:gets")]
    gets: Family<StoreLabels, Counter>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&StoreLabels { size: "s".into() });
    handles.gets.inc();
}
