// A grid's key written in another order than its axes is one error, which says to reorder it.
use metric_handles::{Counter, Family, LabelEnum, MetricHandles, NoLabels, Registry};
use metric_handles::axis::ByLabels;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
pub enum Method {
    Get,
    Put,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
pub enum Status {
    Ok,
    Error,
}

#[derive(MetricHandles)]
pub struct Metrics {
    /// Requests by method and status
    #[metric(name = "app:requests", label = ["method", "status"])]
    requests: Family<NoLabels, ByLabels<(Method, Status), Counter>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&NoLabels);
    handles.requests.get((Status::Ok, Method::Get)).inc();
    handles.requests.get_or_create((Status::Error, Method::Put)).inc();
}
