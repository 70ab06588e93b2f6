//! One test per row of `docs/reliability.md`'s bad-input table: each feeds the recorders one
//! kind of bad input and asserts the exact outcome a scraper sees (and the diagnostic counter,
//! where the input is ignored). The log records are asserted in `vllm/tracing_events.rs`.

use crate::support::vllm::*;
use metric_handles::vllm::request::{
    EventType::{Preempted, Queued, Scheduled},
    FinishReason, PrefillStats, RequestParams,
};
use metric_handles::vllm::scheduler::{
    KvCacheEvictionEvent, PerfStats, PrefixCacheStats, SchedulerStats, SpecDecodingStats,
};
use metric_handles::vllm::{VllmMetricsConfig, MAX_MODEL_NAME_LEN};

/// The duration histograms of a finished request, with their first bucket bound.
const DURATIONS: [(&str, f64); 7] = [
    ("vllm:time_to_first_token_seconds", 0.001),
    ("vllm:e2e_request_latency_seconds", 0.3),
    ("vllm:request_queue_time_seconds", 0.3),
    ("vllm:request_prefill_time_seconds", 0.3),
    ("vllm:request_decode_time_seconds", 0.3),
    ("vllm:request_inference_time_seconds", 0.3),
    ("vllm:request_time_per_output_token_seconds", 0.01),
];

fn params(arrival_time: f64) -> RequestParams {
    RequestParams {
        arrival_time,
        prompt_len: 4,
        max_tokens_param: None,
        n_param: 1,
    }
}

/// The exact sample line for `name` of engine 0 with the default model name.
fn line(name: &str, extra: &str, value: &str) -> String {
    format!("{name}{{model_name=\"model\",engine=\"0\"{extra}}} {value}\n")
}

/// Every `_sum` sample of the exposition parses as a finite number.
fn assert_every_sum_is_finite(text: &str) {
    for sample in text.lines().filter(|l| l.contains("_sum{")) {
        let value = sample.rsplit_once(' ').map(|(_, v)| v.parse::<f64>());
        assert!(
            matches!(value, Some(Ok(v)) if v.is_finite()),
            "non-finite sum: {sample}"
        );
    }
}

#[test]
fn non_finite_and_negative_timestamps_record_zero_durations_and_still_count() {
    let (registry, metrics) = setup_default();
    let mut t = metrics.requests().track(0, params(f64::NAN));
    t.observe_output(
        f64::INFINITY,
        -1.0,
        &with_events(tokens(1), &[(Queued, f64::NAN), (Scheduled, -5.0)]),
    );
    t.observe_output(f64::NAN, f64::NEG_INFINITY, &tokens(1));
    t.finish(FinishReason::Stop, f64::NAN);
    let s = scrape(&registry);
    for (name, first_bound) in DURATIONS
        .into_iter()
        .chain([("vllm:inter_token_latency_seconds", 0.01)])
    {
        let h = s.hist(name, "0");
        // One sample of exactly 0: in the first bucket, nothing added to the sum.
        assert_eq!(
            (h.count, h.sum, h.le(first_bound)),
            (1.0, 0.0, 1.0),
            "{name}"
        );
    }
    assert_every_sum_is_finite(&s.text);
}

#[test]
fn events_out_of_order_record_zero_for_the_reversed_phase_only() {
    // (case, Queued and Scheduled, first output's batch and received times, last output's,
    // sums of DURATIONS then of the inter-token latency).
    let cases = [
        // Scheduled before Queued, the first token before Scheduled, the clock going backwards
        // between tokens, the reply received before the request arrived.
        ("reversed", [10.0, 5.0], [4.0, 99.0], [3.0, 99.5], [0.0; 8]),
        // The same request in order records real values: the zeros above come from the order.
        // ttft, e2e, queue, prefill, decode, inference, time per output token, ITL.
        (
            "in order",
            [4.0, 5.0],
            [6.0, 101.0],
            [8.0, 102.0],
            [1.0, 2.0, 1.0, 1.0, 2.0, 3.0, 2.0, 2.0],
        ),
    ];
    for (case, [queued, scheduled], first, last, expected_sums) in cases {
        let (registry, metrics) = setup_default();
        let mut t = metrics.requests().track(0, params(100.0));
        let events = [(Queued, queued), (Scheduled, scheduled)];
        t.observe_output(first[0], first[1], &with_events(tokens(1), &events));
        t.observe_output(last[0], last[1], &finishing(tokens(1), FinishReason::Stop));
        let s = scrape(&registry);
        let sums: Vec<f64> = DURATIONS
            .iter()
            .map(|(name, _)| *name)
            .chain(["vllm:inter_token_latency_seconds"])
            .map(|name| s.hist(name, "0").sum)
            .collect();
        assert_eq!(sums, expected_sums, "{case}");
    }
}

#[test]
fn outputs_after_the_finish_change_nothing_and_are_counted() {
    let (registry, metrics) = setup_default();
    let mut t = metrics.requests().track(0, params(1.0));
    t.observe_output(1.0, 2.0, &finishing(tokens(2), FinishReason::Length));
    let before = scrape(&registry).text;
    let mut late = with_events(tokens(5), &[(Preempted, 3.0), (Queued, 3.0)]);
    late.prefill_stats = Some(PrefillStats {
        num_prompt_tokens: 9,
        ..PrefillStats::default()
    });
    t.observe_output(3.0, 4.0, &late);
    t.observe_output(4.0, 5.0, &finishing(tokens(1), FinishReason::Stop));
    assert_eq!(scrape(&registry).text, before, "nothing recorded");
    assert_eq!(metrics.requests().ignored_outputs(), 2);
    assert_eq!(metrics.requests().ignored_finishes(), 0);
}

#[test]
fn a_second_finish_is_ignored_and_counted_so_each_request_counts_once() {
    let (registry, metrics) = setup_default();
    let mut t = metrics.requests().track(0, params(1.0));
    t.observe_output(1.0, 2.0, &tokens(1));
    t.finish(FinishReason::Stop, 3.0);
    t.finish(FinishReason::Error, 4.0);
    t.abort(5.0); // consumes the tracker; its drop records nothing either
    let s = scrape(&registry);
    assert!(s.text.contains(&line(
        "vllm:request_success_total",
        ",finished_reason=\"stop\"",
        "1"
    )));
    for reason in ["length", "abort", "error", "repetition"] {
        assert_eq!(
            s.counter_by("vllm:request_success", "0", "finished_reason", reason),
            0.0,
            "{reason}"
        );
    }
    let e2e = s.hist("vllm:e2e_request_latency_seconds", "0");
    assert_eq!((e2e.count, e2e.sum), (1.0, 2.0));
    assert_eq!(metrics.requests().ignored_finishes(), 2);
    assert_eq!(metrics.requests().ignored_outputs(), 0);
}

#[test]
fn stats_for_an_engine_never_seen_join_it_and_nothing_else_creates_one() {
    let (registry, metrics) = setup_default();
    let stats = SchedulerStats {
        num_running_reqs: 3,
        ..SchedulerStats::default()
    };
    // A slot engine, one past the lock-free slots, and the largest index.
    let beyond = u32::try_from(metric_handles::vllm::ENGINE_SLOTS).expect("fits");
    for engine in [7, beyond, u32::MAX] {
        metrics.scheduler().record(engine, &stats);
    }
    let mut t = metrics.requests().track(9, params(1.0));
    t.observe_output(1.0, 2.0, &finishing(tokens(1), FinishReason::Stop));
    // Reads and removals of unknown engines create nothing.
    assert_eq!(metrics.scheduler().drain_log_stats(42), Default::default());
    assert!(!metrics.scheduler().remove_engine(42));
    assert_eq!(metrics.scheduler().engines(), [7, 9, beyond, u32::MAX]);
    let s = scrape(&registry);
    for engine in [7, beyond, u32::MAX] {
        assert_eq!(
            s.gauge("vllm:num_requests_running", &engine.to_string()),
            3.0
        );
    }
    assert_eq!(s.gauge("vllm:num_requests_running", "9"), 0.0);
    assert_eq!(s.counter("vllm:generation_tokens", "9"), 1.0);
    assert!(!s.text.contains("engine=\"42\""));
}

#[test]
fn per_position_values_beyond_the_configured_positions_are_kept_and_bounded() {
    let (registry, metrics) = setup(with_spec_tokens(2));
    // 2 configured positions, then the 2048 positions the bounded map holds, then 3 more that
    // go to the overflow series.
    let len = 2 + metric_handles::limits::DEFAULT_MAX_SERIES + 3;
    let stats = SchedulerStats {
        spec_decoding_stats: Some(SpecDecodingStats {
            num_drafts: 1,
            num_accepted_tokens_per_pos: vec![1; len],
            ..SpecDecodingStats::default()
        }),
        ..SchedulerStats::default()
    };
    metrics.scheduler().record(0, &stats);
    metrics.scheduler().record(0, &stats);
    let s = scrape(&registry);
    let name = "vllm:spec_decode_num_accepted_tokens_per_pos_total";
    let series = s.find(name, &[("engine", "0")]);
    assert_eq!(
        series.len(),
        2 + metric_handles::limits::DEFAULT_MAX_SERIES + 1
    );
    for position in [0, 1, 2, len - 4] {
        assert_eq!(
            s.value(name, &[("position", &position.to_string())]),
            2.0,
            "{position}"
        );
    }
    assert!(!s.has(name, &[("position", &(len - 3).to_string())]));
    assert!(s.text.contains(&line(
        "vllm:spec_decode_num_accepted_tokens_per_pos_total",
        ",otel_metric_overflow=\"true\"",
        "6"
    )));
    // Nothing lost: the series add up to what was reported, and the log stats list the
    // first positions and sum the rest.
    let total: f64 = series.iter().map(|(_, v)| v).sum();
    assert_eq!(total, 2.0 * len as f64);
    let drained = metrics.scheduler().drain_log_stats(0);
    let logged = metric_handles::vllm::log::MAX_LOGGED_POSITIONS;
    assert_eq!(drained.accepted_per_pos, vec![2; logged]);
    assert_eq!(drained.accepted_beyond_logged, 2 * (len - logged) as u64);
}

#[test]
fn kv_cache_usage_outside_zero_to_one_is_clamped() {
    let (registry, metrics) = setup_default();
    for (usage, exposed) in [
        (1.5, "1.0"),
        (f64::MAX, "1.0"),
        (f64::INFINITY, "1.0"),
        (-0.25, "0.0"),
        (-0.0, "0.0"),
        (f64::NEG_INFINITY, "0.0"),
        (f64::NAN, "0.0"),
        (0.5, "0.5"),
    ] {
        metrics.scheduler().record(
            0,
            &SchedulerStats {
                kv_cache_usage: usage,
                ..SchedulerStats::default()
            },
        );
        let text = scrape(&registry).text;
        assert!(
            text.contains(&line("vllm:kv_cache_usage_perc", "", exposed)),
            "{usage} should be exposed as {exposed}"
        );
    }
}

#[test]
fn counter_increments_saturate_at_u64_max_and_gauges_at_i64_max() {
    let (registry, metrics) = setup_default();
    let huge = SchedulerStats {
        num_running_reqs: u64::MAX,
        prefix_cache_stats: PrefixCacheStats {
            queries: u64::MAX - 1,
            hits: 1,
            ..PrefixCacheStats::default()
        },
        perf_stats: Some(PerfStats {
            num_flops_per_gpu: u64::MAX,
            ..PerfStats::default()
        }),
        ..SchedulerStats::default()
    };
    metrics.scheduler().record(0, &huge);
    metrics.scheduler().record(0, &huge);
    let text = scrape(&registry).text;
    let max = u64::MAX.to_string();
    for expected in [
        line("vllm:prefix_cache_queries_total", "", &max),
        line("vllm:prefix_cache_hits_total", "", "2"),
        line("vllm:estimated_flops_per_gpu_total", "", &max),
        line("vllm:num_requests_running", "", &i64::MAX.to_string()),
    ] {
        assert!(text.contains(&expected), "missing {expected:?}");
    }
}

#[test]
fn an_empty_long_or_odd_model_name_gives_a_valid_bounded_label() {
    let exported = |model_name: &str| {
        let (registry, metrics) = setup(VllmMetricsConfig {
            model_name: model_name.to_owned(),
            ..VllmMetricsConfig::default()
        });
        metrics.scheduler().add_engine(0);
        assert_eq!(
            metrics.config().model_name,
            model_name,
            "config kept as given"
        );
        let s = scrape(&registry);
        let (labels, _) = s.find("vllm:num_requests_running", &[])[0];
        (labels[0].1.clone(), s.text)
    };
    assert_eq!(exported("").0, "");
    // 1 + 2 * 600 bytes: the 1024-byte cut falls inside an 'é', so the label stops before it.
    let long = format!("a{}", "é".repeat(600));
    let (label, text) = exported(&long);
    assert_eq!(label.len(), MAX_MODEL_NAME_LEN - 1);
    assert_eq!(label, long[..MAX_MODEL_NAME_LEN - 1]);
    assert!(!text.contains(&long));
    // Quotes, backslashes and newlines are escaped, so the exposition stays one sample a line.
    let (_, text) = exported("a\"b\\c\nd");
    assert!(text.contains(r#"vllm:num_requests_running{model_name="a\"b\\c\nd",engine="0"} 0"#));
}

#[test]
fn eviction_durations_nan_negative_and_infinite_are_counted_but_never_summed() {
    let (registry, metrics) = setup_default();
    let lifetimes = [f64::NAN, -1.0, f64::INFINITY, f64::NEG_INFINITY, 2.0, -0.0];
    let stats = SchedulerStats {
        kv_cache_eviction_events: lifetimes
            .iter()
            .map(|&lifetime_seconds| KvCacheEvictionEvent {
                lifetime_seconds,
                idle_seconds: 0.5,
                reuse_gaps_seconds: vec![f64::NAN, 1.0],
            })
            .collect(),
        ..SchedulerStats::default()
    };
    metrics.scheduler().record(0, &stats);
    let s = scrape(&registry);
    let h = s.hist("vllm:kv_block_lifetime_seconds", "0");
    // -1, -Inf and -0 record 0 (first bucket); 2.0 lands in le=2; NaN and +Inf only in +Inf.
    assert_eq!(
        (h.count, h.sum, h.le(0.001), h.le(2.0), h.le(1800.0)),
        (6.0, 2.0, 3.0, 4.0, 4.0)
    );
    let gaps = s.hist("vllm:kv_block_reuse_gap_seconds", "0");
    assert_eq!((gaps.count, gaps.sum, gaps.le(1800.0)), (12.0, 6.0, 6.0));
}

#[test]
fn huge_token_counts_are_exact_and_land_in_the_inf_bucket() {
    let (registry, metrics) = setup_default();
    let mut t = metrics.requests().track(
        0,
        RequestParams {
            arrival_time: 1.0,
            prompt_len: u32::MAX,
            max_tokens_param: Some(u32::MAX),
            n_param: u32::MAX,
        },
    );
    let mut first = tokens(3);
    first.prefill_stats = Some(PrefillStats {
        num_prompt_tokens: u32::MAX,
        num_computed_tokens: u32::MAX,
        num_cached_tokens: u32::MAX,
        num_local_cached_tokens: u32::MAX,
        num_external_cached_tokens: u32::MAX,
    });
    t.observe_output(1.0, 2.0, &first);
    t.finish(FinishReason::Length, 3.0);
    metrics.scheduler().record_iteration_tokens(0, u64::MAX);
    let s = scrape(&registry);
    let big = f64::from(u32::MAX);
    assert!(s
        .text
        .contains(&line("vllm:prompt_tokens_total", "", &u32::MAX.to_string())));
    for source in ["local_compute", "local_cache_hit", "external_kv_transfer"] {
        assert_eq!(
            s.counter_by("vllm:prompt_tokens_by_source", "0", "source", source),
            big
        );
    }
    for name in [
        "vllm:request_prompt_tokens",
        "vllm:request_params_max_tokens",
        "vllm:request_params_n",
    ] {
        let h = s.hist(name, "0");
        let below_inf = h.buckets[h.buckets.len() - 2].1;
        assert_eq!((h.count, h.sum, below_inf), (1.0, big, 0.0), "{name}");
    }
    // Every prompt token was cached: nothing computed (the subtraction saturates at 0).
    let computed = s.hist("vllm:request_prefill_kv_computed_tokens", "0");
    assert_eq!((computed.count, computed.sum), (1.0, 0.0));
    let iteration = s.hist("vllm:iteration_tokens_total", "0");
    assert_eq!((iteration.count, iteration.sum), (1.0, u64::MAX as f64));
}

#[test]
fn an_absurd_duration_saturates_the_sum_instead_of_making_it_infinite() {
    let (registry, metrics) = setup_default();
    for _ in 0..2 {
        let mut t = metrics.requests().track(0, params(0.0));
        t.finish(FinishReason::Stop, f64::MAX);
    }
    let s = scrape(&registry);
    assert!(s.text.contains(&line(
        "vllm:e2e_request_latency_seconds_sum",
        "",
        "1.7976931348623157e308"
    )));
    assert_eq!(s.hist("vllm:e2e_request_latency_seconds", "0").count, 2.0);
    assert_every_sum_is_finite(&s.text);
}

#[test]
fn a_tracker_dropped_unfinished_with_a_nan_arrival_is_one_abort_with_zero_latency() {
    let (registry, metrics) = setup_default();
    drop(metrics.requests().track(0, params(f64::NAN)));
    let s = scrape(&registry);
    assert_eq!(
        s.counter_by("vllm:request_success", "0", "finished_reason", "abort"),
        1.0
    );
    let e2e = s.hist("vllm:e2e_request_latency_seconds", "0");
    assert_eq!((e2e.count, e2e.sum, e2e.le(0.3)), (1.0, 0.0, 1.0));
    // No token, so no time-to-first-token sample is invented.
    assert_eq!(s.hist("vllm:time_to_first_token_seconds", "0").count, 0.0);
}
