//! The registry's Prometheus protobuf exposition (`io.prometheus.client.MetricFamily`
//! messages), converted to OTLP metrics as the OpenTelemetry specification's "Prometheus and
//! OpenMetrics compatibility" page maps each type.
//!
//! Going through the exposition rather than through each metric kind means one conversion
//! covers everything a scrape sees: this crate's families, run-time families, collectors and
//! foreign prometheus-client metrics, with their start timestamps, native buckets and
//! exemplars.

use std::fmt;

use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::metrics::v1::{
    exemplar, exponential_histogram_data_point::Buckets, metric, number_data_point,
    summary_data_point::ValueAtQuantile, AggregationTemporality, Exemplar as OtlpExemplar,
    ExponentialHistogram, ExponentialHistogramDataPoint, Gauge as OtlpGauge,
    Histogram as OtlpHistogram, HistogramDataPoint, Metric as OtlpMetric, NumberDataPoint,
    ResourceMetrics, ScopeMetrics, Sum, Summary as OtlpSummary, SummaryDataPoint,
};
use opentelemetry_proto::tonic::resource::v1::Resource;
use prometheus_client::encoding::prometheus_protobuf::prometheus_data_model as prom;
use prost::Message;
use prost_types::Timestamp;

/// The most dense buckets one side (positive or negative) of an exponential histogram data
/// point holds. Prometheus's sparse spans can leave wide gaps between the buckets in use; OTLP
/// buckets are dense, so a point whose buckets would span more is sent at a lower scale, each
/// step merging pairs of buckets (the counts stay exact, the resolution halves). This crate's
/// native histograms never get there: at the finest schema (8) 16384 buckets cover values
/// over a factor of 2^64.
pub const MAX_DENSE_BUCKETS: usize = 16_384;

/// What a conversion counted, for the exporter's own metrics and for tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConvertStats {
    /// Data points written (one per series; a state set's state is a data point).
    pub data_points: u64,
    /// Exponential histogram points sent at a lower scale than their schema (see
    /// [`MAX_DENSE_BUCKETS`]).
    pub downscaled: u64,
}

/// The OTLP type a Prometheus family becomes, with the name of its `prometheus.type`
/// metadata.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Counter,
    Gauge,
    Info,
    StateSet,
    Unknown,
    Histogram,
    Summary,
}

impl Kind {
    const fn prometheus_type(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Info => "info",
            Kind::StateSet => "stateset",
            Kind::Unknown => "unknown",
            Kind::Histogram => "histogram",
            Kind::Summary => "summary",
        }
    }
}

/// Builds the request for one export: `resource`, one scope, and the families of `exposition`
/// (varint-length-delimited `MetricFamily` messages), every point stamped `now_nanos`
/// (nanoseconds since the epoch) unless the exposition carries a timestamp of its own.
pub(crate) fn request(
    exposition: &[u8],
    resource: &Resource,
    scope: &InstrumentationScope,
    now_nanos: u64,
    stats: &mut ConvertStats,
) -> Result<ExportMetricsServiceRequest, fmt::Error> {
    let mut metrics = Vec::new();
    let mut bytes = exposition;
    while !bytes.is_empty() {
        // The exposition is this crate's own output: a decode error is a bug, not input.
        let family =
            prom::MetricFamily::decode_length_delimited(&mut bytes).map_err(|_| fmt::Error)?;
        convert_family(&family, now_nanos, stats, &mut metrics);
    }
    Ok(ExportMetricsServiceRequest {
        resource_metrics: vec![ResourceMetrics {
            resource: Some(resource.clone()),
            scope_metrics: vec![ScopeMetrics {
                scope: Some(scope.clone()),
                metrics,
                schema_url: String::new(),
            }],
            schema_url: String::new(),
        }],
    })
}

/// Appends the OTLP metrics of one family to `out`: one, or two for a histogram family whose
/// series mix native and classic buckets.
fn convert_family(
    family: &prom::MetricFamily,
    now: u64,
    stats: &mut ConvertStats,
    out: &mut Vec<OtlpMetric>,
) {
    let kind = kind_of(family);
    let metric = |data| OtlpMetric {
        name: family.name.clone(),
        description: family.help.clone(),
        unit: otel_unit(&family.unit),
        metadata: vec![string_kv("prometheus.type", kind.prometheus_type())],
        data: Some(data),
    };
    match kind {
        Kind::Counter | Kind::Info | Kind::StateSet => {
            let data_points: Vec<_> = family.metric.iter().map(|m| number_point(m, now)).collect();
            stats.data_points += data_points.len() as u64;
            out.push(metric(metric::Data::Sum(Sum {
                data_points,
                aggregation_temporality: AggregationTemporality::Cumulative as i32,
                is_monotonic: kind == Kind::Counter,
            })));
        }
        Kind::Gauge | Kind::Unknown => {
            let data_points: Vec<_> = family.metric.iter().map(|m| number_point(m, now)).collect();
            stats.data_points += data_points.len() as u64;
            out.push(metric(metric::Data::Gauge(OtlpGauge { data_points })));
        }
        Kind::Summary => {
            let data_points: Vec<_> = family
                .metric
                .iter()
                .map(|m| summary_point(m, now))
                .collect();
            stats.data_points += data_points.len() as u64;
            out.push(metric(metric::Data::Summary(OtlpSummary { data_points })));
        }
        Kind::Histogram => {
            let mut classic = Vec::new();
            let mut native = Vec::new();
            for m in &family.metric {
                let h = m.histogram.clone().unwrap_or_default();
                if is_native(&h) {
                    native.push(exponential_point(m, &h, now, stats));
                } else {
                    classic.push(histogram_point(m, &h, now));
                }
            }
            stats.data_points += (classic.len() + native.len()) as u64;
            if !classic.is_empty() || native.is_empty() {
                out.push(metric(metric::Data::Histogram(OtlpHistogram {
                    data_points: classic,
                    aggregation_temporality: AggregationTemporality::Cumulative as i32,
                })));
            }
            if !native.is_empty() {
                out.push(metric(metric::Data::ExponentialHistogram(
                    ExponentialHistogram {
                        data_points: native,
                        aggregation_temporality: AggregationTemporality::Cumulative as i32,
                    },
                )));
            }
        }
    }
}

/// The family's OTLP kind. The Prometheus protobuf format has no info or state set type (it
/// writes both as gauges), so they are recognised as OpenMetrics names them: an info metric's
/// family name ends in `_info`, a state set's series carry a label named as the family, with
/// values 0 or 1.
fn kind_of(family: &prom::MetricFamily) -> Kind {
    match prom::MetricType::try_from(family.r#type) {
        Ok(prom::MetricType::Counter) => Kind::Counter,
        Ok(prom::MetricType::Gauge) if is_info(family) => Kind::Info,
        Ok(prom::MetricType::Gauge) if is_state_set(family) => Kind::StateSet,
        Ok(prom::MetricType::Gauge) => Kind::Gauge,
        Ok(prom::MetricType::Summary) => Kind::Summary,
        Ok(prom::MetricType::Histogram | prom::MetricType::GaugeHistogram) => Kind::Histogram,
        Ok(prom::MetricType::Untyped) | Err(_) => Kind::Unknown,
    }
}

fn is_info(family: &prom::MetricFamily) -> bool {
    family.name.ends_with("_info")
        && family
            .metric
            .iter()
            .all(|m| m.gauge.as_ref().is_some_and(|g| g.value == 1.0))
}

fn is_state_set(family: &prom::MetricFamily) -> bool {
    !family.metric.is_empty()
        && family.metric.iter().all(|m| {
            m.label.iter().any(|l| l.name == family.name)
                && m.gauge
                    .as_ref()
                    .is_some_and(|g| g.value == 0.0 || g.value == 1.0)
        })
}

/// Whether a histogram carries native buckets: Prometheus's own test (spans, a zero bucket or
/// its threshold). An empty native histogram has a zero threshold or a span of length 0.
fn is_native(h: &prom::Histogram) -> bool {
    !h.positive_span.is_empty()
        || !h.negative_span.is_empty()
        || h.zero_threshold > 0.0
        || h.zero_count > 0
        || h.zero_count_float > 0.0
}

fn number_point(m: &prom::Metric, now: u64) -> NumberDataPoint {
    let (value, start, exemplars) = if let Some(c) = &m.counter {
        (
            c.value,
            c.start_timestamp.as_ref().map_or(0, nanos),
            c.exemplar.iter().map(exemplar).collect(),
        )
    } else if let Some(g) = &m.gauge {
        (g.value, 0, Vec::new())
    } else if let Some(u) = &m.untyped {
        (u.value, 0, Vec::new())
    } else {
        (0.0, 0, Vec::new())
    };
    NumberDataPoint {
        attributes: attributes(&m.label),
        start_time_unix_nano: start,
        time_unix_nano: point_time(m, now),
        exemplars,
        flags: 0,
        value: Some(number_data_point::Value::AsDouble(value)),
    }
}

fn summary_point(m: &prom::Metric, now: u64) -> SummaryDataPoint {
    let s = m.summary.clone().unwrap_or_default();
    SummaryDataPoint {
        attributes: attributes(&m.label),
        start_time_unix_nano: s.start_timestamp.as_ref().map_or(0, nanos),
        time_unix_nano: point_time(m, now),
        count: s.sample_count,
        sum: s.sample_sum,
        quantile_values: s
            .quantile
            .iter()
            .map(|q| ValueAtQuantile {
                quantile: q.quantile,
                value: q.value,
            })
            .collect(),
        flags: 0,
    }
}

/// A classic histogram: Prometheus's cumulative buckets become OTLP's per-bucket counts, the
/// `+Inf` bound is dropped (OTLP's last bucket is unbounded) and the last count is what the
/// total has beyond the last finite bound.
fn histogram_point(m: &prom::Metric, h: &prom::Histogram, now: u64) -> HistogramDataPoint {
    let count = count_of(h.sample_count, h.sample_count_float);
    let mut explicit_bounds = Vec::with_capacity(h.bucket.len());
    let mut bucket_counts = Vec::with_capacity(h.bucket.len() + 1);
    let mut below = 0u64;
    let mut exemplars = Vec::new();
    for bucket in &h.bucket {
        exemplars.extend(bucket.exemplar.iter().map(exemplar));
        if bucket.upper_bound == f64::INFINITY {
            continue;
        }
        let cumulative = count_of(bucket.cumulative_count, bucket.cumulative_count_float);
        explicit_bounds.push(bucket.upper_bound);
        // A foreign histogram whose buckets are not cumulative counts nothing negative.
        bucket_counts.push(cumulative.saturating_sub(below));
        below = below.max(cumulative);
    }
    bucket_counts.push(count.saturating_sub(below));
    HistogramDataPoint {
        attributes: attributes(&m.label),
        start_time_unix_nano: h.start_timestamp.as_ref().map_or(0, nanos),
        time_unix_nano: point_time(m, now),
        count,
        sum: Some(h.sample_sum),
        bucket_counts,
        explicit_bounds,
        exemplars,
        flags: 0,
        min: None,
        max: None,
    }
}

/// A native histogram: the schema is OTLP's scale, the zero bucket its zero count and
/// threshold, and the spans with their deltas become dense buckets. Prometheus's bucket `i`
/// holds `(base^(i-1), base^i]` and OTLP's holds `(base^i, base^(i+1)]`, so OTLP's index is
/// one less.
fn exponential_point(
    m: &prom::Metric,
    h: &prom::Histogram,
    now: u64,
    stats: &mut ConvertStats,
) -> ExponentialHistogramDataPoint {
    let mut positive = sparse(&h.positive_span, &h.positive_delta, &h.positive_count);
    let mut negative = sparse(&h.negative_span, &h.negative_delta, &h.negative_count);
    let mut scale = h.schema;
    // Each step halves the index range; from schema 8 down to -10 any `i32` range fits.
    while !(fits(&positive) && fits(&negative)) && scale > -10 {
        stats.downscaled += 1;
        scale -= 1;
        halve(&mut positive);
        halve(&mut negative);
    }
    ExponentialHistogramDataPoint {
        attributes: attributes(&m.label),
        start_time_unix_nano: h.start_timestamp.as_ref().map_or(0, nanos),
        time_unix_nano: point_time(m, now),
        count: count_of(h.sample_count, h.sample_count_float),
        sum: Some(h.sample_sum),
        scale,
        zero_count: count_of(h.zero_count, h.zero_count_float),
        positive: dense(&positive),
        negative: dense(&negative),
        flags: 0,
        exemplars: h.exemplars.iter().map(exemplar).collect(),
        min: None,
        max: None,
        zero_threshold: h.zero_threshold,
    }
}

/// The buckets in use of one side: `(OTLP index, count)` in increasing index order.
/// Prometheus gives each span's offset from the end of the previous one (the first from 0)
/// and the counts either as deltas from the previous bucket (integer histograms) or as
/// absolute counts (float histograms).
fn sparse(spans: &[prom::BucketSpan], deltas: &[i64], counts: &[f64]) -> Vec<(i64, u64)> {
    let mut out = Vec::new();
    let mut index = 0i64;
    let mut position = 0usize;
    let mut count = 0i64;
    for span in spans {
        index += i64::from(span.offset);
        for _ in 0..span.length {
            let value = if let Some(&delta) = deltas.get(position) {
                count = count.saturating_add(delta);
                u64::try_from(count).unwrap_or(0)
            } else if let Some(&absolute) = counts.get(position) {
                float_count(absolute)
            } else {
                // Spans longer than the counts they come with: the rest is not there.
                return out;
            };
            out.push((index - 1, value));
            index += 1;
            position += 1;
        }
    }
    out
}

fn fits(buckets: &[(i64, u64)]) -> bool {
    match (buckets.first(), buckets.last()) {
        (Some(first), Some(last)) => last.0 - first.0 < MAX_DENSE_BUCKETS as i64,
        _ => true,
    }
}

/// One scale down: bucket `i` becomes `i >> 1` (floor division, negative indices included),
/// so pairs of buckets merge.
fn halve(buckets: &mut [(i64, u64)]) {
    for bucket in buckets {
        bucket.0 >>= 1;
    }
}

/// The dense OTLP buckets of one side: from the lowest index in use to the highest, zeros in
/// the gaps, counts of equal indices (after a downscale) added.
fn dense(buckets: &[(i64, u64)]) -> Option<Buckets> {
    let (first, last) = match (buckets.first(), buckets.last()) {
        (Some(first), Some(last)) => (first.0, last.0),
        _ => return None,
    };
    let mut bucket_counts = vec![0u64; usize::try_from(last - first + 1).unwrap_or(0)];
    for &(index, count) in buckets {
        if let Some(slot) = usize::try_from(index - first)
            .ok()
            .and_then(|i| bucket_counts.get_mut(i))
        {
            *slot = slot.saturating_add(count);
        }
    }
    Some(Buckets {
        offset: i32::try_from(first).unwrap_or(i32::MIN),
        bucket_counts,
    })
}

/// A count given as an integer, or as a float when the float is set (Prometheus's float
/// histograms): OTLP counts are integers, so a float count is rounded (negative or NaN: 0).
fn count_of(integer: u64, float: f64) -> u64 {
    if float > 0.0 {
        float_count(float)
    } else {
        integer
    }
}

fn float_count(value: f64) -> u64 {
    if value.is_nan() || value <= 0.0 {
        0
    } else {
        // `as` saturates at `u64::MAX`.
        value.round() as u64
    }
}

/// An exemplar: its `trace_id` and `span_id` labels (hexadecimal) become OTLP's trace and span
/// ids, every other label (and an id that is not 32 or 16 hex digits) an attribute.
fn exemplar(e: &prom::Exemplar) -> OtlpExemplar {
    let mut trace_id = Vec::new();
    let mut span_id = Vec::new();
    let mut filtered_attributes = Vec::new();
    for label in &e.label {
        match label.name.as_str() {
            "trace_id" if trace_id.is_empty() => match hex_id::<16>(&label.value) {
                Some(id) => trace_id = id,
                None => filtered_attributes.push(string_kv(&label.name, &label.value)),
            },
            "span_id" if span_id.is_empty() => match hex_id::<8>(&label.value) {
                Some(id) => span_id = id,
                None => filtered_attributes.push(string_kv(&label.name, &label.value)),
            },
            _ => filtered_attributes.push(string_kv(&label.name, &label.value)),
        }
    }
    OtlpExemplar {
        filtered_attributes,
        time_unix_nano: e.timestamp.as_ref().map_or(0, nanos),
        span_id,
        trace_id,
        value: Some(exemplar::Value::AsDouble(e.value)),
    }
}

/// `N` bytes from `2 * N` hexadecimal digits; `None` for anything else, or an all-zero id
/// (invalid in W3C trace context).
fn hex_id<const N: usize>(text: &str) -> Option<Vec<u8>> {
    let digits = text.as_bytes();
    if digits.len() != 2 * N {
        return None;
    }
    let nibble = |c: u8| (c as char).to_digit(16);
    let bytes: Option<Vec<u8>> = digits
        .chunks_exact(2)
        .map(|pair| Some((nibble(pair[0])? * 16 + nibble(pair[1])?) as u8))
        .collect();
    bytes.filter(|b| b.iter().any(|&x| x != 0))
}

fn attributes(labels: &[prom::LabelPair]) -> Vec<KeyValue> {
    labels
        .iter()
        .map(|l| string_kv(&l.name, &l.value))
        .collect()
}

pub(crate) fn string_kv(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.to_owned())),
        }),
        key_strindex: 0,
    }
}

/// The point's time: the exposition's own timestamp when a metric carries one, else the
/// export's.
fn point_time(m: &prom::Metric, now: u64) -> u64 {
    if m.timestamp_ms > 0 {
        (m.timestamp_ms as u64).saturating_mul(1_000_000)
    } else {
        now
    }
}

/// A protobuf timestamp in nanoseconds since the epoch; 0 (OTLP's "unknown") before it.
fn nanos(t: &Timestamp) -> u64 {
    let seconds = u64::try_from(t.seconds).unwrap_or(0);
    let nanos = u64::try_from(t.nanos).unwrap_or(0);
    seconds.saturating_mul(1_000_000_000).saturating_add(nanos)
}

/// Prometheus's unit words as the OpenTelemetry specification converts them: full words to
/// UCUM abbreviations, `ratio` to `1`, `a_per_b` to `a/b`; a unit not in the table is kept.
pub(crate) fn otel_unit(unit: &str) -> String {
    if let Some((numerator, denominator)) = unit.split_once("_per_") {
        return format!("{}/{}", unit_word(numerator), unit_word(denominator));
    }
    unit_word(unit).to_owned()
}

fn unit_word(word: &str) -> &str {
    match word {
        "days" => "d",
        "hours" => "h",
        "minutes" => "min",
        "seconds" => "s",
        "milliseconds" => "ms",
        "microseconds" => "us",
        "nanoseconds" => "ns",
        "bytes" => "By",
        "kibibytes" => "KiBy",
        "mebibytes" => "MiBy",
        "gibibytes" => "GiBy",
        "tibibytes" => "TiBy",
        "kilobytes" => "kBy",
        "megabytes" => "MBy",
        "gigabytes" => "GBy",
        "terabytes" => "TBy",
        "meters" => "m",
        "volts" => "V",
        "amperes" => "A",
        "joules" => "J",
        "watts" => "W",
        "grams" => "g",
        "celsius" => "Cel",
        "hertz" => "Hz",
        "percent" => "%",
        "ratio" => "1",
        "second" => "s",
        "minute" => "min",
        "hour" => "h",
        "day" => "d",
        "week" => "w",
        "month" => "mo",
        "year" => "y",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(offset: i32, length: u32) -> prom::BucketSpan {
        prom::BucketSpan { offset, length }
    }

    #[test]
    fn spans_and_deltas_become_dense_buckets_one_index_lower() {
        // Prometheus buckets 1, 2 (counts 3, 1), a gap of 2, then 5 (count 4).
        let buckets = sparse(&[span(1, 2), span(2, 1)], &[3, -2, 3], &[]);
        assert_eq!(buckets, [(0, 3), (1, 1), (4, 4)]);
        let filled = dense(&buckets).expect("buckets");
        assert_eq!(
            (filled.offset, filled.bucket_counts),
            (0, vec![3, 1, 0, 0, 4])
        );
        // Float histograms give absolute counts.
        assert_eq!(sparse_of_floats(), [(-3, 2), (-2, 0)]);
        assert!(dense(&[]).is_none());
    }

    fn sparse_of_floats() -> Vec<(i64, u64)> {
        sparse(&[span(-2, 2)], &[], &[2.4, f64::NAN])
    }

    #[test]
    fn spans_longer_than_their_counts_stop_where_the_counts_do() {
        assert_eq!(sparse(&[span(0, 5)], &[1, 1], &[]), [(-1, 1), (0, 2)]);
    }

    #[test]
    fn buckets_too_far_apart_are_merged_pairwise_until_they_fit() {
        let h = prom::Histogram {
            schema: 8,
            sample_count: 3,
            positive_span: vec![span(-100_000, 1), span(300_000, 2)],
            positive_delta: vec![1, 0, 0],
            ..Default::default()
        };
        let mut stats = ConvertStats::default();
        let point = exponential_point(&prom::Metric::default(), &h, 1, &mut stats);
        let positive = point.positive.expect("buckets");
        assert!(positive.bucket_counts.len() <= MAX_DENSE_BUCKETS);
        assert_eq!(
            positive.bucket_counts.iter().sum::<u64>(),
            3,
            "no count lost"
        );
        assert_eq!(
            i64::from(8 - point.scale),
            i64::try_from(stats.downscaled).unwrap()
        );
        assert!(point.scale < 8);
        // The lowest bucket moved as `i >> steps` does.
        let steps = 8 - point.scale;
        assert_eq!(i64::from(positive.offset), (-100_001i64) >> steps);
    }

    #[test]
    fn classic_buckets_are_de_cumulated_with_or_without_the_inf_bucket() {
        let bucket = |le: f64, cumulative: u64| prom::Bucket {
            upper_bound: le,
            cumulative_count: cumulative,
            ..Default::default()
        };
        let mut h = prom::Histogram {
            sample_count: 10,
            sample_sum: 4.5,
            bucket: vec![bucket(0.1, 2), bucket(1.0, 7), bucket(f64::INFINITY, 10)],
            ..Default::default()
        };
        let point = histogram_point(&prom::Metric::default(), &h, 1);
        assert_eq!(point.explicit_bounds, [0.1, 1.0]);
        assert_eq!(point.bucket_counts, [2, 5, 3]);
        h.bucket.pop();
        let point = histogram_point(&prom::Metric::default(), &h, 1);
        assert_eq!(point.bucket_counts, [2, 5, 3]);
        // A foreign histogram whose buckets go down counts nothing negative.
        h.bucket = vec![bucket(0.1, 5), bucket(1.0, 3)];
        let point = histogram_point(&prom::Metric::default(), &h, 1);
        assert_eq!(point.bucket_counts, [5, 0, 5]);
    }

    #[test]
    fn exemplar_ids_are_read_as_hex_and_anything_else_stays_an_attribute() {
        let label = |name: &str, value: &str| prom::LabelPair {
            name: name.to_owned(),
            value: value.to_owned(),
        };
        let e = exemplar(&prom::Exemplar {
            label: vec![
                label("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"),
                label("span_id", "xyz"),
                label("user", "7"),
            ],
            value: 0.5,
            timestamp: None,
        });
        assert_eq!(e.trace_id.len(), 16);
        assert_eq!(e.trace_id[0], 0x4b);
        assert!(e.span_id.is_empty());
        let keys: Vec<_> = e
            .filtered_attributes
            .iter()
            .map(|kv| kv.key.as_str())
            .collect();
        assert_eq!(keys, ["span_id", "user"]);
        assert_eq!(
            hex_id::<8>("0000000000000000"),
            None,
            "an all-zero id is invalid"
        );
        assert_eq!(hex_id::<8>("00f067aa0ba902b7").map(|b| b.len()), Some(8));
        assert_eq!(hex_id::<8>("00f067aa0ba902bé"), None);
    }

    #[test]
    fn units_follow_the_specifications_words_to_abbreviations() {
        assert_eq!(otel_unit("seconds"), "s");
        assert_eq!(otel_unit("bytes"), "By");
        assert_eq!(otel_unit("ratio"), "1");
        assert_eq!(otel_unit("bytes_per_second"), "By/s");
        assert_eq!(otel_unit("tokens"), "tokens");
        assert_eq!(otel_unit(""), "");
    }

    #[test]
    fn an_info_needs_every_value_at_one_and_a_state_set_its_own_label() {
        let gauge = |labels: &[(&str, &str)], value: f64| prom::Metric {
            label: labels
                .iter()
                .map(|(n, v)| prom::LabelPair {
                    name: (*n).to_owned(),
                    value: (*v).to_owned(),
                })
                .collect(),
            gauge: Some(prom::Gauge { value }),
            ..Default::default()
        };
        let family = |name: &str, metric| prom::MetricFamily {
            name: name.to_owned(),
            r#type: prom::MetricType::Gauge as i32,
            metric,
            ..Default::default()
        };
        assert_eq!(
            kind_of(&family("b_info", vec![gauge(&[], 1.0)])),
            Kind::Info
        );
        assert_eq!(
            kind_of(&family("b_info", vec![gauge(&[], 2.0)])),
            Kind::Gauge
        );
        let states = vec![gauge(&[("phase", "a")], 1.0), gauge(&[("phase", "b")], 0.0)];
        assert_eq!(kind_of(&family("phase", states.clone())), Kind::StateSet);
        assert_eq!(kind_of(&family("other", states)), Kind::Gauge);
        assert_eq!(kind_of(&family("empty", Vec::new())), Kind::Gauge);
    }
}
