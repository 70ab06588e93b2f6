use metric_handles::Registry;
use metric_handles::{ByLabel, Counter, Family, LabelEnum, MetricHandles, NoLabels};

#[derive(Clone, Debug, PartialEq, Eq, Hash, LabelEnum)]
pub enum Reason {
    Stop,
    Length,
}

#[derive(MetricHandles)]
pub struct Metrics {
    /// Finished requests
    #[metric(name = "app:finished", label = "reason")]
    finished: Family<NoLabels, ByLabel<Reason, Counter>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let h = metrics.resolve(&NoLabels);
    h.finished.get(Reason::Stop).inc();
}
