use metric_handles::{Family, Gauge, LabelEnum, LabelSet, MetricHandles};
use metric_handles::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "lowercase")]
pub enum Device {
    Gpu,
    Cpu,
}

#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Metrics {
    /// Cache usage
    #[metric(name = "app:cache_usage")]
    field: Family<EngineLabels, Gauge<f64>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let h = metrics.resolve(&EngineLabels { model_name: "m".into(), engine: 0 });
    let _ = &h.field;
}
