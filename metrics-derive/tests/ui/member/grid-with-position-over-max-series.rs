use metric_handles::Registry;
use metric_handles::{Counter, Family, LabelEnum, MetricHandles, NoLabels};
use metric_handles::axis::{ByLabels, Position};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
pub enum Method { A, B, C, D, E, F, G, H, I, J, K, L }

#[derive(MetricHandles)]
pub struct Metrics {
    /// Requests
    #[metric(name = "app:requests", label = ["method", "position"], positions = 200)]
    requests: Family<NoLabels, ByLabels<(Method, Position), Counter>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let h = metrics.resolve(&NoLabels);
    h.requests.get_or_create((Method::A, 3)).inc();
}
