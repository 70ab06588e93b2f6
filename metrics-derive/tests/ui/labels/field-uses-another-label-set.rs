use metric_handles::Registry;
use metric_handles::{Family, Gauge, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct OtherLabels {
    pub pod: String,
}

#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Metrics {
    /// Requests running
    #[metric(name = "vllm:num_requests_running")]
    running: Family<EngineLabels, Gauge>,
    /// Requests waiting
    #[metric(name = "vllm:num_requests_waiting")]
    waiting: Family<OtherLabels, Gauge>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&EngineLabels { model_name: "m".into(), engine: 0 });
    handles.running.set(1);
    handles.waiting.set(1);
}
