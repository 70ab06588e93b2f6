//! The derives, end to end: register, resolve, record, encode, and compare with what
//! prometheus-client itself produces for the same metrics.

use metrics_runtime::prometheus_client::registry::Registry;
use metrics_runtime::{
    Buckets, ByLabel, ByPosition, Counter, Dynamic, Family, Gauge, Histogram, LabelAxis, LabelEnum,
    LabelSet, MetricHandles, MetricKind, RegisterOptions,
};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "lowercase")]
pub enum FinishReason {
    Stop,
    Length,
    Abort,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct LoraLabels {
    pub lora_name: String,
}

/// The metrics of `hand_expanded.rs`, derived.
#[derive(MetricHandles)]
#[metric_handles(handles = DemoHandles, labels = EngineLabels)]
pub struct DemoMetrics {
    /// Number of requests in model execution batches
    #[metric(name = "vllm:num_requests_running")]
    pub running: Family<EngineLabels, Gauge>,
    /// Number of generation tokens processed
    #[metric(name = "vllm:generation_tokens")]
    pub generation_tokens: Family<EngineLabels, Counter>,
    /// Histogram of time to first token in seconds
    #[metric(name = "vllm:time_to_first_token_seconds", buckets = [0.01, 0.1, 1.0])]
    pub ttft: Family<EngineLabels, Histogram>,
    /// Count of successfully processed requests
    #[metric(name = "vllm:request_success", label = "finished_reason")]
    pub request_success: Family<EngineLabels, ByLabel<FinishReason, Counter>>,
    /// Accepted tokens per draft position
    #[metric(
        name = "vllm:spec_decode_num_accepted_tokens_per_pos",
        label = "position",
        positions = 2
    )]
    pub accepted_per_pos: Family<EngineLabels, ByPosition<Counter>>,
    /// Requests by LoRA adapter
    #[metric(name = "demo:lora_requests", max_series = 2)]
    pub lora_requests: Family<EngineLabels, Dynamic<LoraLabels, Counter>>,
}

fn engine(n: u32) -> EngineLabels {
    EngineLabels {
        model_name: "m".into(),
        engine: n,
    }
}

#[test]
fn derived_code_encodes_exactly_like_the_hand_expansion() {
    let mut registry = Registry::default();
    let metrics = DemoMetrics::register(&mut registry);
    let labels = engine(0);
    let h: DemoHandles = metrics.resolve(&labels);
    h.running.set(2);
    h.generation_tokens.inc_by(5);
    h.ttft.observe(0.05);
    h.request_success.get(FinishReason::Length).inc();
    h.accepted_per_pos.get(1).inc_by(3);
    h.accepted_per_pos.get(4).inc();
    for lora in ["a", "b", "c"] {
        h.lora_requests
            .get_or_create(&LoraLabels {
                lora_name: lora.into(),
            })
            .inc();
    }
    let text = metrics_runtime::encode_prometheus_text(&registry).unwrap();
    let expected = r#"# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m",engine="0"} 2
# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{model_name="m",engine="0"} 5
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{model_name="m",engine="0",le="0.01"} 0
vllm:time_to_first_token_seconds_bucket{model_name="m",engine="0",le="0.1"} 1
vllm:time_to_first_token_seconds_bucket{model_name="m",engine="0",le="1"} 1
vllm:time_to_first_token_seconds_bucket{model_name="m",engine="0",le="+Inf"} 1
vllm:time_to_first_token_seconds_sum{model_name="m",engine="0"} 0.05
vllm:time_to_first_token_seconds_count{model_name="m",engine="0"} 1
# HELP vllm:request_success_total Count of successfully processed requests.
# TYPE vllm:request_success_total counter
vllm:request_success_total{model_name="m",engine="0",finished_reason="stop"} 0
vllm:request_success_total{model_name="m",engine="0",finished_reason="length"} 1
vllm:request_success_total{model_name="m",engine="0",finished_reason="abort"} 0
# HELP vllm:spec_decode_num_accepted_tokens_per_pos_total Accepted tokens per draft position.
# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter
vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name="m",engine="0",position="0"} 0
vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name="m",engine="0",position="1"} 3
vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name="m",engine="0",position="4"} 1
# HELP demo:lora_requests_total Requests by LoRA adapter.
# TYPE demo:lora_requests_total counter
demo:lora_requests_total{model_name="m",engine="0",lora_name="a"} 1
demo:lora_requests_total{model_name="m",engine="0",lora_name="b"} 1
demo:lora_requests_total{model_name="m",engine="0",otel_metric_overflow="true"} 1
"#;
    assert_eq!(text, expected);

    metrics.remove(&labels);
    let text = metrics_runtime::encode_prometheus_text(&registry).unwrap();
    assert!(!text.contains("model_name=\"m\""), "{text}");
}

#[test]
fn descriptors_describe_every_field() {
    let d = DemoMetrics::DESCRIPTORS;
    let names: Vec<_> = d.iter().map(|d| d.name).collect();
    assert_eq!(
        names,
        [
            "vllm:num_requests_running",
            "vllm:generation_tokens",
            "vllm:time_to_first_token_seconds",
            "vllm:request_success",
            "vllm:spec_decode_num_accepted_tokens_per_pos",
            "demo:lora_requests",
        ]
    );
    assert_eq!(d[0].field, "running");
    assert_eq!(d[0].kind, MetricKind::Gauge);
    assert_eq!(d[0].value_type, "Gauge");
    assert_eq!(d[0].help, "Number of requests in model execution batches");
    assert_eq!(d[0].common_labels, ["model_name", "engine"]);
    assert_eq!(d[0].axis, None);
    assert_eq!(d[0].max_series, metrics_runtime::DEFAULT_MAX_SERIES);
    assert_eq!(d[1].kind, MetricKind::Counter);
    assert_eq!(d[2].kind, MetricKind::Histogram);
    assert_eq!(d[2].buckets, Some(Buckets::Explicit(&[0.01, 0.1, 1.0])));
    assert_eq!(d[3].value_type, "ByLabel<FinishReason, Counter>");
    assert_eq!(
        d[3].axis,
        Some(LabelAxis::Enum {
            key: "finished_reason",
            values: &["stop", "length", "abort"],
        })
    );
    assert_eq!(
        d[4].axis,
        Some(LabelAxis::Position {
            key: "position",
            count: 2,
        })
    );
    assert_eq!(
        d[5].axis,
        Some(LabelAxis::Dynamic {
            keys: &["lora_name"],
        })
    );
    assert_eq!(d[5].max_series, 2);
    assert_eq!(d[5].label_keys(), ["model_name", "engine", "lora_name"]);
    let _ = RegisterOptions::new();
}
