use metric_handles::{Family, MetricHandles, NoLabels};
use metric_handles::histogram::GaugeHistogram;

#[derive(MetricHandles)]
pub struct Metrics {
    /// Waiting requests by prompt length
    #[metric(name = "waiting_prompt_tokens")]
    waiting: Family<NoLabels, GaugeHistogram>,
}

fn main() {}
