use metric_handles::prometheus_client::encoding::EncodeLabelValue;
use metric_handles::Registry;
use metric_handles::{ByLabel, Counter, Family, MetricHandles, NoLabels};

#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
pub enum Reason {
    Stop,
    Length,
}

#[derive(MetricHandles)]
pub struct Metrics {
    /// Finished
    #[metric(name = "app:finished", label = "reason")]
    finished: Family<NoLabels, ByLabel<Reason, Counter>>,
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
