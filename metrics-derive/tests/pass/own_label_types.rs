// User-defined label set and label enum, with renames.
use metric_handles::Registry;
use metric_handles::{ByLabel, Counter, Family, LabelEnum, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct ServiceLabels {
    #[label(rename = "service")]
    pub name: String,
    pub shard: u16,
    pub canary: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "kebab-case")]
pub enum Outcome {
    Ok,
    ClientError,
    #[label(rename = "5xx")]
    ServerError,
}

#[derive(MetricHandles)]
#[metric_handles(labels = ServiceLabels, handles = ServiceHandles)]
pub struct ServiceMetrics {
    /// Responses by outcome
    #[metric(name = "svc:responses", label = "outcome")]
    pub responses: Family<ServiceLabels, ByLabel<Outcome, Counter>>,
}

fn main() {
    assert_eq!(<ServiceLabels as LabelSet>::KEYS, ["service", "shard", "canary"]);
    assert_eq!(Outcome::VALUES, ["ok", "client-error", "5xx"]);
    let mut registry = Registry::default();
    let metrics = ServiceMetrics::register(&mut registry);
    let labels = ServiceLabels { name: "api".into(), shard: 3, canary: false };
    let handles: ServiceHandles = metrics.resolve(&labels);
    handles.responses.get(Outcome::ServerError).inc();
    let text = metric_handles::ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    assert!(text.contains(r#"svc:responses_total{service="api",shard="3",canary="false",outcome="5xx"} 1"#), "{text}");
}
