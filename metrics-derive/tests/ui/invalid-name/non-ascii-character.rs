use metric_handles::Registry;
use metric_handles::{Counter, Family, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// Tokens
    #[metric(name = "app:größe")]
    tokens: Family<NoLabels, Counter>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let h = metrics.resolve(&NoLabels);
    h.tokens.inc();
}
