#![allow(unused_imports)]
use metric_handles::{ByLabel, ByPosition, Counter, Dynamic, Family, Gauge, Histogram, LabelEnum, LabelSet, MetricHandles, NoLabels};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
pub enum Reason {
    Stop,
    Error(u16),
}

fn main() {}
