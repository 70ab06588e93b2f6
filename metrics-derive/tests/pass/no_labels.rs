// No `#[metric_handles]` at all: the handles struct is `{Struct}Handles` and the label set
// is `NoLabels`.
use metric_handles::Registry;
use metric_handles::{Counter, Family, Gauge, MetricHandles, NoLabels};

#[derive(MetricHandles)]
struct AppMetrics {
    /// Requests served
    #[metric(name = "app:requests")]
    requests: Family<NoLabels, Counter>,
    #[metric(name = "app:in_flight", help = "Requests in flight")]
    in_flight: Family<NoLabels, Gauge>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = AppMetrics::register(&mut registry);
    let handles: AppMetricsHandles = metrics.resolve(&NoLabels);
    handles.requests.inc();
    handles.in_flight.set(3);
    assert_eq!(AppMetrics::DESCRIPTORS.len(), 2);
    assert_eq!(AppMetrics::DESCRIPTORS[1].help, "Requests in flight");
    metrics.remove(&NoLabels);
}
