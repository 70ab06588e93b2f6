//! The code `#[derive(MetricHandles)]`, `#[derive(LabelSet)]` and `#[derive(LabelEnum)]`
//! generate, written out by hand: the contract between the macro crate and this runtime.
//! If this file compiles and passes, generated code of the same shape works.

use metric_handles::prometheus_client::registry::Registry;
use metric_handles::{ByLabel, ByPosition, Counter, Dynamic, Family, Gauge, Histogram};

// ---- #[derive(LabelSet)] on `struct EngineLabels { model_name: String, engine: u32 }` ----
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

#[automatically_derived]
impl ::metric_handles::__private::prometheus_client::encoding::EncodeLabelSet for EngineLabels {
    fn encode(
        &self,
        encoder: &mut ::metric_handles::__private::prometheus_client::encoding::LabelSetEncoder,
    ) -> ::metric_handles::__private::std::result::Result<
        (),
        ::metric_handles::__private::std::fmt::Error,
    > {
        ::metric_handles::__private::prometheus_client::encoding::EncodeLabelSet::encode(
            &[("model_name", &self.model_name)],
            encoder,
        )?;
        ::metric_handles::__private::prometheus_client::encoding::EncodeLabelSet::encode(
            &[("engine", self.engine)],
            encoder,
        )?;
        ::metric_handles::__private::std::result::Result::Ok(())
    }
}

#[automatically_derived]
impl ::metric_handles::LabelSet for EngineLabels {
    const KEYS: &'static [&'static str] = &["model_name", "engine"];
}

// ---- #[derive(LabelEnum)] #[label(rename_all = "lowercase")] on FinishReason ----
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FinishReason {
    Stop,
    Length,
    Abort,
}

#[automatically_derived]
impl ::metric_handles::LabelEnum for FinishReason {
    const VARIANTS: &'static [Self] = &[
        FinishReason::Stop,
        FinishReason::Length,
        FinishReason::Abort,
    ];
    const VALUES: &'static [&'static str] = &["stop", "length", "abort"];
    #[inline]
    fn index(self) -> usize {
        match self {
            FinishReason::Stop => 0,
            FinishReason::Length => 1,
            FinishReason::Abort => 2,
        }
    }
}

#[automatically_derived]
impl ::metric_handles::__private::prometheus_client::encoding::EncodeLabelValue for FinishReason {
    fn encode(
        &self,
        encoder: &mut ::metric_handles::__private::prometheus_client::encoding::LabelValueEncoder,
    ) -> ::metric_handles::__private::std::result::Result<
        (),
        ::metric_handles::__private::std::fmt::Error,
    > {
        ::metric_handles::__private::std::fmt::Write::write_str(
            encoder,
            ::metric_handles::LabelEnum::label_value(*self),
        )
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub struct LoraLabels {
    pub lora_name: String,
}
impl ::metric_handles::__private::prometheus_client::encoding::EncodeLabelSet for LoraLabels {
    fn encode(
        &self,
        encoder: &mut ::metric_handles::__private::prometheus_client::encoding::LabelSetEncoder,
    ) -> Result<(), std::fmt::Error> {
        ::metric_handles::__private::prometheus_client::encoding::EncodeLabelSet::encode(
            &[("lora_name", &self.lora_name)],
            encoder,
        )
    }
}
impl ::metric_handles::LabelSet for LoraLabels {
    const KEYS: &'static [&'static str] = &["lora_name"];
}

// ---- #[derive(MetricHandles)] #[metric_handles(handles = DemoHandles, labels = EngineLabels)] ----
pub struct DemoMetrics {
    /// Number of requests in model execution batches
    // #[metric(name = "vllm:num_requests_running")]
    pub running: Family<EngineLabels, Gauge>,
    /// Number of generation tokens processed
    // #[metric(name = "vllm:generation_tokens")]
    pub generation_tokens: Family<EngineLabels, Counter>,
    /// Histogram of time to first token in seconds
    // #[metric(name = "vllm:time_to_first_token_seconds", buckets = [0.01, 0.1, 1.0])]
    pub ttft: Family<EngineLabels, Histogram>,
    /// Count of successfully processed requests
    // #[metric(name = "vllm:request_success", label = "finished_reason")]
    pub request_success: Family<EngineLabels, ByLabel<FinishReason, Counter>>,
    /// Accepted tokens per draft position
    // #[metric(name = "vllm:spec_decode_num_accepted_tokens_per_pos", label = "position", positions = 2)]
    pub accepted_per_pos: Family<EngineLabels, ByPosition<Counter>>,
    /// Requests by LoRA adapter
    // #[metric(name = "demo:lora_requests", max_series = 2)]
    pub lora_requests: Family<EngineLabels, Dynamic<LoraLabels, Counter>>,
}

/// Cached handles of [`DemoMetrics`] for one label set.
#[derive(Clone, Debug)]
pub struct DemoHandles {
    /// Number of requests in model execution batches
    pub running: Gauge,
    /// Number of generation tokens processed
    pub generation_tokens: Counter,
    /// Histogram of time to first token in seconds
    pub ttft: Histogram,
    /// Count of successfully processed requests
    pub request_success: ByLabel<FinishReason, Counter>,
    /// Accepted tokens per draft position
    pub accepted_per_pos: ByPosition<Counter>,
    /// Requests by LoRA adapter
    pub lora_requests: Dynamic<LoraLabels, Counter>,
}

impl DemoMetrics {
    #[doc(hidden)]
    const __METRIC_HANDLES_RUNNING: ::metric_handles::MetricDescriptor =
        ::metric_handles::MetricDescriptor {
            name: "vllm:num_requests_running",
            field: "running",
            kind: <Gauge as ::metric_handles::FamilyMember>::KIND,
            value_type: "Gauge",
            help: "Number of requests in model execution batches",
            unit: ::metric_handles::__private::std::option::Option::None,
            common_labels: <EngineLabels as ::metric_handles::LabelSet>::KEYS,
            axis: ::metric_handles::__private::std::option::Option::None,
            buckets: ::metric_handles::__private::std::option::Option::None,
            max_series: ::metric_handles::DEFAULT_MAX_SERIES,
            max_label_sets: ::metric_handles::DEFAULT_MAX_LABEL_SETS,
            aliases: &[],
        };
    #[doc(hidden)]
    const __METRIC_HANDLES_GENERATION_TOKENS: ::metric_handles::MetricDescriptor =
        ::metric_handles::MetricDescriptor {
            name: "vllm:generation_tokens",
            field: "generation_tokens",
            kind: <Counter as ::metric_handles::FamilyMember>::KIND,
            value_type: "Counter",
            help: "Number of generation tokens processed",
            unit: None,
            common_labels: <EngineLabels as ::metric_handles::LabelSet>::KEYS,
            axis: None,
            buckets: None,
            max_series: ::metric_handles::DEFAULT_MAX_SERIES,
            max_label_sets: ::metric_handles::DEFAULT_MAX_LABEL_SETS,
            aliases: &[],
        };
    #[doc(hidden)]
    const __METRIC_HANDLES_TTFT: ::metric_handles::MetricDescriptor =
        ::metric_handles::MetricDescriptor {
            name: "vllm:time_to_first_token_seconds",
            field: "ttft",
            kind: <Histogram as ::metric_handles::FamilyMember>::KIND,
            value_type: "Histogram",
            help: "Histogram of time to first token in seconds",
            unit: None,
            common_labels: <EngineLabels as ::metric_handles::LabelSet>::KEYS,
            axis: None,
            buckets: Some(::metric_handles::Buckets::Explicit(&[0.01, 0.1, 1.0])),
            max_series: ::metric_handles::DEFAULT_MAX_SERIES,
            max_label_sets: ::metric_handles::DEFAULT_MAX_LABEL_SETS,
            aliases: &[],
        };
    #[doc(hidden)]
    const __METRIC_HANDLES_REQUEST_SUCCESS: ::metric_handles::MetricDescriptor =
        ::metric_handles::MetricDescriptor {
            name: "vllm:request_success",
            field: "request_success",
            kind: <ByLabel<FinishReason, Counter> as ::metric_handles::FamilyMember>::KIND,
            value_type: "ByLabel<FinishReason, Counter>",
            help: "Count of successfully processed requests",
            unit: None,
            common_labels: <EngineLabels as ::metric_handles::LabelSet>::KEYS,
            axis: Some(::metric_handles::LabelAxis::Enum {
                key: "finished_reason",
                values: <FinishReason as ::metric_handles::LabelEnum>::VALUES,
            }),
            buckets: None,
            max_series: ::metric_handles::DEFAULT_MAX_SERIES,
            max_label_sets: ::metric_handles::DEFAULT_MAX_LABEL_SETS,
            aliases: &[],
        };
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_PER_POS: ::metric_handles::MetricDescriptor =
        ::metric_handles::MetricDescriptor {
            name: "vllm:spec_decode_num_accepted_tokens_per_pos",
            field: "accepted_per_pos",
            kind: <ByPosition<Counter> as ::metric_handles::FamilyMember>::KIND,
            value_type: "ByPosition<Counter>",
            help: "Accepted tokens per draft position",
            unit: None,
            common_labels: <EngineLabels as ::metric_handles::LabelSet>::KEYS,
            axis: Some(::metric_handles::LabelAxis::Position {
                key: "position",
                count: 2,
            }),
            buckets: None,
            max_series: ::metric_handles::DEFAULT_MAX_SERIES,
            max_label_sets: ::metric_handles::DEFAULT_MAX_LABEL_SETS,
            aliases: &[],
        };
    #[doc(hidden)]
    const __METRIC_HANDLES_LORA_REQUESTS: ::metric_handles::MetricDescriptor =
        ::metric_handles::MetricDescriptor {
            name: "demo:lora_requests",
            field: "lora_requests",
            kind: <Dynamic<LoraLabels, Counter> as ::metric_handles::FamilyMember>::KIND,
            value_type: "Dynamic<LoraLabels, Counter>",
            help: "Requests by LoRA adapter",
            unit: None,
            common_labels: <EngineLabels as ::metric_handles::LabelSet>::KEYS,
            axis: Some(::metric_handles::LabelAxis::Dynamic {
                keys: <LoraLabels as ::metric_handles::LabelSet>::KEYS,
            }),
            buckets: None,
            max_series: 2,
            max_label_sets: ::metric_handles::DEFAULT_MAX_LABEL_SETS,
            aliases: &[],
        };

    /// Every metric this struct registers.
    pub const DESCRIPTORS: &'static [::metric_handles::MetricDescriptor] = &[
        Self::__METRIC_HANDLES_RUNNING,
        Self::__METRIC_HANDLES_GENERATION_TOKENS,
        Self::__METRIC_HANDLES_TTFT,
        Self::__METRIC_HANDLES_REQUEST_SUCCESS,
        Self::__METRIC_HANDLES_ACCEPTED_PER_POS,
        Self::__METRIC_HANDLES_LORA_REQUESTS,
    ];

    /// Registers every metric in `registry`, as declared.
    pub fn register(registry: &mut ::metric_handles::__private::Registry) -> Self {
        Self::register_with(registry, &::metric_handles::RegisterOptions::new())
    }

    /// Registers every metric in `registry`, with run-time options.
    pub fn register_with(
        registry: &mut ::metric_handles::__private::Registry,
        options: &::metric_handles::RegisterOptions,
    ) -> Self {
        DemoMetrics {
            running: ::metric_handles::__private::register_family(
                registry,
                &Self::__METRIC_HANDLES_RUNNING,
                options,
            ),
            generation_tokens: ::metric_handles::__private::register_family(
                registry,
                &Self::__METRIC_HANDLES_GENERATION_TOKENS,
                options,
            ),
            ttft: ::metric_handles::__private::register_family(
                registry,
                &Self::__METRIC_HANDLES_TTFT,
                options,
            ),
            request_success: ::metric_handles::__private::register_family(
                registry,
                &Self::__METRIC_HANDLES_REQUEST_SUCCESS,
                options,
            ),
            accepted_per_pos: ::metric_handles::__private::register_family(
                registry,
                &Self::__METRIC_HANDLES_ACCEPTED_PER_POS,
                options,
            ),
            lora_requests: ::metric_handles::__private::register_family(
                registry,
                &Self::__METRIC_HANDLES_LORA_REQUESTS,
                options,
            ),
        }
    }

    /// Resolves every metric's series for `labels` once, into cached handles.
    pub fn resolve(&self, labels: &EngineLabels) -> DemoHandles {
        DemoHandles {
            running: self.running.get_or_create(labels),
            generation_tokens: self.generation_tokens.get_or_create(labels),
            ttft: self.ttft.get_or_create(labels),
            request_success: self.request_success.get_or_create(labels),
            accepted_per_pos: self.accepted_per_pos.get_or_create(labels),
            lora_requests: self.lora_requests.get_or_create(labels),
        }
    }

    /// Removes every series of `labels` from the exposition.
    pub fn remove(&self, labels: &EngineLabels) {
        self.running.remove(labels);
        self.generation_tokens.remove(labels);
        self.ttft.remove(labels);
        self.request_success.remove(labels);
        self.accepted_per_pos.remove(labels);
        self.lora_requests.remove(labels);
    }
}

// Compile-time check emitted for every axis: its key must not repeat a common label key.
const _: () = ::metric_handles::__private::assert_axis_key_is_free(
    <EngineLabels as ::metric_handles::LabelSet>::KEYS,
    "finished_reason",
);

// Compile-time check emitted for `buckets = SOME_CONST`:
// const _: () = assert!(::metric_handles::buckets::is_valid_bucket_list(SOME_CONST),
//     "`buckets = SOME_CONST`: bounds must be finite and strictly increasing");

#[test]
fn hand_expanded_code_registers_resolves_records_and_encodes() {
    let mut registry = Registry::default();
    let metrics = DemoMetrics::register(&mut registry);
    let labels = EngineLabels {
        model_name: "m".into(),
        engine: 0,
    };
    let h = metrics.resolve(&labels);
    h.running.set(2);
    h.generation_tokens.inc_by(5);
    h.ttft.observe(0.05);
    h.request_success.get(FinishReason::Length).inc();
    h.accepted_per_pos.get_or_create(1).inc_by(3);
    h.accepted_per_pos.get_or_create(4).inc(); // beyond the pre-resolved 2: looked up, not lost
    for lora in ["a", "b", "c"] {
        h.lora_requests
            .get_or_create(&LoraLabels {
                lora_name: lora.into(),
            })
            .inc();
    }
    let text = metric_handles::ExpositionFormat::PrometheusText
        .encode(&registry)
        .unwrap();
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
    let text = metric_handles::ExpositionFormat::PrometheusText
        .encode(&registry)
        .unwrap();
    assert!(!text.contains("model_name=\"m\""), "{text}");
}
