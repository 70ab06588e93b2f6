// Member types are read by trait, not by spelling: type aliases (as vLLM's Rust code names its
// metric types), prometheus-client's types by full path, and a member type of the user's own.
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use metric_handles::prometheus_client::encoding::{EncodeLabelSet, EncodeMetric, MetricEncoder};
use metric_handles::prometheus_client::metrics::gauge::Gauge as PcGauge;
use metric_handles::Registry;
use metric_handles::{ByLabel, Counter, Family, Gauge, Histogram, LabelEnum, LabelSet, MetricHandles};
use metric_handles::member::{AxisShape, FamilyMember, SeriesSpec};
use metric_handles::descriptor::MetricKind;

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub engine: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum Phase {
    Prefill,
    Decode,
}

type U64Counter = Counter<u64, AtomicU64>;
type F64Gauge = Gauge<f64, AtomicU64>;
type Latency = Histogram;
type TokensByPhase = ByLabel<Phase, U64Counter>;

/// A member of one's own: a gauge that exports its current value and also remembers its peak
/// (for a log line).
#[derive(Clone, Debug, Default)]
pub struct PeakGauge {
    current: PcGauge,
    peak: Arc<AtomicU64>,
}

impl PeakGauge {
    pub fn set(&self, value: i64) {
        self.current.set(value);
        self.peak.fetch_max(value.max(0) as u64, Ordering::Relaxed);
    }

    pub fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }
}

impl FamilyMember for PeakGauge {
    const KIND: MetricKind = MetricKind::Gauge;
    const AXIS: AxisShape = AxisShape::None;

    fn build(_spec: &SeriesSpec) -> Self {
        Self::default()
    }

    fn encode_member<L: EncodeLabelSet>(
        &self,
        labels: &L,
        encoder: &mut MetricEncoder<'_>,
    ) -> Result<(), fmt::Error> {
        self.current.encode(encoder.encode_family(labels)?)
    }
}

#[derive(MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Metrics {
    /// Requests
    #[metric(name = "t:requests")]
    pub requests: Family<EngineLabels, U64Counter>,
    /// Cache usage
    #[metric(name = "t:cache_usage")]
    pub usage: Family<EngineLabels, F64Gauge>,
    /// Latency
    #[metric(name = "t:latency", unit = "seconds", buckets = [0.1, 1.0])]
    pub latency: Family<EngineLabels, Latency>,
    /// Tokens by phase
    #[metric(name = "t:tokens", label = "phase")]
    pub tokens: Family<EngineLabels, TokensByPhase>,
    /// prometheus-client's gauge, by path
    #[metric(name = "t:queue")]
    pub queue: Family<EngineLabels, metric_handles::prometheus_client::metrics::gauge::Gauge>,
    /// Batch size, with its peak
    #[metric(name = "t:batch")]
    pub batch: Family<EngineLabels, PeakGauge>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let h = metrics.resolve(&EngineLabels { engine: 0 });
    h.requests.inc();
    h.usage.set(0.5);
    h.latency.observe(0.2);
    h.tokens.get(Phase::Decode).inc_by(7);
    h.queue.set(3);
    h.batch.set(9);
    h.batch.set(4);
    assert_eq!(h.batch.peak(), 9);
    let d = Metrics::DESCRIPTORS;
    assert_eq!(d[0].kind, MetricKind::Counter);
    assert_eq!(d[2].kind, MetricKind::Histogram);
    assert_eq!(d[3].label_keys(), ["engine", "phase"]);
    assert_eq!(d[5].kind, MetricKind::Gauge);
    let text = metric_handles::ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    for sample in [
        r#"t:requests_total{engine="0"} 1"#,
        r#"t:cache_usage{engine="0"} 0.5"#,
        r#"t:tokens_total{engine="0",phase="prefill"} 0"#,
        r#"t:tokens_total{engine="0",phase="decode"} 7"#,
        r#"t:queue{engine="0"} 3"#,
        r#"t:batch{engine="0"} 4"#,
    ] {
        assert!(text.contains(sample), "{sample} missing from\n{text}");
    }
}
