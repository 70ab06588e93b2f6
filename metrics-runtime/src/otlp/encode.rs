//! [`OtlpEncoder`]: a registry as the body of one OTLP/HTTP request.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use opentelemetry_proto::tonic::common::v1::InstrumentationScope;
use opentelemetry_proto::tonic::resource::v1::Resource;
use prost::Message;

use super::config::OtlpConfig;
use super::convert::{self, string_kv, ConvertStats};
use crate::{ExpositionFormat, Registry};

/// The scope every metric is sent under: the library that converts them, as the
/// specification asks of a Prometheus-to-OTLP translation.
pub const SCOPE_NAME: &str = "metric-handles";

/// Encodes a registry as an `ExportMetricsServiceRequest` (protobuf), what the exporter sends
/// to `/v1/metrics`: usable on its own with a transport of your choice, and by tests.
///
/// It writes the registry's Prometheus protobuf exposition into a buffer it keeps and
/// converts each family: counters to monotonic cumulative sums with their start time, gauges
/// and untyped metrics to gauges, info metrics and state sets to non-monotonic sums, classic
/// histograms to explicit-bucket histograms, native ones to exponential histograms of the
/// same scale, summaries to summaries, exemplars with their `trace_id` and `span_id` labels
/// as trace and span ids. The [guide](crate::guide) lists the rules.
///
/// ```
/// use metric_handles::{Counter, Family, MetricHandles, NoLabels, Registry};
/// use metric_handles::otlp::{OtlpConfig, OtlpEncoder};
///
/// #[derive(MetricHandles)]
/// struct Jobs {
///     /// Jobs done
///     #[metric(name = "jobs")]
///     done: Family<NoLabels, Counter>,
/// }
/// let mut registry = Registry::default();
/// let jobs = Jobs::register(&mut registry);
/// jobs.resolve(&NoLabels).done.inc();
/// let mut encoder = OtlpEncoder::new(&OtlpConfig::default().service_name("worker"));
/// let mut body = Vec::new();
/// let stats = encoder.encode_into(&registry, &mut body).unwrap();
/// assert_eq!(stats.data_points, 1);
/// ```
#[derive(Debug)]
pub struct OtlpEncoder {
    resource: Resource,
    scope: InstrumentationScope,
    exposition: Vec<u8>,
}

impl OtlpEncoder {
    /// An encoder for the resource attributes of `config`.
    pub fn new(config: &OtlpConfig) -> Self {
        let mut attributes: Vec<_> = config
            .resource
            .iter()
            .map(|(k, v)| string_kv(k, v))
            .collect();
        // The specification's SDK attributes, unless the user set them.
        for (key, value) in [
            ("telemetry.sdk.name", SCOPE_NAME),
            ("telemetry.sdk.language", "rust"),
            ("telemetry.sdk.version", env!("CARGO_PKG_VERSION")),
        ] {
            if !config.resource.iter().any(|(k, _)| k == key) {
                attributes.push(string_kv(key, value));
            }
        }
        OtlpEncoder {
            resource: Resource {
                attributes,
                dropped_attributes_count: 0,
                entity_refs: Vec::new(),
            },
            scope: InstrumentationScope {
                name: SCOPE_NAME.to_owned(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
                attributes: Vec::new(),
                dropped_attributes_count: 0,
            },
            exposition: Vec::new(),
        }
    }

    /// Appends the request for `registry` as it is now to `out` (protobuf, not compressed),
    /// every point stamped with the time now.
    ///
    /// # Errors
    ///
    /// `fmt::Error` when a metric or collector of the registry fails to encode; `out` is then
    /// left as it was.
    pub fn encode_into(
        &mut self,
        registry: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<ConvertStats, fmt::Error> {
        self.exposition.clear();
        ExpositionFormat::PrometheusProtobuf.encode_into(registry, &mut self.exposition)?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        let mut stats = ConvertStats::default();
        let request = convert::request(
            &self.exposition,
            &self.resource,
            &self.scope,
            now,
            &mut stats,
        )?;
        // Writing into a `Vec` grows it: prost's only error, too little room, cannot occur.
        request.encode(out).map_err(|_| fmt::Error)?;
        Ok(stats)
    }
}
