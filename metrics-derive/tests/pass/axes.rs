// Every axis kind, over every leaf kind, including `Counter<f64>` and `Gauge<f64>`.
use std::sync::atomic::AtomicU64;

use metric_handles::Registry;
use metric_handles::{
    ByLabel, ByPosition, Counter, Dynamic, Family, Gauge, Histogram, LabelEnum, LabelSet,
    MetricHandles,
};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Engine {
    pub engine: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Device {
    Gpu,
    CpuOffload,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Adapter {
    pub lora_name: String,
}

const DRAFT: usize = 3;

#[derive(MetricHandles)]
#[metric_handles(labels = Engine)]
pub struct Axes {
    /// Enum axis of gauges
    #[metric(name = "ax:usage", label = "device")]
    pub usage: Family<Engine, ByLabel<Device, Gauge<f64, AtomicU64>>>,
    /// Enum axis of histograms
    #[metric(name = "ax:latency", label = "device", buckets = [0.1, 1.0])]
    pub latency: Family<Engine, ByLabel<Device, Histogram>>,
    /// Position axis with a constant count
    #[metric(name = "ax:accepted", label = "position", positions = DRAFT)]
    pub accepted: Family<Engine, ByPosition<Counter>>,
    /// Position axis without a default count
    #[metric(name = "ax:drafted", label = "position")]
    pub drafted: Family<Engine, ByPosition<Counter<f64, AtomicU64>>>,
    /// Dynamic labels of histograms
    #[metric(name = "ax:lora_latency", buckets = [1.0], max_series = 16)]
    pub lora_latency: Family<Engine, Dynamic<Adapter, Histogram>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Axes::register(&mut registry);
    let h = metrics.resolve(&Engine { engine: 0 });
    h.usage.get(Device::CpuOffload).set(0.5);
    h.latency.get(Device::Gpu).observe(0.5);
    assert_eq!(h.accepted.preresolved(), DRAFT);
    assert_eq!(h.drafted.preresolved(), 0);
    h.drafted.get_or_create(7).inc_by(0.5);
    h.lora_latency.get_or_create(&Adapter { lora_name: "x".into() }).observe(0.5);
    let text = metric_handles::ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    assert!(text.contains(r#"ax:usage{engine="0",device="CPU_OFFLOAD"} 0.5"#), "{text}");
    assert!(text.contains(r#"ax:drafted_total{engine="0",position="7"} 0.5"#), "{text}");
}
