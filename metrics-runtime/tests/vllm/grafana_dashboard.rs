//! vLLM's example Grafana dashboard (`examples/online_serving/prometheus_grafana/grafana.json`
//! in the vLLM repository) works unchanged: every series its panels query exists, with the
//! `model_name` label its `$model_name` variable filters on, once deprecated names are switched
//! on with one setting.

use crate::support::vllm::*;
use metric_handles::vllm::request::{
    EventType::{Queued, Scheduled},
    FinishReason, RequestParams,
};
use metric_handles::vllm::scheduler::SchedulerStats;
use metric_handles::vllm::VllmMetricsConfig;

/// Every series the dashboard's PromQL reads, by panel.
const DASHBOARD_SERIES: &[(&str, &str)] = &[
    (
        "E2E Request Latency",
        "vllm:e2e_request_latency_seconds_bucket",
    ),
    (
        "E2E Request Latency",
        "vllm:e2e_request_latency_seconds_sum",
    ),
    (
        "E2E Request Latency",
        "vllm:e2e_request_latency_seconds_count",
    ),
    ("Token Throughput", "vllm:prompt_tokens_total"),
    ("Token Throughput", "vllm:generation_tokens_total"),
    (
        "Time Per Output Token Latency",
        "vllm:time_per_output_token_seconds_bucket",
    ),
    (
        "Time Per Output Token Latency",
        "vllm:time_per_output_token_seconds_sum",
    ),
    (
        "Time Per Output Token Latency",
        "vllm:time_per_output_token_seconds_count",
    ),
    ("Scheduler State", "vllm:num_requests_running"),
    ("Scheduler State", "vllm:num_requests_waiting"),
    (
        "Time To First Token Latency",
        "vllm:time_to_first_token_seconds_bucket",
    ),
    (
        "Time To First Token Latency",
        "vllm:time_to_first_token_seconds_sum",
    ),
    (
        "Time To First Token Latency",
        "vllm:time_to_first_token_seconds_count",
    ),
    ("Cache Utilization", "vllm:gpu_cache_usage_perc"),
    ("Request Prompt Length", "vllm:request_prompt_tokens_bucket"),
    (
        "Request Generation Length",
        "vllm:request_generation_tokens_bucket",
    ),
    ("Finish Reason", "vllm:request_success_total"),
    ("Queue Time", "vllm:request_queue_time_seconds_sum"),
    (
        "Requests Prefill and Decode Time",
        "vllm:request_prefill_time_seconds_sum",
    ),
    (
        "Requests Prefill and Decode Time",
        "vllm:request_decode_time_seconds_sum",
    ),
    (
        "Max Generation Token in Sequence Group",
        "vllm:request_max_num_generation_tokens_sum",
    ),
];

const MODEL: &str = "meta-llama/Meta-Llama-3-8B-Instruct";

fn scrape_after_one_request(config: VllmMetricsConfig) -> Scrape {
    let (registry, metrics) = setup(config);
    metrics.scheduler().record(
        0,
        &SchedulerStats {
            num_running_reqs: 1,
            kv_cache_usage: 0.25,
            ..SchedulerStats::default()
        },
    );
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
    scrape(&registry)
}

#[test]
fn every_series_the_vllm_dashboard_queries_exists_with_aliases_on() {
    let s = scrape_after_one_request(VllmMetricsConfig {
        model_name: MODEL.into(),
        show_hidden_metrics_for_version: Some("0.10".into()),
        ..VllmMetricsConfig::default()
    });
    for (panel, series) in DASHBOARD_SERIES {
        assert!(
            s.has(series, &[("model_name", MODEL)]),
            "panel {panel:?} queries {series}{{model_name=\"{MODEL}\"}}, which is missing"
        );
    }
    // The deprecated names carry the same data as the current ones.
    assert_eq!(
        s.value("vllm:gpu_cache_usage_perc", &[("model_name", MODEL)]),
        0.25
    );
    assert_eq!(
        s.value(
            "vllm:time_per_output_token_seconds_count",
            &[("model_name", MODEL)]
        ),
        s.value(
            "vllm:inter_token_latency_seconds_count",
            &[("model_name", MODEL)]
        ),
    );
    assert_eq!(
        s.value(
            "vllm:request_success_total",
            &[("model_name", MODEL), ("finished_reason", "length")]
        ),
        1.0
    );
}

#[test]
fn without_aliases_only_the_deprecated_panels_go_blank() {
    let s = scrape_after_one_request(VllmMetricsConfig {
        model_name: MODEL.into(),
        ..VllmMetricsConfig::default()
    });
    let missing: Vec<&str> = DASHBOARD_SERIES
        .iter()
        .filter(|(_, series)| !s.has(series, &[("model_name", MODEL)]))
        .map(|(_, series)| *series)
        .collect();
    assert_eq!(
        missing,
        [
            "vllm:time_per_output_token_seconds_bucket",
            "vllm:time_per_output_token_seconds_sum",
            "vllm:time_per_output_token_seconds_count",
            "vllm:gpu_cache_usage_perc",
        ]
    );
}
