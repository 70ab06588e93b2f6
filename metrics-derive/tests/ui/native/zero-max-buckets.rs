use metric_handles::{Family, Histogram, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// Latency
    #[metric(name = "app:latency", buckets = [0.1, 1.0], native(max_buckets = 0))]
    latency: Family<NoLabels, Histogram>,
}

fn main() {}
