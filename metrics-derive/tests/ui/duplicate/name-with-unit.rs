use metric_handles::Registry;
use metric_handles::{Family, Histogram, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Metrics {
    /// Step time
    #[metric(name = "app:step", unit = "seconds", buckets = [1.0])]
    step: Family<EngineLabels, Histogram>,
    /// Step time again
    #[metric(name = "app:step_seconds", buckets = [1.0])]
    step_again: Family<EngineLabels, Histogram>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&EngineLabels { model_name: "m".into(), engine: 0 });
    handles.step.observe(0.5);
    handles.step_again.observe(0.5);
}
