use metric_handles::{Family, Histogram, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// Latency
    #[metric(name = "app:latency", native(zero_threshold = -0.5))]
    latency: Family<NoLabels, Histogram>,
}

fn main() {}
