use metric_handles::Registry;
use metric_handles::{Counter, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Metrics {
    /// Tokens
    #[metric(name = "app:tokens")]
    tokens: metric_handles::prometheus_client::metrics::family::Family<EngineLabels, Counter>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let h = metrics.resolve(&EngineLabels { model_name: "m".into(), engine: 0 });
    h.tokens.inc();
}
