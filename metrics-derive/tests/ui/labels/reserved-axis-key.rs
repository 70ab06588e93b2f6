use metric_handles::Registry;
use metric_handles::{ByPosition, Counter, Family, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Metrics {
    /// Accepted tokens per position
    #[metric(name = "vllm:accepted_per_pos", label = "le")]
    accepted: Family<EngineLabels, ByPosition<Counter>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&EngineLabels { model_name: "m".into(), engine: 0 });
    handles.accepted.get_or_create(0).inc();
}
