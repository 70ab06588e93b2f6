use metric_handles::Registry;
use metric_handles::{Counter, Dynamic, Family, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Lora {
    pub lora_name: String,
}

#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Metrics {
    /// Requests by adapter
    #[metric(name = "demo:lora_requests", label = "lora_name")]
    lora: Family<EngineLabels, Dynamic<Lora, Counter>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&EngineLabels { model_name: "m".into(), engine: 0 });
    let _ = &handles.lora;
}
