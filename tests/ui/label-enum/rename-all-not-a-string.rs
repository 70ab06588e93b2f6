#![allow(unused_imports)]
use metric_handles::{ByLabel, ByPosition, Counter, Dynamic, Family, Gauge, Histogram, LabelEnum, LabelSet, MetricHandles, NoLabels};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = snake_case)]
pub enum Reason {
    Stop,
}

fn main() {}
