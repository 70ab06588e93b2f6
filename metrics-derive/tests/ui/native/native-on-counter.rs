use metric_handles::{Counter, Family, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// Requests
    #[metric(name = "app:requests", native)]
    requests: Family<NoLabels, Counter>,
}

fn main() {}
