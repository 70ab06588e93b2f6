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
    #[metric(name = "vllm:time_to_first_token_seconds", buckets = [0.1, 1e400])]
    ttft: Family<EngineLabels, Histogram>,
}

fn main() {}
