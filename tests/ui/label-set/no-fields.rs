#![allow(unused_imports)]
use metric_handles::{ByLabel, ByPosition, Counter, Dynamic, Family, Gauge, Histogram, LabelEnum, LabelSet, MetricHandles, NoLabels};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Labels {}

fn main() {}
