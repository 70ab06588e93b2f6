use metric_handles::MetricHandles;

#[derive(MetricHandles)]
pub enum Metrics {
    A,
}

fn main() {}
