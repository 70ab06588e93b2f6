use metric_handles::{Family, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// The build
    #[metric(name = "build")]
    build: Family<NoLabels, metric_handles::prometheus_client::metrics::info::Info<Vec<(String, String)>>>,
}

fn main() {}
