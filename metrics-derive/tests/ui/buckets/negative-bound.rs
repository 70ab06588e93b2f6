use metric_handles::Registry;
use metric_handles::{Family, Histogram, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// Clock skew between replicas
    #[metric(name = "app:clock_skew_seconds", buckets = [-1.0, 0.0, 1.0])]
    skew: Family<NoLabels, Histogram>,
    /// Offsets
    #[metric(name = "app:offset", buckets = linear(start = -5.0, width = 1.0, count = 10))]
    offset: Family<NoLabels, Histogram>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&NoLabels);
    handles.skew.observe(0.5);
    handles.offset.observe(0.5);
}
