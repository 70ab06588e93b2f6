use metric_handles::Registry;
use metric_handles::{Counter, Family, MetricHandles, NoLabels};

pub struct Config {
    pub name: String,
}

#[derive(MetricHandles)]
pub struct Metrics {
    /// Tokens
    #[metric(name = "app:tokens")]
    tokens: Family<NoLabels, Counter>,
    #[metric(skip)]
    config: Config,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let h = metrics.resolve(&NoLabels);
    h.tokens.inc();
    let _ = &metrics.config.name;
}
