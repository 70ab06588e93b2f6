use metric_handles::Registry;
use metric_handles::{Family, Histogram, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// Queue time
    #[metric(name = "app:queue_time", unit = "seconds", buckets = linear(0.0, width = 0.25, 8))]
    queue_time: Family<NoLabels, Histogram>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&NoLabels);
    handles.queue_time.observe(0.1);
}
