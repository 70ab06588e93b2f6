use metric_handles::{ByLabel, Counter, Family, Histogram, LabelEnum, LabelSet, MetricHandles};
use metric_handles::axis::ByLabels;
use metric_handles::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "lowercase")]
pub enum Method {
    Get,
    Post,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Error,
}

type U64Counter = Counter<u64, std::sync::atomic::AtomicU64>;
type Latency = Histogram;
type ByMethod = ByLabel<Method, Counter>;

#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Metrics {
    /// Requests by method and status
    #[metric(name = "app:requests", label = ["method"])]
    field: Family<EngineLabels, ByLabels<(Method, Status), Counter>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let h = metrics.resolve(&EngineLabels { model_name: "m".into(), engine: 0 });
    let _ = &h.field;
}
