//! `VllmMetricsConfig::native_latency_histograms`: native buckets beside the classic ones on
//! the request-latency histograms (and on no other family), seen as a scraper asking for
//! protobuf sees them; the text formats keep their classic series unchanged.

use metric_handles::histogram::NativeConfig;
use metric_handles::prometheus_client::encoding::prometheus_protobuf::prometheus_data_model::MetricFamily;
use metric_handles::vllm::request::{
    EventType::{Queued, Scheduled},
    FinishReason, RequestParams,
};
use metric_handles::vllm::VllmMetricsConfig;
use metric_handles::ExpositionFormat;
use prost::Message;

use crate::support::vllm::*;

/// The request metrics' histograms of seconds, as vLLM's `loggers.py` names them.
const REQUEST_LATENCY: [&str; 8] = [
    "vllm:time_to_first_token_seconds",
    "vllm:inter_token_latency_seconds",
    "vllm:request_time_per_output_token_seconds",
    "vllm:e2e_request_latency_seconds",
    "vllm:request_queue_time_seconds",
    "vllm:request_prefill_time_seconds",
    "vllm:request_decode_time_seconds",
    "vllm:request_inference_time_seconds",
];

/// One request of three tokens through engine 0; the registry's protobuf exposition, decoded.
fn families_after_one_request(config: VllmMetricsConfig) -> (Vec<MetricFamily>, String) {
    let (registry, metrics) = setup(config);
    let mut tracker = metrics.requests().track(
        0,
        RequestParams {
            arrival_time: 100.0,
            prompt_len: 6,
            max_tokens_param: Some(3),
            n_param: 1,
        },
    );
    let first = with_prefill(
        with_events(tokens(1), &[(Queued, 1.0), (Scheduled, 1.5)]),
        6,
        0,
    );
    tracker.observe_output(2.0, 100.5, &first);
    tracker.observe_output(2.25, 100.75, &tokens(1));
    tracker.observe_output(2.75, 101.0, &finishing(tokens(1), FinishReason::Length));
    drop(tracker);
    let mut bytes = Vec::new();
    ExpositionFormat::PrometheusProtobuf
        .encode_into(&registry, &mut bytes)
        .expect("protobuf encodes");
    let mut families = Vec::new();
    let mut rest = &bytes[..];
    while !rest.is_empty() {
        families
            .push(MetricFamily::decode_length_delimited(&mut rest).expect("a delimited message"));
    }
    let text = ExpositionFormat::OpenMetrics
        .encode(&registry)
        .expect("OpenMetrics encodes");
    (families, text)
}

/// The names of the histogram families with native buckets: a span, a zero bucket or its
/// threshold (a classic histogram has none of them).
fn native_families(families: &[MetricFamily]) -> Vec<String> {
    let mut names: Vec<String> = families
        .iter()
        .filter(|family| {
            family.metric.iter().any(|metric| {
                metric.histogram.as_ref().is_some_and(|h| {
                    !h.positive_span.is_empty()
                        || !h.negative_span.is_empty()
                        || h.zero_count > 0
                        || h.zero_threshold > 0.0
                })
            })
        })
        .map(|family| family.name.clone())
        .collect();
    names.sort();
    names
}

#[test]
fn native_buckets_are_on_the_request_latency_histograms_only_when_configured() {
    let native = NativeConfig::from_factor(1.1);
    let (families, text_with) = families_after_one_request(VllmMetricsConfig {
        native_latency_histograms: Some(native),
        ..VllmMetricsConfig::default()
    });
    let mut expected: Vec<String> = REQUEST_LATENCY.iter().map(|s| (*s).to_owned()).collect();
    expected.sort();
    assert_eq!(native_families(&families), expected);
    let ttft = families
        .iter()
        .find(|f| f.name == "vllm:time_to_first_token_seconds")
        .and_then(|f| f.metric.first())
        .and_then(|m| m.histogram.as_ref())
        .expect("a TTFT histogram");
    assert_eq!(ttft.schema, i32::from(native.schema()));
    // The classic buckets stay beside the native ones: one observation of 1.0 s.
    assert_eq!(ttft.sample_count, 1);
    assert!(ttft.bucket.len() > 1, "{ttft:?}");

    let (families, text_without) = families_after_one_request(VllmMetricsConfig::default());
    assert_eq!(native_families(&families), Vec::<String>::new());
    // A text scraper sees the same classic series either way.
    assert_eq!(text_with, text_without);
}
