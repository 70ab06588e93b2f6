use metric_handles::Registry;
use metric_handles::{ByLabel, Counter, Family, Gauge, Histogram, LabelEnum, LabelSet, MetricHandles};

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

// Several mistakes in one struct: all are reported in one compile.
#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels, handels = Handles)]
pub struct Metrics {
    /// Requests running.
    #[metric(name = "vllm:num-requests-running")]
    running: Family<EngineLabels, Gauge>,
    /// Prompt tokens
    #[metric(name = "vllm:prompt_tokens_total")]
    prompt_tokens: Family<EngineLabels, Counter>,
    /// Time to first token
    #[metric(name = "vllm:time_to_first_token_seconds", buckets = [1.0, 0.5])]
    ttft: Family<EngineLabels, Histogram>,
    /// Finished requests
    #[metric(name = "vllm:request_success")]
    success: Family<EngineLabels, ByLabel<FinishReason, Counter>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&EngineLabels { model_name: "m".into(), engine: 0 });
    handles.running.set(1);
    handles.prompt_tokens.inc();
    handles.ttft.observe(0.5);
    handles.success.get(FinishReason::Stop).inc();
}
