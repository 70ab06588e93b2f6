//! The derives, end to end: register, resolve, record, encode, and compare with what
//! prometheus-client itself produces for the same metrics.

use metric_handles::descriptor::{LabelAxis, MetricKind};
use metric_handles::prometheus_client::metrics::counter::Counter as PcCounter;
use metric_handles::prometheus_client::metrics::family::Family as PcFamily;
use metric_handles::prometheus_client::metrics::gauge::Gauge as PcGauge;
use metric_handles::prometheus_client::metrics::histogram::Histogram as PcHistogram;
use metric_handles::prometheus_client::registry::Unit;
use metric_handles::Registry;
use metric_handles::{
    Buckets, ByLabel, ByPosition, Counter, Dynamic, ExpositionFormat, Family, Gauge, Histogram,
    LabelEnum, LabelSet, MetricHandles, RegisterOptions,
};

mod support;

use support::prometheus_text;

/// The common labels of these tests' families: a served model and an engine index.
#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

/// An enum axis: how a request finished.
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

/// A struct with every leaf kind and every single-axis kind.
#[derive(Debug, MetricHandles)]
#[metric_handles(handles = DemoHandles, labels = EngineLabels)]
pub struct DemoMetrics {
    /// Number of requests in model execution batches
    #[metric(name = "vllm:num_requests_running")]
    pub running: Family<EngineLabels, Gauge>,
    /// Number of generation tokens processed
    ///
    /// # Computed
    ///
    /// Increased by the tokens of each
    /// output.
    ///
    /// # Notes
    ///
    /// In neither the help nor the computed text.
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
    h.accepted_per_pos.get_or_create(1).inc_by(3);
    h.accepted_per_pos.get_or_create(4).inc();
    for lora in ["a", "b", "c"] {
        h.lora_requests
            .get_or_create(&LoraLabels {
                lora_name: lora.into(),
            })
            .inc();
    }
    let text = prometheus_text(&registry);
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
    let text = prometheus_text(&registry);
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
    assert_eq!(d[0].max_series, metric_handles::limits::DEFAULT_MAX_SERIES);
    assert_eq!(d[0].computed, None);
    assert_eq!(d[1].kind, MetricKind::Counter);
    // The doc comment's first section is the help text; a `# Computed` section is kept apart.
    assert_eq!(d[1].help, "Number of generation tokens processed");
    assert_eq!(
        d[1].computed,
        Some("Increased by the tokens of each output.")
    );
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
}

/// Metrics declared with the derive, for the comparison with prometheus-client below.
#[derive(Debug, MetricHandles)]
#[metric_handles(labels = EngineLabels)]
pub struct Compared {
    /// Requests waiting
    #[metric(name = "cmp:waiting")]
    pub waiting: Family<EngineLabels, Gauge>,
    /// Tokens generated
    #[metric(name = "cmp:tokens")]
    pub tokens: Family<EngineLabels, Counter>,
    /// Latency of one step
    #[metric(name = "cmp:step", unit = "seconds", buckets = [0.005, 0.05, 0.5, 5.0])]
    pub step: Family<EngineLabels, Histogram>,
    /// Tokens per request
    #[metric(name = "cmp:request_tokens", buckets = exponential(start = 1.0, factor = 4.0, count = 5))]
    pub request_tokens: Family<EngineLabels, Histogram>,
}

type PcLabels = Vec<(&'static str, String)>;

#[test]
fn exposition_is_byte_identical_to_hand_written_prometheus_client_code() {
    let observations = [0.001, 0.02, 0.02, 0.3, 4.0, 7.5];
    let tokens = [1.0, 3.0, 17.0, 300.0, 250.0];

    let mut ours = Registry::default();
    let metrics = Compared::register(&mut ours);
    let h = metrics.resolve(&engine(3));
    h.waiting.set(-4);
    h.tokens.inc_by(42);
    observations.iter().for_each(|v| h.step.observe(*v));
    tokens.iter().for_each(|v| h.request_tokens.observe(*v));

    let mut theirs = Registry::default();
    let waiting = PcFamily::<PcLabels, PcGauge>::default();
    let counter = PcFamily::<PcLabels, PcCounter>::default();
    let step = PcFamily::<PcLabels, PcHistogram>::new_with_constructor(|| {
        PcHistogram::new([0.005, 0.05, 0.5, 5.0])
    });
    let request_tokens = PcFamily::<PcLabels, PcHistogram>::new_with_constructor(|| {
        PcHistogram::new(metric_handles::buckets::exponential(1.0, 4.0, 5))
    });
    theirs.register("cmp:waiting", "Requests waiting", waiting.clone());
    theirs.register("cmp:tokens", "Tokens generated", counter.clone());
    theirs.register_with_unit(
        "cmp:step",
        "Latency of one step",
        Unit::Seconds,
        step.clone(),
    );
    theirs.register(
        "cmp:request_tokens",
        "Tokens per request",
        request_tokens.clone(),
    );
    let labels: PcLabels = vec![("model_name", "m".into()), ("engine", "3".into())];
    waiting.get_or_create(&labels).set(-4);
    counter.get_or_create(&labels).inc_by(42);
    observations
        .iter()
        .for_each(|v| step.get_or_create(&labels).observe(*v));
    tokens
        .iter()
        .for_each(|v| request_tokens.get_or_create(&labels).observe(*v));

    let ours_text = prometheus_text(&ours);
    let theirs_text = prometheus_text(&theirs);
    assert_eq!(ours_text, theirs_text);
    let ours_om = ExpositionFormat::OpenMetrics.encode(&ours).unwrap();
    let theirs_om = ExpositionFormat::OpenMetrics.encode(&theirs).unwrap();
    assert_eq!(ours_om, theirs_om);
    // Not vacuous: every metric is there with its value.
    assert!(ours_text.contains(r#"cmp:step_seconds_count{model_name="m",engine="3"} 6"#));
    assert!(ours_text.contains(r#"cmp:tokens_total{model_name="m",engine="3"} 42"#));
}

/// Two versions of one struct: the second adds a field at the end.
#[derive(Debug, MetricHandles)]
pub struct Before {
    /// Requests served
    #[metric(name = "app:requests")]
    pub requests: Family<metric_handles::NoLabels, Counter>,
    /// Queue depth
    #[metric(name = "app:queue_depth")]
    pub queue_depth: Family<metric_handles::NoLabels, Gauge>,
}

#[derive(Debug, MetricHandles)]
pub struct After {
    /// Requests served
    #[metric(name = "app:requests")]
    pub requests: Family<metric_handles::NoLabels, Counter>,
    /// Queue depth
    #[metric(name = "app:queue_depth")]
    pub queue_depth: Family<metric_handles::NoLabels, Gauge>,
    /// Requests rejected
    #[metric(name = "app:rejected")]
    pub rejected: Family<metric_handles::NoLabels, Counter>,
}

/// The same usage code, for either version.
macro_rules! serve {
    ($metrics:ty) => {{
        let mut registry = Registry::default();
        let metrics = <$metrics>::register(&mut registry);
        let handles = metrics.resolve(&metric_handles::NoLabels);
        handles.requests.inc_by(7);
        handles.queue_depth.set(2);
        (registry, metrics, handles)
    }};
}

#[test]
fn adding_a_field_adds_one_metric_and_changes_nothing_else() {
    let (before, _, _) = serve!(Before);
    let (after, _, handles) = serve!(After);
    let before = prometheus_text(&before);
    let after_text = prometheus_text(&after);
    let added = "# HELP app:rejected_total Requests rejected.\n\
                 # TYPE app:rejected_total counter\n\
                 app:rejected_total 0\n";
    assert_eq!(after_text, format!("{before}{added}"));
    handles.rejected.inc();
    let after_text = prometheus_text(&after);
    assert!(
        after_text.ends_with("app:rejected_total 1\n"),
        "{after_text}"
    );
    assert_eq!(
        &After::DESCRIPTORS[..2],
        Before::DESCRIPTORS,
        "the existing descriptors are unchanged"
    );
}

#[test]
fn remove_drops_one_label_set_and_keeps_the_others() {
    let mut registry = Registry::default();
    let metrics = DemoMetrics::register(&mut registry);
    let (h0, h1) = (metrics.resolve(&engine(0)), metrics.resolve(&engine(1)));
    h0.generation_tokens.inc();
    h1.generation_tokens.inc_by(2);
    metrics.remove(&engine(0));
    let text = prometheus_text(&registry);
    assert!(!text.contains(r#"engine="0""#), "{text}");
    assert!(text.contains(r#"vllm:generation_tokens_total{model_name="m",engine="1"} 2"#));
    // Resolving again after removal starts a fresh series.
    metrics.resolve(&engine(0)).generation_tokens.inc();
    let text = prometheus_text(&registry);
    assert!(text.contains(r#"vllm:generation_tokens_total{model_name="m",engine="0"} 1"#));
}

#[derive(Debug, MetricHandles)]
#[metric_handles(labels = EngineLabels, handles = LimitedHandles)]
pub struct Limited {
    /// Requests, at most two engines
    #[metric(name = "lim:requests", max_label_sets = 2)]
    pub requests: Family<EngineLabels, Counter>,
}

#[test]
fn max_label_sets_routes_extra_label_sets_to_the_overflow_series() {
    let mut registry = Registry::default();
    let metrics = Limited::register(&mut registry);
    for n in 0..4 {
        metrics.resolve(&engine(n)).requests.inc();
    }
    assert_eq!(metrics.requests.len(), 2);
    assert_eq!(metrics.requests.overflowed_lookups(), 2);
    let text = prometheus_text(&registry);
    assert!(
        text.contains(r#"lim:requests_total{model_name="m",engine="1"} 1"#),
        "{text}"
    );
    assert!(
        text.contains(r#"lim:requests_total{otel_metric_overflow="true"} 2"#),
        "{text}"
    );
    // A run-time option can lift the limit.
    let mut registry = Registry::default();
    let options = RegisterOptions::new().max_label_sets("lim:requests", 10);
    let metrics = Limited::register_with(&mut registry, &options);
    for n in 0..4 {
        metrics.resolve(&engine(n)).requests.inc();
    }
    assert_eq!(metrics.requests.len(), 4);
}

#[derive(Debug, MetricHandles)]
pub struct Renamed {
    /// Preemptions
    #[metric(
        name = "vllm:num_preemptions",
        alias(name = "vllm:num_preemptions_old", deprecated_in = "0.10")
    )]
    pub preemptions: Family<metric_handles::NoLabels, Counter>,
}

#[test]
fn aliases_are_exposed_only_for_their_version() {
    let mut registry = Registry::default();
    let hidden = Renamed::register(&mut registry);
    hidden.resolve(&metric_handles::NoLabels).preemptions.inc();
    let text = prometheus_text(&registry);
    assert!(text.contains("vllm:num_preemptions_total 1"), "{text}");
    assert!(!text.contains("num_preemptions_old"), "{text}");

    for (version, shown) in [("0.10", true), ("0.9", true), ("0.11", false)] {
        let mut registry = Registry::default();
        let options = RegisterOptions::new().show_hidden_metrics_for_version(version);
        let metrics = Renamed::register_with(&mut registry, &options);
        metrics
            .resolve(&metric_handles::NoLabels)
            .preemptions
            .inc_by(3);
        let text = prometheus_text(&registry);
        assert!(text.contains("vllm:num_preemptions_total 3"), "{text}");
        assert_eq!(
            text.contains("vllm:num_preemptions_old_total 3"),
            shown,
            "{text}"
        );
    }
}

#[test]
fn positions_default_from_the_attribute_and_are_overridable() {
    let mut registry = Registry::default();
    let metrics = DemoMetrics::register(&mut registry);
    assert_eq!(
        metrics.resolve(&engine(0)).accepted_per_pos.preresolved(),
        2
    );

    let mut registry = Registry::default();
    let options =
        RegisterOptions::new().positions("vllm:spec_decode_num_accepted_tokens_per_pos", 5);
    let metrics = DemoMetrics::register_with(&mut registry, &options);
    let h = metrics.resolve(&engine(0));
    assert_eq!(h.accepted_per_pos.preresolved(), 5);
    h.accepted_per_pos.get_or_create(4).inc();
    let text = prometheus_text(&registry);
    assert!(text.contains(
        r#"vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name="m",engine="0",position="4"} 1"#
    ));
}

#[derive(Debug, MetricHandles)]
pub struct WithCfg {
    /// Present
    #[metric(name = "cfg:present")]
    pub present: Family<metric_handles::NoLabels, Counter>,
    /// Absent
    #[cfg(any())]
    #[metric(name = "cfg:absent")]
    pub absent: Family<metric_handles::NoLabels, Counter>,
    #[metric(skip)]
    pub note: String,
}

#[test]
fn cfg_fields_are_absent_everywhere_and_skipped_fields_are_defaulted() {
    assert_eq!(WithCfg::DESCRIPTORS.len(), 1);
    let mut registry = Registry::default();
    let metrics = WithCfg::register(&mut registry);
    assert_eq!(metrics.note, "");
    metrics.resolve(&metric_handles::NoLabels).present.inc();
    let text = prometheus_text(&registry);
    assert!(text.contains("cfg:present_total 1"));
    assert!(!text.contains("cfg:absent"));
}

/// A struct generic over its label set: its handles carry a marker for `L`.
#[derive(Debug, MetricHandles)]
#[metric_handles(labels = L)]
pub struct Labelled<L: LabelSet> {
    /// Things counted
    #[metric(name = "gen:things")]
    pub things: Family<L, Counter>,
}

#[test]
fn handles_debug_shows_each_metric_field_as_derive_debug_would() {
    let mut registry = Registry::default();
    let h = DemoMetrics::register(&mut registry).resolve(&engine(0));
    assert_eq!(
        format!("{h:?}"),
        format!(
            "DemoHandles {{ running: {:?}, generation_tokens: {:?}, ttft: {:?}, \
             request_success: {:?}, accepted_per_pos: {:?}, lora_requests: {:?} }}",
            h.running,
            h.generation_tokens,
            h.ttft,
            h.request_success,
            h.accepted_per_pos,
            h.lora_requests
        )
    );
    // A cfg'd-out field has no handle, a skipped one is not a metric: neither is shown.
    let h = WithCfg::register(&mut Registry::default()).resolve(&metric_handles::NoLabels);
    assert_eq!(
        format!("{h:?}"),
        format!("WithCfgHandles {{ present: {:?} }}", h.present)
    );
    // A generic struct's marker is not data: not shown.
    let h = Labelled::register(&mut Registry::default()).resolve(&engine(0));
    assert_eq!(
        format!("{h:?}"),
        format!("LabelledHandles {{ things: {:?} }}", h.things)
    );
}

#[test]
fn label_enum_and_label_set_derives_match_their_declaration() {
    assert_eq!(
        FinishReason::VARIANTS,
        [
            FinishReason::Stop,
            FinishReason::Length,
            FinishReason::Abort
        ]
    );
    assert_eq!(FinishReason::VALUES, ["stop", "length", "abort"]);
    assert_eq!(FinishReason::Abort.index(), 2);
    assert_eq!(FinishReason::Length.label_value(), "length");
    assert_eq!(<EngineLabels as LabelSet>::KEYS, ["model_name", "engine"]);
}

/// The derives `metric_handles::prometheus_client::encoding` re-exports, beside
/// prometheus-client's own (which name `::prometheus_client`, a crate this suite depends on):
/// a prometheus-client family keyed by either writes the same exposition.
mod reexported_encoding_derives {
    use metric_handles::prometheus_client::encoding::{
        text::encode, EncodeLabelSet, EncodeLabelValue,
    };
    use metric_handles::prometheus_client::metrics::counter::Counter;
    use metric_handles::prometheus_client::metrics::family::Family;
    use metric_handles::prometheus_client::registry::Registry;

    #[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
    pub enum Method {
        Get,
        Post,
    }

    #[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
    pub struct Route {
        pub handler: String,
    }

    #[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
    pub struct Ours {
        pub method: Method,
        pub r#type: u32,
        #[prometheus(flatten)]
        pub route: Route,
    }

    #[derive(Clone, Debug, Hash, PartialEq, Eq, prometheus_client::encoding::EncodeLabelValue)]
    pub enum TheirMethod {
        Get,
        Post,
    }

    #[derive(Clone, Debug, Hash, PartialEq, Eq, prometheus_client::encoding::EncodeLabelSet)]
    pub struct TheirRoute {
        pub handler: String,
    }

    #[derive(Clone, Debug, Hash, PartialEq, Eq, prometheus_client::encoding::EncodeLabelSet)]
    pub struct Theirs {
        pub method: TheirMethod,
        pub r#type: u32,
        #[prometheus(flatten)]
        pub route: TheirRoute,
    }

    /// The exposition of a prometheus-client family that counts once under each of `labels`.
    fn exposition<L>(labels: [L; 2]) -> String
    where
        L: EncodeLabelSet + Clone + std::hash::Hash + Eq + Send + Sync + std::fmt::Debug + 'static,
    {
        let mut registry = Registry::default();
        let family = Family::<L, Counter>::default();
        registry.register("requests", "Requests", family.clone());
        for labels in &labels {
            family.get_or_create(labels).inc();
        }
        let mut text = String::new();
        encode(&mut text, &registry).unwrap();
        text
    }

    #[test]
    fn encode_like_prometheus_clients_own() {
        let ours = exposition([Method::Get, Method::Post].map(|method| Ours {
            method,
            r#type: 7,
            route: Route {
                handler: "/v1".into(),
            },
        }));
        let theirs = exposition([TheirMethod::Get, TheirMethod::Post].map(|method| Theirs {
            method,
            r#type: 7,
            route: TheirRoute {
                handler: "/v1".into(),
            },
        }));
        assert!(
            ours.contains(r#"requests_total{method="Post",type="7",handler="/v1"} 1"#),
            "{ours}"
        );
        // prometheus-client's `Family` is a hash map, and the two label types hash differently,
        // so the two series may come out in either order: compare the lines as multisets.
        assert_eq!(sorted_lines(&ours), sorted_lines(&theirs));
    }

    fn sorted_lines(text: &str) -> Vec<&str> {
        let mut lines: Vec<&str> = text.lines().collect();
        lines.sort_unstable();
        lines
    }
}
