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
    #[metric(name = "vllm:time_to_first_token_seconds", buckets = exponential(start = 0, factor = 1, count = 0))]
    ttft: Family<EngineLabels, Histogram>,
    /// Queue time
    #[metric(name = "vllm:request_queue_time_seconds", buckets = linear(start = 0.0, width = -1.0, count = 70000))]
    queue: Family<EngineLabels, Histogram>,
    /// Prompt tokens
    #[metric(name = "vllm:request_prompt_tokens", buckets = one_two_five(max = 0.5))]
    prompt: Family<EngineLabels, Histogram>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&EngineLabels { model_name: "m".into(), engine: 0 });
    handles.ttft.observe(0.5);
    handles.queue.observe(0.5);
    handles.prompt.observe(0.5);
}
