use metric_handles::{Family, Histogram, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// Latency
    #[metric(name = "app:latency", native(bucket_factor = 1.0))]
    latency: Family<NoLabels, Histogram>,
}

fn main() {}
