use metric_handles::{Family, Histogram, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// Latency
    #[metric(name = "app:latency", native(min_reset = "1h"))]
    latency: Family<NoLabels, Histogram>,
}

fn main() {}
