use metric_handles::Registry;
use metric_handles::{Family, Histogram, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub engine: u32,
}

const ITL: [f64; 5] = [0.01, 0.025, 0.05, 0.05, 0.1];

#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Metrics {
    /// Inter-token latency
    #[metric(name = "vllm:inter_token_latency_seconds", buckets = ITL)]
    itl: Family<EngineLabels, Histogram>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&EngineLabels { engine: 0 });
    handles.itl.observe(0.5);
}
