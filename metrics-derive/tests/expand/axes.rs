// Every axis kind: an enum axis, a position axis and dynamic labels.
#[derive(MetricHandles)]
#[metric_handles(labels = Engine)]
pub struct Axes {
    /// Finished requests by reason
    #[metric(name = "ax:request_success", label = "finished_reason")]
    pub success: Family<Engine, ByLabel<FinishReason, Counter>>,
    /// Accepted draft tokens by position
    #[metric(name = "ax:accepted", label = "position", positions = 3)]
    pub accepted: Family<Engine, ByPosition<Counter>>,
    /// Latency by adapter
    #[metric(name = "ax:lora_latency", buckets = exponential(start = 0.5, factor = 2.0, count = 4), max_series = 16)]
    pub lora_latency: Family<Engine, Dynamic<Adapter, Histogram>>,
}
