use metric_handles::Registry;
use metric_handles::{Counter, Family, Gauge, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    #[metric(name = "app:queue_depth", help = "Requests waiting\nfor a slot")]
    queue: Family<NoLabels, Gauge>,
    #[doc = "Requests\rserved"]
    #[doc = "by the frontend"]
    #[metric(name = "app:served")]
    served: Family<NoLabels, Counter>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&NoLabels);
    handles.queue.set(1);
    handles.served.inc();
}
