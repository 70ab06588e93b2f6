use metric_handles::{Family, MetricHandles, NoLabels, StateSet};

#[derive(MetricHandles)]
pub struct Metrics {
    /// What the server is doing
    #[metric(name = "phase")]
    phase: Family<NoLabels, StateSet<String>>,
}

fn main() {}
