use metric_handles::{Family, LabelEnum, MetricHandles, NoLabels, StateSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, LabelEnum)]
pub enum Phase {
    Starting,
    Serving,
}

#[derive(MetricHandles)]
pub struct Metrics {
    /// What the server is doing
    #[metric(name = "phase", unit = "seconds")]
    phase: Family<NoLabels, StateSet<Phase>>,
}

fn main() {}
