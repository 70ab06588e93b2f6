#![allow(unused_imports)]
use metrics_runtime::{ByLabel, ByPosition, Counter, Dynamic, Family, Gauge, Histogram, LabelEnum, LabelSet, MetricHandles, NoLabels};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NotDerived {
    A,
}

#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Metrics {
    /// Finished requests
    #[metric(name = "vllm:request_success", label = "finished_reason")]
    success: Family<EngineLabels, ByLabel<NotDerived, Counter>>,
}

fn main() {}
