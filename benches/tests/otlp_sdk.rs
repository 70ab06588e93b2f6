//! The same workload through our OTLP exporter and through the OpenTelemetry SDK with
//! `opentelemetry-otlp`: the decoded requests hold the same data points (names up to the
//! Prometheus suffixes, attributes, values, bucket bounds and counts, exponential scale and
//! buckets). The differences that remain are asserted too, so the list in the guide stays
//! true: see `the_differences_are_the_documented_ones`.

use metric_handles::otlp::{OtlpConfig, OtlpEncoder};
use metric_handles_benches::otlp_sdk::{sdk, NATIVE_SCALE};
use metric_handles_benches::same_shape;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, KeyValue};
use opentelemetry_proto::tonic::metrics::v1::{metric::Data, number_data_point, Metric};
use prost::Message;

const LABEL_SETS: u32 = 4;

fn ours(native: bool) -> ExportMetricsServiceRequest {
    let shape = if native {
        same_shape::ours_native(LABEL_SETS)
    } else {
        same_shape::ours(LABEL_SETS)
    };
    let mut body = Vec::new();
    OtlpEncoder::new(&OtlpConfig::default().service_name("same-shape"))
        .encode_into(&shape.registry, &mut body)
        .expect("encodes");
    ExportMetricsServiceRequest::decode(body.as_slice()).expect("decodes")
}

fn theirs(native: bool) -> ExportMetricsServiceRequest {
    let shape = sdk(LABEL_SETS, native);
    shape.provider.force_flush().expect("exports");
    shape.capture.last_request()
}

fn metrics(request: &ExportMetricsServiceRequest) -> Vec<&Metric> {
    request
        .resource_metrics
        .iter()
        .flat_map(|r| &r.scope_metrics)
        .flat_map(|s| &s.metrics)
        .collect()
}

fn attrs(kvs: &[KeyValue]) -> String {
    let mut pairs: Vec<String> = kvs
        .iter()
        .map(
            |kv| match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
                Some(any_value::Value::StringValue(s)) => format!("{}={s}", kv.key),
                other => format!("{}={other:?}", kv.key),
            },
        )
        .collect();
    pairs.sort();
    pairs.join(",")
}

fn number(v: Option<&number_data_point::Value>) -> f64 {
    match v {
        Some(number_data_point::Value::AsDouble(d)) => *d,
        Some(number_data_point::Value::AsInt(i)) => *i as f64,
        None => f64::NAN,
    }
}

/// Every data point of a request as a line: the metric's name without our Prometheus
/// suffixes, its type, the point's attributes and what it holds. Start and end times, and
/// the exponential buckets' zero threshold, are left out (the differences below).
fn points(request: &ExportMetricsServiceRequest) -> Vec<String> {
    let mut out = Vec::new();
    for m in metrics(request) {
        let name = m.name.trim_end_matches("_total");
        match m.data.as_ref().expect("data") {
            Data::Sum(s) => out.extend(s.data_points.iter().map(|p| {
                format!(
                    "{name} sum monotonic={} temporality={} {} {}",
                    s.is_monotonic,
                    s.aggregation_temporality,
                    attrs(&p.attributes),
                    number(p.value.as_ref())
                )
            })),
            Data::Gauge(g) => out.extend(g.data_points.iter().map(|p| {
                format!("{name} gauge {} {}", attrs(&p.attributes), number(p.value.as_ref()))
            })),
            Data::Histogram(h) => out.extend(h.data_points.iter().map(|p| {
                format!(
                    "{name} histogram temporality={} {} count={} sum={:?} bounds={:?} counts={:?}",
                    h.aggregation_temporality,
                    attrs(&p.attributes),
                    p.count,
                    p.sum,
                    p.explicit_bounds,
                    p.bucket_counts
                )
            })),
            Data::ExponentialHistogram(h) => out.extend(h.data_points.iter().map(|p| {
                let side = |b: &Option<opentelemetry_proto::tonic::metrics::v1::exponential_histogram_data_point::Buckets>| {
                    b.as_ref().map(|b| (b.offset, b.bucket_counts.clone())).filter(|(_, c)| !c.is_empty())
                };
                format!(
                    "{name} exponential temporality={} {} count={} sum={:?} scale={} zero={} positive={:?} negative={:?}",
                    h.aggregation_temporality,
                    attrs(&p.attributes),
                    p.count,
                    p.sum,
                    p.scale,
                    p.zero_count,
                    side(&p.positive),
                    side(&p.negative)
                )
            })),
            Data::Summary(_) => panic!("no summary in the shape"),
        }
    }
    out.sort();
    out
}

#[test]
fn the_same_workload_decodes_to_the_same_data_points() {
    for native in [false, true] {
        let (ours, theirs) = (points(&ours(native)), points(&theirs(native)));
        let expected = (same_shape::COUNTERS + same_shape::GAUGES + same_shape::HISTOGRAMS)
            * LABEL_SETS as usize;
        assert_eq!(ours.len(), expected, "native: {native}");
        for (a, b) in ours.iter().zip(&theirs) {
            assert_eq!(a, b, "native: {native}");
        }
        assert_eq!(ours, theirs, "native: {native}");
        if native {
            assert!(ours
                .iter()
                .any(|p| p.contains(&format!("scale={NATIVE_SCALE}"))));
        }
    }
}

#[test]
fn the_differences_are_the_documented_ones() {
    let (ours, theirs) = (ours(true), theirs(true));
    let find = |r: &'_ ExportMetricsServiceRequest, name: &str| -> Metric {
        metrics(r)
            .into_iter()
            .find(|m| m.name == name)
            .expect(name)
            .clone()
    };
    // 1. Names: ours are the Prometheus names, with `_total` on counters.
    let (a, b) = (
        find(&ours, "shape_counter_0_total"),
        find(&theirs, "shape_counter_0"),
    );
    // 2. Descriptions: Prometheus help text ends with a period.
    assert_eq!(
        (a.description.as_str(), b.description.as_str()),
        (
            "One family of the same shape.",
            "One family of the same shape"
        )
    );
    // 3. Metadata: ours says which Prometheus type each metric was.
    assert_eq!(a.metadata.len(), 1);
    assert!(b.metadata.is_empty());
    // 4. Values: ours are doubles (the Prometheus data model's), the SDK's u64 counter integers.
    let (Some(Data::Sum(sa)), Some(Data::Sum(sb))) = (&a.data, &b.data) else {
        panic!("sums")
    };
    assert!(matches!(
        sa.data_points[0].value,
        Some(number_data_point::Value::AsDouble(_))
    ));
    assert!(matches!(
        sb.data_points[0].value,
        Some(number_data_point::Value::AsInt(_))
    ));
    // 5. Start times: ours each series' creation, the SDK's the provider's start; both set.
    assert!(sa.data_points.iter().all(|p| p.start_time_unix_nano > 0));
    assert!(sb.data_points.iter().all(|p| p.start_time_unix_nano > 0));
    // 6. Exponential zero bucket: ours has the native histogram's zero threshold, the SDK 0.
    let (Some(Data::ExponentialHistogram(ea)), Some(Data::ExponentialHistogram(eb))) = (
        &find(&ours, "shape_histogram_0").data,
        &find(&theirs, "shape_histogram_0").data,
    ) else {
        panic!("exponential histograms")
    };
    assert!(ea.data_points[0].zero_threshold > 0.0);
    assert_eq!(eb.data_points[0].zero_threshold, 0.0);
    // 7. Scope: ours names this library, the SDK's the meter.
    let scope = |r: &ExportMetricsServiceRequest| {
        r.resource_metrics[0].scope_metrics[0]
            .scope
            .clone()
            .expect("scope")
            .name
    };
    assert_eq!(
        (scope(&ours), scope(&theirs)),
        ("metric-handles".to_owned(), "same-shape".to_owned())
    );
}
