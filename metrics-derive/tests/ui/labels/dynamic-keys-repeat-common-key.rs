use metric_handles::Registry;
use metric_handles::{Counter, Dynamic, Family, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct PerModel {
    pub model_name: String,
}

#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Metrics {
    /// Requests by model
    #[metric(name = "demo:requests_by_model")]
    by_model: Family<EngineLabels, Dynamic<PerModel, Counter>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&EngineLabels { model_name: "m".into(), engine: 0 });
    let _ = &handles.by_model;
}
