use metric_handles::Registry;
use metric_handles::{Counter, Dynamic, Family, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// Requests by tenant
    #[metric(name = "app:requests")]
    requests: Family<NoLabels, Dynamic<String, Counter>>,
    /// Requests started
    #[metric(name = "app:started")]
    started: Family<NoLabels, Counter>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let h = metrics.resolve(&NoLabels);
    let _ = &h.requests;
    h.started.inc();
}
