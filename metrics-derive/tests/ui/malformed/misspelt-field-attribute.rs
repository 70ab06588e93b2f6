use metric_handles::Registry;
use metric_handles::{Counter, Family, Gauge, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// Requests running
    #[metirc(name = "app:running")]
    running: Family<NoLabels, Gauge>,
    /// Tokens
    #[metric(name = "app:tokens")]
    tokens: Family<NoLabels, Counter>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&NoLabels);
    handles.running.set(1);
    handles.tokens.inc();
}
