use metric_handles::Registry;
use metric_handles::{ByLabel, Family, Histogram, LabelEnum, MetricHandles, NoLabels};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "lowercase")]
pub enum Reason {
    Stop,
    Length,
}

#[derive(MetricHandles)]
pub struct Metrics {
    /// End-to-end latency by finish reason
    #[metric(name = "app:latency", unit = "seconds")]
    latency: Family<NoLabels, ByLabel<Reason, Histogram>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&NoLabels);
    handles.latency.get(Reason::Stop).observe(0.1);
}
