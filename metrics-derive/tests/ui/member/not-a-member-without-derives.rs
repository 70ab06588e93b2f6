use metric_handles::Registry;
use metric_handles::{Counter, Family, MetricHandles, NoLabels};

/// A type of the user's own, neither a member nor `Clone` nor `Debug`.
pub struct Summary {
    pub count: u64,
}

#[derive(MetricHandles)]
pub struct Metrics {
    /// Latency summary
    #[metric(name = "app:latency")]
    latency: Family<NoLabels, Summary>,
    /// Requests
    #[metric(name = "app:requests")]
    requests: Family<NoLabels, Counter>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&NoLabels);
    let _ = handles.latency.count;
    handles.requests.inc();
    let _ = handles.clone();
    println!("{handles:?}");
}
