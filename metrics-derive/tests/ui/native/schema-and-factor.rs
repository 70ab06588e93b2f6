use metric_handles::{Family, Histogram, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// Latency
    #[metric(name = "app:latency", native(schema = 3, bucket_factor = 1.1))]
    latency: Family<NoLabels, Histogram>,
}

fn main() {}
