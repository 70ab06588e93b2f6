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
    /// Prompt tokens
    #[metric(name = "vllm:prompt_tokens", label = "kind")]
    prompt_tokens: Family<EngineLabels, Counter>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&EngineLabels { model_name: "m".into(), engine: 0 });
    handles.prompt_tokens.inc();
}
