#![allow(unused_imports)]
use metric_handles::{ByLabel, ByPosition, Counter, Dynamic, Family, Gauge, Histogram, LabelEnum, LabelSet, MetricHandles, NoLabels};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
#[label(rename_all = "snake_case")]
pub struct Labels {
    pub model_name: String,
}

fn main() {}
