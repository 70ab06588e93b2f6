//! `native` and `native(...)` on histogram fields: native only, and beside classic buckets.

use metric_handles::{Family, Histogram, MetricHandles, NoLabels, Registry};
use metric_handles::histogram::NativeConfig;

#[derive(MetricHandles)]
pub struct Metrics {
    /// Latency, native buckets only, every default
    #[metric(name = "app:latency", native)]
    latency: Family<NoLabels, Histogram>,
    /// Time to first token, classic and native buckets
    #[metric(
        name = "app:ttft",
        unit = "seconds",
        buckets = [0.01, 0.1, 1.0],
        native(bucket_factor = 1.2, zero_threshold = 1e-6, max_buckets = 50, min_reset = 3600, max_zero_threshold = 0.001)
    )]
    ttft: Family<NoLabels, Histogram>,
    /// Negative schema
    #[metric(name = "app:sizes", native(schema = -2))]
    sizes: Family<NoLabels, Histogram>,
}

fn main() {
    let expected = NativeConfig::with_schema(2)
        .zero_threshold(1e-6)
        .max_buckets(50)
        .min_reset(std::time::Duration::from_secs(3600))
        .max_zero_threshold(0.001);
    assert_eq!(Metrics::DESCRIPTORS[1].native, Some(expected));
    assert_eq!(Metrics::DESCRIPTORS[0].native, Some(NativeConfig::default()));
    assert_eq!(Metrics::DESCRIPTORS[2].native.map(|n| n.schema()), Some(-2));
    let metrics = Metrics::register(&mut Registry::default());
    let handles = metrics.resolve(&NoLabels);
    handles.latency.observe(0.5);
    handles.ttft.observe(0.05);
    assert_eq!(handles.latency.bounds(), &[] as &[f64]);
    assert_eq!(handles.ttft.native_config(), Some(expected));
    assert_eq!(handles.latency.snapshot().native().map(|n| n.count()), Some(1));
    let _ = &metrics.sizes;
}
