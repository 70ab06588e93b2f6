use metric_handles::Registry;
use metric_handles::{Counter, Family, Gauge, LabelSet, MetricHandles};

#[derive(Clone, Debug, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Metrics {
    /// Requests running
    #[metric(name = "app:running")]
    running: Family<EngineLabels, Gauge>,
    /// Tokens
    #[metric(name = "app:tokens")]
    tokens: Family<EngineLabels, Counter>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let h = metrics.resolve(&EngineLabels { model_name: "m".into(), engine: 0 });
    h.running.set(1);
    h.tokens.inc();
}
