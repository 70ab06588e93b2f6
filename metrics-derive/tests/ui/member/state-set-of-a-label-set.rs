use metric_handles::{Family, LabelSet, MetricHandles, NoLabels, StateSet};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Phase {
    pub phase: String,
}

#[derive(MetricHandles)]
pub struct Metrics {
    /// What the server is doing
    #[metric(name = "phase")]
    phase: Family<NoLabels, StateSet<Phase>>,
}

fn main() {}
