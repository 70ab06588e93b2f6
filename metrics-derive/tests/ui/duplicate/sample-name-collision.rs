use metric_handles::Registry;
use metric_handles::{Counter, Family, Gauge, Histogram, MetricHandles, NoLabels};
use metric_handles::histogram::GaugeHistogram;

#[derive(MetricHandles)]
pub struct Metrics {
    /// Requests served
    #[metric(name = "app:requests")]
    requests: Family<NoLabels, Counter>,
    /// Requests served, as a gauge
    #[metric(name = "app:requests_total")]
    requests_gauge: Family<NoLabels, Gauge>,
    /// Request latency
    #[metric(name = "app:latency", buckets = [0.1, 1.0])]
    latency: Family<NoLabels, Histogram>,
    /// Requests measured
    #[metric(name = "app:latency_count")]
    latency_count: Family<NoLabels, Counter>,
    /// Time spent in seconds
    #[metric(name = "app:busy", unit = "seconds")]
    busy: Family<NoLabels, Counter>,
    /// Time spent, as a gauge
    #[metric(name = "app:busy_seconds_created")]
    busy_created: Family<NoLabels, Gauge>,
    /// How long the waiting requests have waited
    #[metric(name = "app:queue_wait", buckets = [0.1, 1.0])]
    queue_wait: Family<NoLabels, GaugeHistogram>,
    /// Requests waiting, as a gauge
    #[metric(name = "app:queue_wait_count")]
    queue_wait_count: Family<NoLabels, Gauge>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&NoLabels);
    handles.requests.inc();
    handles.requests_gauge.set(1);
    handles.latency.observe(0.5);
    handles.latency_count.inc();
    handles.busy.inc();
    handles.busy_created.set(1);
    handles.queue_wait.add(0.5);
    handles.queue_wait_count.set(1);
}
