#![allow(unused_imports)]
use metrics_runtime::{ByLabel, ByPosition, Counter, Dynamic, Family, Gauge, Histogram, LabelEnum, LabelSet, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub enum Metrics {
    A,
}

fn main() {}
