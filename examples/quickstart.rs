//! The README's example, runnable: declare vLLM-style metrics once, resolve an engine's
//! handles once, record on the hot path, and scrape.
//!
//! ```text
//! cargo run --example quickstart
//! ```

use metric_handles::Registry;
use metric_handles::{
    ByLabel, Counter, ExpositionFormat, Family, Histogram, LabelEnum, LabelSet, MetricHandles,
};

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
    Abort,
}

#[derive(Debug, MetricHandles)]
#[metric_handles(handles = EngineHandles, labels = EngineLabels)]
pub struct EngineMetrics {
    /// Number of generation tokens processed
    #[metric(name = "vllm:generation_tokens")]
    pub generation_tokens: Family<EngineLabels, Counter>,
    /// Histogram of time to first token in seconds
    #[metric(name = "vllm:time_to_first_token_seconds", buckets = [0.01, 0.1, 1.0, 10.0])]
    pub ttft: Family<EngineLabels, Histogram>,
    /// Count of finished requests
    #[metric(name = "vllm:request_success", label = "finished_reason")]
    pub request_success: Family<EngineLabels, ByLabel<FinishReason, Counter>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = EngineMetrics::register(&mut registry); // once, at start-up
    let engine = metrics.resolve(&EngineLabels {
        model_name: "llama".into(),
        engine: 0,
    }); // once per engine
    engine.generation_tokens.inc_by(16); // hot path: one atomic add
    engine.ttft.observe(0.042); // lock-free
    engine.request_success.get(FinishReason::Stop).inc(); // array index, no hashing

    let text = ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    assert!(text.contains(
        r#"vllm:request_success_total{model_name="llama",engine="0",finished_reason="stop"} 1"#
    ));
    print!("{text}");
}
