//! A request tracker with a trace id: its observations carry the id as their exemplar in an
//! OpenMetrics scrape (time to first token, end-to-end latency, the inter-token latency of
//! each merge, the generation-token increments), and an id past OpenMetrics' limit is refused
//! without losing a count.

use metric_handles::exemplar::{rejected_exemplars, ExemplarError};
use metric_handles::vllm::request::{
    EventType::{Queued, Scheduled},
    FinishReason, RequestParams,
};
use metric_handles::vllm::VllmMetricsConfig;
use metric_handles::ExpositionFormat;

use crate::support::vllm::*;

const PARAMS: RequestParams = RequestParams {
    arrival_time: 100.0,
    prompt_len: 6,
    max_tokens_param: Some(3),
    n_param: 1,
};

/// The OpenMetrics lines of `family` (its samples, any suffix) that carry an exemplar.
fn lines_with_exemplar<'a>(text: &'a str, family: &str) -> Vec<&'a str> {
    text.lines()
        .filter(|line| line.starts_with(family) && line.contains(" # {"))
        .collect()
}

#[test]
fn a_trace_id_is_the_exemplar_of_the_requests_observations() {
    let (registry, metrics) = setup(VllmMetricsConfig::default());
    let mut tracker = metrics.requests().track(0, PARAMS);
    tracker.set_trace_id("cmpl-42").expect("a short id");
    let first = with_prefill(
        with_events(tokens(1), &[(Queued, 1.0), (Scheduled, 1.5)]),
        6,
        0,
    );
    tracker.observe_output(2.0, 100.5, &first);
    tracker.observe_output(2.25, 100.75, &tokens(1));
    tracker.observe_output(2.75, 101.0, &finishing(tokens(1), FinishReason::Length));
    drop(tracker);
    // A request without a trace id leaves no exemplar of its own.
    let mut plain = metrics.requests().track(0, PARAMS);
    plain.observe_output(3.0, 102.0, &finishing(tokens(1), FinishReason::Stop));
    drop(plain);

    let text = ExpositionFormat::OpenMetrics
        .encode(&registry)
        .expect("OpenMetrics encodes");
    for (family, value) in [
        // TTFT: the first output received at 100.5, the request arrived at 100.0.
        ("vllm:time_to_first_token_seconds_bucket", "0.5"),
        // E2E: finished at 101.0, arrived at 100.0.
        ("vllm:e2e_request_latency_seconds_bucket", "1.0"),
        // ITL: the last sample of the merge at the finish, 2.75 - 2.25.
        ("vllm:inter_token_latency_seconds_bucket", "0.5"),
        // The last output's one token.
        ("vllm:generation_tokens_total", "1.0"),
    ] {
        let lines = lines_with_exemplar(&text, family);
        assert_eq!(lines.len(), 1, "{family}:\n{text}");
        let exemplar = lines[0].split_once(" # ").expect("an exemplar").1;
        assert!(
            exemplar.starts_with(&format!("{{trace_id=\"cmpl-42\"}} {value} ")),
            "{family}: {exemplar}"
        );
    }
    // The Prometheus text format carries no exemplar.
    let classic = ExpositionFormat::PrometheusText
        .encode(&registry)
        .expect("text encodes");
    assert!(!classic.contains("trace_id"), "{classic}");
}

#[test]
fn a_trace_id_past_the_limit_is_refused_and_the_request_still_counts() {
    let (registry, metrics) = setup(VllmMetricsConfig::default());
    let mut tracker = metrics.requests().track(0, PARAMS);
    // `trace_id` is 8 characters: 121 more make 129, one past OpenMetrics' 128.
    let too_long = "x".repeat(121);
    let before = rejected_exemplars();
    assert_eq!(
        tracker.set_trace_id(&too_long),
        Err(ExemplarError::TooLong { chars: 129 })
    );
    assert!(rejected_exemplars() > before);
    tracker.observe_output(2.0, 100.5, &finishing(tokens(2), FinishReason::Stop));
    drop(tracker);
    let text = ExpositionFormat::OpenMetrics
        .encode(&registry)
        .expect("OpenMetrics encodes");
    assert!(!text.contains("trace_id"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("vllm:generation_tokens_total{") && l.ends_with(" 2")),
        "{text}"
    );
}
