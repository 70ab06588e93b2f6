use metric_handles::{Counter, Family, Gauge, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

// The attribute error is the only error: `register`, `resolve`, `remove`, `DESCRIPTORS` and
// the handle fields still exist (as stubs), so the code using them adds nothing.
#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels, handles = EngineHandles)]
pub struct Metrics {
    /// Requests running
    #[metric(name = "vllm:num_requests_running", max_seris = 4)]
    running: Family<EngineLabels, Gauge>,
    /// Generation tokens
    #[metric(name = "vllm:generation_tokens")]
    tokens: Family<EngineLabels, Counter>,
}

fn main() {
    let mut registry = metric_handles::Registry::default();
    let metrics = Metrics::register(&mut registry);
    let labels = EngineLabels { model_name: "m".into(), engine: 0 };
    let handles: EngineHandles = metrics.resolve(&labels);
    handles.running.set(1);
    handles.tokens.inc();
    assert!(Metrics::DESCRIPTORS.is_empty());
    metrics.remove(&labels);
}
