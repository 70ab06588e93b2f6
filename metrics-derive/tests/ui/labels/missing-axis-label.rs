use metric_handles::Registry;
use metric_handles::{ByLabel, Counter, Family, LabelEnum, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "lowercase")]
pub enum FinishReason {
    Stop,
    Length,
}

#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Metrics {
    /// Finished requests
    #[metric(name = "vllm:request_success")]
    success: Family<EngineLabels, ByLabel<FinishReason, Counter>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&EngineLabels { model_name: "m".into(), engine: 0 });
    handles.success.get(FinishReason::Stop).inc();
}
