use metric_handles::Registry;
use metric_handles::{Family, Histogram, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Metrics {
    /// Time to first token
    #[metric(name = "vllm:time_to_first_token_seconds", unit = "seconds", buckets = [0.1, 1.0])]
    ttft: Family<EngineLabels, Histogram>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&EngineLabels { model_name: "m".into(), engine: 0 });
    handles.ttft.observe(0.5);
}
