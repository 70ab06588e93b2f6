use metric_handles::Registry;
use metric_handles::{Counter, Family, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Metrics {
    /// Preemptions
    #[metric(name = "vllm:num_preemptions", alias(name = "vllm:preemptions", deprecated = "0.10"))]
    preemptions: Family<EngineLabels, Counter>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&EngineLabels { model_name: "m".into(), engine: 0 });
    handles.preemptions.inc();
}
