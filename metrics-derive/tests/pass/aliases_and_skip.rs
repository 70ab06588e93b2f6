// Deprecated aliases and non-metric fields.
use metric_handles::Registry;
use metric_handles::{Counter, Family, Histogram, MetricHandles, NoLabels};
use metric_handles::descriptor::Alias;

#[derive(MetricHandles)]
pub struct Metrics {
    /// Preemptions
    #[metric(
        name = "vllm:num_preemptions",
        alias(name = "vllm:num_preemptions_old", deprecated_in = "0.10"),
        alias(name = "vllm:preemptions", deprecated_in = "0.9")
    )]
    pub preemptions: Family<NoLabels, Counter>,
    /// Tokens per iteration (a histogram may end in `_total`)
    #[metric(name = "vllm:iteration_tokens_total", buckets = one_two_five(max = 100))]
    pub iteration_tokens: Family<NoLabels, Histogram>,
    #[metric(skip)]
    pub started: Option<std::time::Instant>,
    #[metric(skip)]
    note: String,
}

fn main() {
    let d = Metrics::DESCRIPTORS;
    assert_eq!(d.len(), 2);
    assert_eq!(
        d[0].aliases,
        [
            Alias { name: "vllm:num_preemptions_old", deprecated_in: "0.10" },
            Alias { name: "vllm:preemptions", deprecated_in: "0.9" },
        ]
    );
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    assert!(metrics.started.is_none());
    assert!(metrics.note.is_empty());
    metrics.resolve(&NoLabels).preemptions.inc();
}
