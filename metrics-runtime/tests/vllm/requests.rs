//! Request-metric scenarios: whole lifecycles driven through the tracker, every
//! affected sample asserted in the encoded exposition, one test per edge case.

use crate::support::vllm::*;
use metric_handles::vllm::request::{
    EventType::{Preempted, Queued, Scheduled},
    FinishReason, RequestParams,
};
use metric_handles::vllm::{RequestMetricsTracker, VllmMetrics, VllmMetricsConfig};

fn params(arrival_time: f64, prompt_len: u32, max_tokens: Option<u32>) -> RequestParams {
    RequestParams {
        arrival_time,
        prompt_len,
        max_tokens_param: max_tokens,
        n_param: 1,
    }
}

/// The prompt tokens counted by where they came from.
const BY_SOURCE: &str = "vllm:prompt_tokens_by_source_total";

/// The duration histograms a finished request observes once each.
const DURATIONS: [&str; 7] = [
    "vllm:time_to_first_token_seconds",
    "vllm:e2e_request_latency_seconds",
    "vllm:request_queue_time_seconds",
    "vllm:request_prefill_time_seconds",
    "vllm:request_decode_time_seconds",
    "vllm:request_inference_time_seconds",
    "vllm:request_time_per_output_token_seconds",
];

const REASONS: [&str; 5] = ["stop", "length", "abort", "error", "repetition"];

fn assert_success(s: &Scrape, engine: &str, expected: [f64; 5]) {
    for (reason, want) in REASONS.iter().zip(expected) {
        assert_eq!(
            s.counter_by("vllm:request_success", engine, "finished_reason", reason),
            want,
            "request_success{{finished_reason={reason}}}"
        );
    }
}

#[test]
fn trackers_and_metrics_are_thread_safe_types() {
    fn send<T: Send>() {}
    fn send_sync<T: Send + Sync>() {}
    send::<RequestMetricsTracker>();
    send_sync::<VllmMetrics>();
}

#[test]
fn a_complete_request_records_every_metric() {
    let (registry, metrics) = setup_default();
    let mut t = metrics.requests().track(0, params(1000.0, 8, Some(3)));
    let first = with_prefill(
        with_events(tokens(1), &[(Queued, 10.0), (Scheduled, 10.25)]),
        8,
        2,
    );
    t.observe_output(10.5, 1000.5, &first);
    t.observe_output(10.75, 1000.75, &tokens(1));
    assert!(!t.is_finished());
    t.observe_output(11.25, 1001.5, &finishing(tokens(1), FinishReason::Stop));
    assert!(t.is_finished());
    drop(t);

    let s = scrape(&registry);
    s.engine("0").assert_samples(&[
        ("vllm:generation_tokens_total", &[], 3.0),
        ("vllm:prompt_tokens_total", &[], 8.0),
        (BY_SOURCE, &[("source", "local_compute")], 6.0),
        (BY_SOURCE, &[("source", "local_cache_hit")], 2.0),
        (BY_SOURCE, &[("source", "external_kv_transfer")], 0.0),
        ("vllm:prompt_tokens_cached_total", &[], 2.0),
        ("vllm:num_preemptions_total", &[], 0.0),
    ]);
    assert_success(&s, "0", [1.0, 0.0, 0.0, 0.0, 0.0]);

    let ttft = s.hist("vllm:time_to_first_token_seconds", "0");
    assert_eq!((ttft.count, ttft.sum), (1.0, 0.5));
    assert_eq!((ttft.le(0.25), ttft.le(0.5)), (0.0, 1.0));
    let itl = s.hist("vllm:inter_token_latency_seconds", "0");
    assert_eq!((itl.count, itl.sum), (2.0, 0.75));
    assert_eq!((itl.le(0.2), itl.le(0.3), itl.le(0.5)), (0.0, 1.0, 2.0));

    let prompt = s.hist("vllm:request_prompt_tokens", "0");
    assert_eq!(
        (prompt.count, prompt.sum, prompt.le(5.0), prompt.le(10.0)),
        (1.0, 8.0, 0.0, 1.0)
    );
    s.assert_one_observation_each(
        "0",
        &[
            ("vllm:request_generation_tokens", 3.0),
            ("vllm:request_max_num_generation_tokens", 3.0),
            ("vllm:request_params_max_tokens", 3.0),
            ("vllm:request_params_n", 1.0),
            ("vllm:request_prefill_kv_computed_tokens", 6.0),
            ("vllm:e2e_request_latency_seconds", 1.5),
            ("vllm:request_queue_time_seconds", 0.25),
            ("vllm:request_prefill_time_seconds", 0.25),
            ("vllm:request_decode_time_seconds", 0.75),
            ("vllm:request_inference_time_seconds", 1.0),
            ("vllm:request_time_per_output_token_seconds", 0.375),
        ],
    );
    let e2e = s.hist("vllm:e2e_request_latency_seconds", "0");
    assert_eq!((e2e.le(1.0), e2e.le(1.5)), (0.0, 1.0));
    let tpot = s.hist("vllm:request_time_per_output_token_seconds", "0");
    assert_eq!((tpot.le(0.3), tpot.le(0.4)), (0.0, 1.0));
}

#[test]
fn preemption_counts_and_phase_times_include_the_preempted_time() {
    let (registry, metrics) = setup_default();
    let mut t = metrics.requests().track(0, params(100.0, 4, None));
    t.observe_output(
        2.0,
        100.5,
        &with_events(tokens(0), &[(Queued, 1.0), (Scheduled, 2.0)]),
    );
    t.observe_output(3.0, 101.0, &tokens(1));
    t.observe_output(3.5, 101.5, &with_events(tokens(0), &[(Preempted, 3.5)]));
    // Rescheduled: the second Scheduled event must not replace the first.
    t.observe_output(6.0, 104.0, &with_events(tokens(1), &[(Scheduled, 5.0)]));
    t.observe_output(7.0, 105.0, &finishing(tokens(1), FinishReason::Length));

    let s = scrape(&registry);
    assert_eq!(s.counter("vllm:num_preemptions", "0"), 1.0);
    assert_eq!(s.counter("vllm:generation_tokens", "0"), 3.0);
    assert_success(&s, "0", [0.0, 1.0, 0.0, 0.0, 0.0]);
    let itl = s.hist("vllm:inter_token_latency_seconds", "0");
    assert_eq!((itl.count, itl.sum), (2.0, 4.0));
    s.assert_one_observation_each(
        "0",
        &[
            ("vllm:request_queue_time_seconds", 1.0),
            ("vllm:request_prefill_time_seconds", 1.0),
            ("vllm:request_decode_time_seconds", 4.0),
            // From the first Scheduled (2.0), not the second (5.0): 5.0, not 2.0.
            ("vllm:request_inference_time_seconds", 5.0),
            ("vllm:request_time_per_output_token_seconds", 2.0),
            ("vllm:e2e_request_latency_seconds", 5.0),
        ],
    );
    // No prefill stats were reported: the prompt counters stay at 0, the whole prompt counts as
    // computed in the prefill histogram.
    assert_eq!(s.counter("vllm:prompt_tokens", "0"), 0.0);
    assert_eq!(
        s.hist("vllm:request_prefill_kv_computed_tokens", "0").sum,
        4.0
    );
    // max_tokens was not given: no sample.
    assert_eq!(s.hist("vllm:request_params_max_tokens", "0").count, 0.0);
}

#[test]
fn a_request_finishing_without_any_token_has_no_ttft_and_zero_phases() {
    let (registry, metrics) = setup_default();
    // Aborted in the queue: only Queued seen, so the queue time is 0 too.
    let mut queued = metrics.requests().track(0, params(50.0, 16, Some(8)));
    queued.observe_output(
        5.0,
        51.0,
        &finishing(
            with_events(tokens(0), &[(Queued, 4.0)]),
            FinishReason::Abort,
        ),
    );
    // Failed in prefill: Queued and Scheduled seen, so the queue time is real.
    let mut failed = metrics.requests().track(0, params(50.0, 16, Some(8)));
    failed.observe_output(
        5.0,
        52.0,
        &finishing(
            with_events(tokens(0), &[(Queued, 4.0), (Scheduled, 4.5)]),
            FinishReason::Error,
        ),
    );

    let s = scrape(&registry);
    assert_success(&s, "0", [0.0, 0.0, 1.0, 1.0, 0.0]);
    assert_eq!(s.hist("vllm:time_to_first_token_seconds", "0").count, 0.0);
    assert_eq!(s.hist("vllm:inter_token_latency_seconds", "0").count, 0.0);
    assert_eq!(s.counter("vllm:generation_tokens", "0"), 0.0);
    for name in [
        "vllm:request_prefill_time_seconds",
        "vllm:request_decode_time_seconds",
        "vllm:request_inference_time_seconds",
        "vllm:request_time_per_output_token_seconds",
    ] {
        let h = s.hist(name, "0");
        assert_eq!((h.count, h.sum), (2.0, 0.0), "{name}");
        assert_eq!(h.buckets[0].1, 2.0, "{name}: both in the first bucket");
    }
    let queue = s.hist("vllm:request_queue_time_seconds", "0");
    assert_eq!((queue.count, queue.sum), (2.0, 0.5));
    let e2e = s.hist("vllm:e2e_request_latency_seconds", "0");
    assert_eq!((e2e.count, e2e.sum), (2.0, 3.0));
    let generated = s.hist("vllm:request_generation_tokens", "0");
    assert_eq!((generated.count, generated.sum), (2.0, 0.0));
}

#[test]
fn a_token_less_terminal_output_adds_no_ttft_or_itl_sample() {
    let (registry, metrics) = setup_default();
    let mut t = metrics.requests().track(3, params(10.0, 4, None));
    t.observe_output(1.0, 10.5, &tokens(2));
    t.observe_output(1.5, 11.0, &tokens(1));
    t.observe_output(2.0, 11.5, &finishing(tokens(0), FinishReason::Abort));

    let s = scrape(&registry);
    assert_eq!(s.hist("vllm:time_to_first_token_seconds", "3").count, 1.0);
    let itl = s.hist("vllm:inter_token_latency_seconds", "3");
    assert_eq!((itl.count, itl.sum), (1.0, 0.5));
    assert_eq!(s.counter("vllm:generation_tokens", "3"), 3.0);
    assert_success(&s, "3", [0.0, 0.0, 1.0, 0.0, 0.0]);
    // Decode time ends at the last token (1.5), not at the terminal output (2.0).
    assert_eq!(s.hist("vllm:request_decode_time_seconds", "3").sum, 0.5);
    assert_eq!(
        s.hist("vllm:request_time_per_output_token_seconds", "3")
            .sum,
        0.25
    );
}

#[test]
fn a_tracker_dropped_without_a_finish_is_recorded_once_as_abort() {
    let (registry, metrics) = setup_default();
    let mut t = metrics.requests().track(0, params(1.0, 4, None));
    t.observe_output(1.0, 1.5, &tokens(1));
    drop(t);
    let s = scrape(&registry);
    assert_success(&s, "0", [0.0, 0.0, 1.0, 0.0, 0.0]);
    for name in [
        "vllm:request_prompt_tokens",
        "vllm:request_generation_tokens",
        "vllm:e2e_request_latency_seconds",
        "vllm:request_time_per_output_token_seconds",
    ] {
        assert_eq!(s.hist(name, "0").count, 1.0, "{name}");
    }

    // An explicit abort, then the drop: still one.
    let t = metrics.requests().track(0, params(1.0, 4, None));
    t.abort(2.0);
    // A finished request, then the drop: nothing more.
    let mut t = metrics.requests().track(0, params(1.0, 4, None));
    t.observe_output(1.0, 1.5, &finishing(tokens(1), FinishReason::Stop));
    t.finish(FinishReason::Error, 3.0);
    drop(t);
    let s = scrape(&registry);
    assert_success(&s, "0", [1.0, 0.0, 2.0, 0.0, 0.0]);
    assert_eq!(s.hist("vllm:e2e_request_latency_seconds", "0").count, 3.0);
}

#[test]
fn outputs_after_the_finish_are_ignored_and_counted() {
    let (registry, metrics) = setup_default();
    let mut t = metrics.requests().track(0, params(1.0, 4, None));
    t.observe_output(1.0, 1.5, &finishing(tokens(1), FinishReason::Stop));
    t.observe_output(2.0, 2.5, &finishing(tokens(5), FinishReason::Length));
    t.observe_output(3.0, 3.5, &with_events(tokens(0), &[(Preempted, 3.0)]));
    assert_eq!(metrics.requests().ignored_outputs(), 2);
    let s = scrape(&registry);
    assert_eq!(s.counter("vllm:generation_tokens", "0"), 1.0);
    assert_eq!(s.counter("vllm:num_preemptions", "0"), 0.0);
    assert_success(&s, "0", [1.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(s.hist("vllm:inter_token_latency_seconds", "0").count, 0.0);
}

#[test]
fn queue_time_is_real_only_when_both_queued_and_scheduled_were_seen() {
    let (registry, metrics) = setup_default();
    let run = |events: &[(metric_handles::vllm::request::EventType, f64)]| {
        let mut t = metrics.requests().track(0, params(1.0, 1, None));
        t.observe_output(
            9.0,
            2.0,
            &finishing(with_events(tokens(1), events), FinishReason::Stop),
        );
    };
    run(&[(Scheduled, 5.0)]);
    run(&[(Queued, 4.0)]);
    run(&[(Queued, 4.0), (Scheduled, 6.0)]);
    // Out of order (scheduled before queued): 0, not negative.
    run(&[(Queued, 7.0), (Scheduled, 6.0)]);
    let s = scrape(&registry);
    let queue = s.hist("vllm:request_queue_time_seconds", "0");
    assert_eq!((queue.count, queue.sum), (4.0, 2.0));
    // Prefill time needs Scheduled: only the two with it and in order count a real value.
    let prefill = s.hist("vllm:request_prefill_time_seconds", "0");
    assert_eq!((prefill.count, prefill.sum), (4.0, 4.0 + 3.0 + 3.0));
}

#[test]
fn the_parallel_sampling_parent_records_n_and_the_max_once() {
    let (registry, metrics) = setup_default();
    let mut children = metrics.requests().track_parallel(
        0,
        RequestParams {
            n_param: 3,
            ..params(10.0, 6, Some(5))
        },
    );
    assert_eq!(children.len(), 3);
    let mut last = children.pop().expect("three children");
    for (i, (child, generated)) in children.iter_mut().zip([2, 5]).enumerate() {
        child.observe_output(1.0, 10.5, &tokens(generated - 1));
        child.observe_output(
            2.0,
            11.0 + i as f64,
            &finishing(tokens(1), FinishReason::Stop),
        );
    }
    last.observe_output(1.0, 10.5, &tokens(1));
    // Two of three finished: the parent is not recorded yet.
    let s = scrape(&registry);
    assert_eq!(s.hist("vllm:request_params_n", "0").count, 0.0);
    assert_eq!(
        s.hist("vllm:request_max_num_generation_tokens", "0").count,
        0.0
    );
    assert_success(&s, "0", [2.0, 0.0, 0.0, 0.0, 0.0]);

    // The last child is dropped unfinished: it is an abort, and completes the parent.
    drop(last);
    drop(children);
    let s = scrape(&registry);
    let n = s.hist("vllm:request_params_n", "0");
    assert_eq!((n.count, n.sum, n.le(2.0), n.le(5.0)), (1.0, 3.0, 0.0, 1.0));
    let max = s.hist("vllm:request_max_num_generation_tokens", "0");
    assert_eq!((max.count, max.sum), (1.0, 5.0));
    assert_success(&s, "0", [2.0, 0.0, 1.0, 0.0, 0.0]);
    // Everything else is per child.
    let generated = s.hist("vllm:request_generation_tokens", "0");
    assert_eq!((generated.count, generated.sum), (3.0, 8.0));
    assert_eq!(s.hist("vllm:time_to_first_token_seconds", "0").count, 3.0);
    assert_eq!(s.hist("vllm:request_params_max_tokens", "0").count, 3.0);
    assert_eq!(s.hist("vllm:request_prompt_tokens", "0").sum, 18.0);

    // The Rust frontend's form: each choice its own request with n = 1.
    for _ in 0..3 {
        let mut t = metrics.requests().track(0, params(10.0, 6, Some(5)));
        t.observe_output(1.0, 10.5, &finishing(tokens(1), FinishReason::Stop));
    }
    let n = scrape(&registry).hist("vllm:request_params_n", "0");
    assert_eq!((n.count, n.sum), (4.0, 6.0));
}

#[test]
fn n_sequential_requests_produce_the_counts_a_vllm_server_reports() {
    const N: usize = 25;
    const P: u32 = 100;
    const T: usize = 16;
    let (registry, metrics) = setup_default();
    let mut clock = 1.0;
    for _ in 0..N {
        let arrival = 1_700_000_000.0 + clock;
        let mut t = metrics
            .requests()
            .track(0, params(arrival, P, Some(T as u32)));
        for i in 0..T {
            clock += 0.03125;
            let mut output = tokens(1);
            if i == 0 {
                output = with_prefill(
                    with_events(output, &[(Queued, clock - 0.02), (Scheduled, clock - 0.01)]),
                    P,
                    0,
                );
            }
            if i == T - 1 {
                output = finishing(output, FinishReason::Length);
            }
            t.observe_output(clock, 1_700_000_000.0 + clock, &output);
        }
        assert!(t.is_finished());
    }

    let s = scrape(&registry);
    let n = N as f64;
    let t = T as f64;
    let p = f64::from(P);
    assert_eq!(
        s.hist("vllm:inter_token_latency_seconds", "0").count,
        n * (t - 1.0)
    );
    s.engine("0").assert_samples(&[
        ("vllm:prompt_tokens_total", &[], n * p),
        (BY_SOURCE, &[("source", "local_compute")], n * p),
        ("vllm:generation_tokens_total", &[], n * t),
        ("vllm:num_preemptions_total", &[], 0.0),
    ]);
    assert_success(&s, "0", [0.0, n, 0.0, 0.0, 0.0]);
    for name in DURATIONS.into_iter().chain(["vllm:request_params_n"]) {
        assert_eq!(s.hist(name, "0").count, n, "{name}");
    }
    for (name, sum) in [
        ("vllm:request_prompt_tokens", n * p),
        ("vllm:request_generation_tokens", n * t),
        ("vllm:request_max_num_generation_tokens", n * t),
        ("vllm:request_params_max_tokens", n * t),
        ("vllm:request_prefill_kv_computed_tokens", n * p),
    ] {
        let h = s.hist(name, "0");
        assert_eq!((h.count, h.sum), (n, sum), "{name}");
    }
    // Every ITL sample is 1/32 s: all in the le=0.05 bucket, none in le=0.025.
    let itl = s.hist("vllm:inter_token_latency_seconds", "0");
    assert_eq!((itl.le(0.025), itl.le(0.05)), (0.0, n * (t - 1.0)));
}

#[test]
fn bad_timestamps_never_reach_a_histogram_sum_and_samples_still_count() {
    let (registry, metrics) = setup_default();
    for (arrival, batch, received) in [
        (f64::NAN, 1.0, 2.0),
        (f64::INFINITY, f64::NEG_INFINITY, f64::NAN),
        (-5.0, -1.0, -10.0),
        (1e308, f64::MAX, -f64::MAX),
    ] {
        let mut t = metrics.requests().track(0, params(arrival, 4, Some(2)));
        t.observe_output(
            batch,
            received,
            &with_events(tokens(1), &[(Queued, f64::NAN), (Scheduled, f64::INFINITY)]),
        );
        t.observe_output(
            batch * 2.0,
            received,
            &finishing(tokens(1), FinishReason::Stop),
        );
    }
    let s = scrape(&registry);
    // `hist` asserts every _sum is finite and _count equals +Inf.
    for name in DURATIONS
        .into_iter()
        .chain(["vllm:inter_token_latency_seconds"])
    {
        assert_eq!(s.hist(name, "0").count, 4.0, "{name}");
    }
    assert_success(&s, "0", [4.0, 0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn token_histograms_end_at_the_configured_max_model_len() {
    let (registry, metrics) = setup(VllmMetricsConfig {
        max_model_len: 4096,
        ..VllmMetricsConfig::default()
    });
    let mut t = metrics.requests().track(0, params(1.0, 5000, None));
    t.observe_output(1.0, 2.0, &finishing(tokens(1), FinishReason::Stop));
    let s = scrape(&registry);
    for name in [
        "vllm:request_prompt_tokens",
        "vllm:request_generation_tokens",
        "vllm:request_max_num_generation_tokens",
        "vllm:request_params_max_tokens",
        "vllm:request_prefill_kv_computed_tokens",
    ] {
        let bounds: Vec<f64> = s.hist(name, "0").buckets.iter().map(|b| b.0).collect();
        assert_eq!(
            bounds,
            [
                1.0,
                2.0,
                5.0,
                10.0,
                20.0,
                50.0,
                100.0,
                200.0,
                500.0,
                1000.0,
                2000.0,
                4096.0,
                f64::INFINITY
            ],
            "{name}"
        );
    }
    let prompt = s.hist("vllm:request_prompt_tokens", "0");
    assert_eq!((prompt.le(4096.0), prompt.count), (0.0, 1.0));
}
