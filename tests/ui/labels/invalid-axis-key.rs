#![allow(unused_imports)]
use metric_handles::{ByLabel, ByPosition, Counter, Dynamic, Family, Gauge, Histogram, LabelEnum, LabelSet, MetricHandles, NoLabels};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Metrics {
    /// Accepted tokens per position
    #[metric(name = "vllm:accepted_per_pos", label = "draft position")]
    accepted: Family<EngineLabels, ByPosition<Counter>>,
}

fn main() {}
