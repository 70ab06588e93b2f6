// Deprecated aliases, an explicit help text and no common labels.
#[derive(MetricHandles)]
pub struct Metrics {
    #[metric(
        name = "vllm:num_preemptions",
        help = "Cumulative number of preemptions",
        alias(name = "vllm:num_preemptions_old", deprecated_in = "0.10")
    )]
    pub preemptions: Family<NoLabels, Counter>,
}
