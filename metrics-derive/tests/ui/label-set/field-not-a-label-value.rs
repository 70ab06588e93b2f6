use metric_handles::Registry;
use metric_handles::{Counter, Family, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct RequestLabels {
    pub model_name: String,
    pub tags: Vec<String>,
}

#[derive(MetricHandles)]
pub struct Metrics {
    /// Requests
    #[metric(name = "app:requests")]
    requests: Family<RequestLabels, Counter>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&RequestLabels { model_name: "m".into(), tags: vec![] });
    handles.requests.inc();
}
