// A struct with a common label set and one member of each leaf kind: counter, gauge, histogram,
// info (read once in `resolve`), and lint levels on the struct and a field, which reach the
// handles struct (`#[expect]` as `#[allow]`).
#[derive(MetricHandles)]
#[metric_handles(handles = EngineHandles, labels = EngineLabels)]
#[expect(clippy::struct_field_names)]
pub struct EngineMetrics {
    /// Number of requests in model execution batches
    #[metric(name = "demo:num_requests_running")]
    pub running: Family<EngineLabels, Gauge>,
    /// Number of generation tokens processed
    ///
    /// # Computed
    ///
    /// Increased by the tokens of each output.
    #[metric(name = "demo:generation_tokens")]
    pub generation_tokens: Family<EngineLabels, Counter>,
    /// Time to first token
    #[metric(name = "demo:time_to_first_token", unit = "seconds", buckets = [0.01, 0.1, 1.0])]
    pub ttft: Family<EngineLabels, Histogram>,
    /// The engine's build
    #[metric(name = "demo:build")]
    #[allow(dead_code)]
    pub build: Family<EngineLabels, Info>,
    #[metric(skip)]
    pub started: u64,
}
