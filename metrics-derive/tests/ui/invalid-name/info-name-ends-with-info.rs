use metric_handles::{Family, Info, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// The build
    #[metric(name = "build_info")]
    build: Family<NoLabels, Info>,
}

fn main() {}
