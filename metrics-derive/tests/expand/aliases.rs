// Deprecated aliases, an explicit help text, no common labels, and members named through type
// aliases and prometheus-client's own path.
#[derive(MetricHandles)]
pub struct Metrics {
    #[metric(
        name = "vllm:num_preemptions",
        help = "Cumulative number of preemptions",
        alias(name = "vllm:num_preemptions_old", deprecated_in = "0.10")
    )]
    pub preemptions: Family<NoLabels, Counter>,
    /// Tokens generated (a type alias of a counter)
    #[metric(name = "vllm:generation_tokens")]
    pub tokens: Family<NoLabels, U64Counter>,
    /// Requests running (prometheus-client's gauge by its own path)
    #[metric(name = "vllm:num_requests_running")]
    pub running: Family<NoLabels, prometheus_client::metrics::gauge::Gauge>,
}
