#![allow(unused_imports)]
use metric_handles::{ByLabel, ByPosition, Counter, Dynamic, Family, Gauge, Histogram, LabelEnum, LabelSet, MetricHandles, NoLabels};

// Three reserved keys in one struct: all three are reported together.
#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Labels {
    pub le: String,
    pub quantile: String,
    #[label(rename = "__name__")]
    pub name: String,
}

fn main() {}
