use metric_handles::{Family, Histogram, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// Latency
    #[metric(name = "app:latency", native(bucket_facter = 1.1))]
    latency: Family<NoLabels, Histogram>,
}

fn main() {}
