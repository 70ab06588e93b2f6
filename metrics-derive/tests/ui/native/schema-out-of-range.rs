use metric_handles::{Family, Histogram, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// Latency
    #[metric(name = "app:latency", native(schema = 9))]
    latency: Family<NoLabels, Histogram>,
}

fn main() {}
