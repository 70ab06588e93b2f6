#![allow(unused_imports)]
use metric_handles::{ByLabel, ByPosition, Counter, Dynamic, Family, Gauge, Histogram, LabelEnum, LabelSet, MetricHandles, NoLabels};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct PerModel {
    pub model_name: String,
}

#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Metrics {
    /// Requests by model
    #[metric(name = "demo:requests_by_model")]
    by_model: Family<EngineLabels, Dynamic<PerModel, Counter>>,
}

fn main() {}
