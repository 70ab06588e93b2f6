use metric_handles::{Counter, Family, LabelEnum, LabelSet, MetricHandles};
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

#[derive(Clone, Debug, Hash, PartialEq, Eq, metric_handles::prometheus_client::encoding::EncodeLabelSet)]
pub struct PcLabels {
    pub service: String,
}

#[derive(MetricHandles)]
#[metric_handles(labels = PcLabels)]
pub struct Metrics {
    /// Requests
    #[metric(name = "app:requests")]
    field: Family<PcLabels, Counter>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let h = metrics.resolve(&PcLabels { service: "s".into() });
    let _ = &h.field;
}
