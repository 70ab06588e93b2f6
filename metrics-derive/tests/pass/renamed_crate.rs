// The runtime under another name (as when it is re-exported by a facade crate): every derive
// takes `crate = path`, and the generated code names nothing else.
extern crate metric_handles as rt;

use rt::Registry;
use rt::{ByLabel, Counter, Family, Histogram};

#[derive(Clone, Debug, Hash, PartialEq, Eq, rt::LabelSet)]
#[label(crate = ::rt)]
pub struct Labels {
    pub engine: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, rt::LabelEnum)]
#[label(crate = ::rt, rename_all = "snake_case")]
pub enum Phase {
    Prefill,
    Decode,
}

#[derive(rt::MetricHandles)]
#[metric_handles(crate = ::rt, labels = Labels)]
pub struct Metrics {
    /// Tokens by phase
    #[metric(name = "demo:tokens", label = "phase")]
    pub tokens: Family<Labels, ByLabel<Phase, Counter>>,
    /// Step latency
    #[metric(name = "demo:step_latency", unit = "seconds", buckets = [0.001, 0.01, 0.1])]
    pub step: Family<Labels, Histogram>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles: MetricsHandles = metrics.resolve(&Labels { engine: 1 });
    handles.tokens.get(Phase::Decode).inc();
    handles.step.observe(0.005);
    let text = rt::ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    assert!(text.contains(r#"demo:tokens_total{engine="1",phase="decode"} 1"#), "{text}");
    assert!(text.contains("demo:step_latency_seconds_count"), "{text}");
}
