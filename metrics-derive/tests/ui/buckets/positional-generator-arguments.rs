use metric_handles::Registry;
use metric_handles::{Family, Histogram, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// Latency
    #[metric(name = "app:latency", unit = "seconds", buckets = exponential(0.00005, 2.0, 14))]
    latency: Family<NoLabels, Histogram>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let h = metrics.resolve(&NoLabels);
    h.latency.observe(0.1);
}
