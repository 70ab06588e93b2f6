use metric_handles::Registry;
use metric_handles::{Counter, Dynamic, Family, LabelEnum, MetricHandles, NoLabels};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
pub enum Reason {
    Stop,
    Length,
}

#[derive(MetricHandles)]
pub struct Metrics {
    /// Finished requests
    #[metric(name = "app:finished")]
    finished: Family<NoLabels, Dynamic<Reason, Counter>>,
    /// Requests started
    #[metric(name = "app:started")]
    started: Family<NoLabels, Counter>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let h = metrics.resolve(&NoLabels);
    let _ = &h.finished;
    h.started.inc();
}
