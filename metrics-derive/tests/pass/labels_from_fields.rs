// A struct without `#[metric_handles(labels = ...)]`: its label set is its fields' own.
use metric_handles::Registry;
use metric_handles::{Counter, ExpositionFormat, Family, Gauge, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[derive(MetricHandles)]
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
    let handles = metrics.resolve(&EngineLabels { model_name: "m".into(), engine: 0 });
    handles.running.set(1);
    handles.tokens.inc();
    assert_eq!(Metrics::DESCRIPTORS[1].common_labels, ["model_name", "engine"]);
    let text = ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    assert!(text.contains(r#"app:tokens_total{model_name="m",engine="0"} 1"#), "{text}");
}
