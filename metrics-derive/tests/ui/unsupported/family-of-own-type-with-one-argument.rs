use metric_handles::Registry;
use metric_handles::{Counter, MetricHandles, NoLabels};

/// A type of the user's own that happens to be called `Family`.
pub struct Family<M>(pub M);

#[derive(MetricHandles)]
pub struct Metrics {
    /// Requests
    #[metric(name = "app:requests")]
    requests: Family<Counter>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&NoLabels);
    handles.requests.inc();
}
