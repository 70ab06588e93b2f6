// Every axis kind: an enum axis, a position axis and dynamic labels (whose idle series expire).
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
    #[metric(name = "ax:lora_latency", buckets = exponential(start = 0.5, factor = 2.0, count = 4), max_series = 16, idle_timeout = "10m")]
    pub lora_latency: Family<Engine, Dynamic<Adapter, Histogram>>,
}

// Every axis kind: a grid of two fixed axes, an enum and a position.
#[derive(MetricHandles)]
#[metric_handles(labels = Store)]
pub struct Grids {
    /// Store operations by operation and status
    #[metric(name = "kv:operation", label = ["operation", "status"])]
    pub operations: Family<Store, ByLabels<(Operation, Outcome), Counter>>,
    /// Accepted tokens by method and draft position
    #[metric(name = "kv:accepted", label = ["method", "position"], positions = 2)]
    pub accepted: Family<Store, ByLabels<(Method, Position), Counter>>,
}
