use metric_handles::{Family, Info, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// The build
    #[metric(name = "build", buckets = [1.0, 2.0])]
    build: Family<NoLabels, Info>,
}

fn main() {}
