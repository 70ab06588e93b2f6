//! What a frontend feeds the vLLM recorders cannot grow memory without bound, whether or not a
//! logger ever drains the log stats: CUDA-graph shapes, their runtime-mode strings and the
//! per-position spec-decode vector. Each test prints the figures it measured (RSS, time per
//! record); the assertions are on what is kept, never on time.

use std::time::Instant;

use crate::support::exposition::encode_text;
use crate::support::vllm::*;
use metric_handles::vllm::log::MAX_LOGGED_POSITIONS;
use metric_handles::vllm::scheduler::{
    CudagraphStats, SchedulerStats, SpecDecodingStats, MAX_CUDAGRAPH_SHAPES, MAX_RUNTIME_MODE_LEN,
};
use metric_handles::vllm::VllmMetricsConfig;

/// Resident set size in bytes (Linux), 0 elsewhere.
fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

fn shape(i: u64, mode: &str) -> SchedulerStats {
    SchedulerStats {
        cudagraph_stats: Some(CudagraphStats {
            num_unpadded_tokens: i,
            num_padded_tokens: i + 1,
            num_paddings: 1,
            runtime_mode: mode.to_owned(),
        }),
        ..Default::default()
    }
}

#[test]
fn cudagraph_shapes_stay_bounded_and_every_step_is_counted_without_a_drain() {
    let (_registry, metrics) = setup_default();
    let steps: u64 = 100_000;
    let rss_before = rss_bytes();
    let started = Instant::now();
    for i in 0..steps {
        metrics.scheduler().record(0, &shape(i, "FULL"));
    }
    let all = started.elapsed();
    // The cost of one more record once the accumulator is as full as it gets.
    let started = Instant::now();
    for i in 0..1000 {
        metrics.scheduler().record(0, &shape(steps + i, "FULL"));
    }
    let last = started.elapsed();
    let rss_after = rss_bytes();
    println!(
        "cudagraph: {steps} distinct shapes: {:.2} us/record on average, {:.2} us/record for the \
         last 1000, RSS +{:.1} MB",
        all.as_secs_f64() * 1e6 / steps as f64,
        last.as_secs_f64() * 1e6 / 1000.0,
        rss_after.saturating_sub(rss_before) as f64 / 1e6
    );
    let drained = metrics.scheduler().drain_log_stats(0);
    assert_eq!(drained.cudagraph.len(), MAX_CUDAGRAPH_SHAPES);
    let kept: u64 = drained.cudagraph.iter().map(|(_, n)| n).sum();
    assert_eq!(
        kept + drained.cudagraph_other_steps,
        steps + 1000,
        "no step lost"
    );
    // The kept shapes are the first seen.
    assert_eq!(drained.cudagraph[0].0.num_unpadded_tokens, 0);
    assert_eq!(drained.cudagraph[0].1, 1);
}

#[test]
fn a_huge_runtime_mode_is_cut_and_repeated_shapes_still_count_together() {
    let (_registry, metrics) = setup_default();
    let huge = "M".repeat(1 << 20);
    let rss_before = rss_bytes();
    for i in 0..300 {
        // 300 shapes, each with a 1 MiB mode, the case; then each shape again.
        metrics.scheduler().record(0, &shape(i, &huge));
        metrics.scheduler().record(0, &shape(i, &huge));
    }
    let rss_after = rss_bytes();
    println!(
        "cudagraph: 300 shapes with a 1 MiB runtime_mode: RSS +{:.1} MB",
        rss_after.saturating_sub(rss_before) as f64 / 1e6
    );
    let drained = metrics.scheduler().drain_log_stats(0);
    assert_eq!(drained.cudagraph.len(), 300);
    for (key, count) in &drained.cudagraph {
        assert_eq!(key.runtime_mode.len(), MAX_RUNTIME_MODE_LEN);
        assert_eq!(*count, 2);
    }
    // A multi-byte character at the cut is not split.
    let (_registry, metrics) = setup_default();
    let mode = format!("{}é", "x".repeat(MAX_RUNTIME_MODE_LEN - 1));
    metrics.scheduler().record(0, &shape(1, &mode));
    let drained = metrics.scheduler().drain_log_stats(0);
    assert_eq!(
        drained.cudagraph[0].0.runtime_mode,
        "x".repeat(MAX_RUNTIME_MODE_LEN - 1)
    );
}

#[test]
fn a_huge_per_position_vector_keeps_a_bounded_log_line_and_every_token() {
    let (_registry, metrics) = setup(VllmMetricsConfig {
        num_speculative_tokens: 2,
        ..Default::default()
    });
    let positions = 1_000_000;
    let per_pos = vec![1u64; positions];
    metrics.scheduler().record(
        0,
        &SchedulerStats {
            spec_decoding_stats: Some(SpecDecodingStats {
                num_spec_tokens: 2,
                num_drafts: 1,
                num_draft_tokens: positions as u64,
                num_accepted_tokens: positions as u64,
                num_accepted_tokens_per_pos: per_pos,
            }),
            ..Default::default()
        },
    );
    let drained = metrics.scheduler().drain_log_stats(0);
    assert_eq!(drained.accepted_per_pos.len(), MAX_LOGGED_POSITIONS);
    let kept: u64 = drained.accepted_per_pos.iter().sum();
    assert_eq!(kept + drained.accepted_beyond_logged, positions as u64);
}

#[test]
fn a_million_configured_positions_preresolve_a_bounded_number_and_still_count() {
    let (registry, metrics) = setup(VllmMetricsConfig {
        num_speculative_tokens: 1_000_000,
        ..Default::default()
    });
    let rss_before = rss_bytes();
    let mut per_pos = vec![0u64; 1000];
    per_pos[0] = 3;
    per_pos[999] = 4;
    metrics.scheduler().record(
        0,
        &SchedulerStats {
            spec_decoding_stats: Some(SpecDecodingStats {
                num_spec_tokens: 1000,
                num_drafts: 1,
                num_draft_tokens: 1000,
                num_accepted_tokens: 7,
                num_accepted_tokens_per_pos: per_pos,
            }),
            ..Default::default()
        },
    );
    let text = encode_text(&registry);
    println!(
        "1,000,000 configured positions: RSS +{:.1} MB, scrape {:.1} KB",
        rss_bytes().saturating_sub(rss_before) as f64 / 1e6,
        text.len() as f64 / 1e3
    );
    let series: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("vllm:spec_decode_num_accepted_tokens_per_pos_total{"))
        .collect();
    // The pre-resolved positions, plus position 999 looked up when it was recorded.
    assert_eq!(
        series.len(),
        metric_handles::limits::MAX_PRERESOLVED_POSITIONS + 1
    );
    let scrape = scrape(&registry);
    assert_eq!(
        scrape.counter_by(
            "vllm:spec_decode_num_accepted_tokens_per_pos",
            "0",
            "position",
            "999"
        ),
        4.0
    );
    assert_eq!(
        scrape.counter_by(
            "vllm:spec_decode_num_accepted_tokens_per_pos",
            "0",
            "position",
            "0"
        ),
        3.0
    );
}

#[test]
fn engines_past_the_series_limit_are_counted_once_in_the_log_line() {
    use metric_handles::vllm::request::RequestParams;
    use metric_handles::vllm::StatsLogger;
    use std::time::Duration;

    let (_registry, metrics) = setup_default();
    let limit = metric_handles::limits::DEFAULT_MAX_SERIES as u32;
    let overflowed = 10;
    let start = Instant::now();
    let mut logger = StatsLogger::new(&metrics, Duration::from_secs(1));
    for engine in 0..limit + overflowed {
        metrics.scheduler().record(
            engine,
            &SchedulerStats {
                num_running_reqs: 1,
                ..Default::default()
            },
        );
        let mut tracker = metrics.requests().track(
            engine,
            RequestParams {
                arrival_time: 1.0,
                prompt_len: 1,
                max_tokens_param: None,
                n_param: 1,
            },
        );
        tracker.observe_output(1.0, 2.0, &tokens(1));
        tracker.abort(3.0);
    }
    let line = logger.log(start + Duration::from_secs(1));
    // Every engine generated one token: the overflow series holds the last ten, once.
    let generated = (line.generation_throughput * line.elapsed_seconds).round();
    assert_eq!(generated, f64::from(limit + overflowed));
    // The overflow gauge is shared: it holds 1 (the last value set), counted once.
    assert_eq!(line.running, i64::from(limit) + 1);
}

/// The families whose `# TYPE` line says `kind`.
fn families_of_kind<'a>(text: &'a str, kind: &str) -> Vec<&'a str> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_once(' '))
        .filter(|(_, k)| *k == kind)
        .map(|(name, _)| name)
        .collect()
}

/// Every sample line of the overflow series of a family of `kind`.
fn overflow_samples<'a>(text: &'a str, kind: &str) -> Vec<&'a str> {
    let families = families_of_kind(text, kind);
    text.lines()
        .filter(|l| l.contains("otel_metric_overflow=\"true\""))
        .filter(|l| {
            let name = l.split(['{', ' ']).next().unwrap_or("");
            families.iter().any(|f| {
                name.strip_prefix(f)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('_'))
            })
        })
        .collect()
}

/// No gauge family exposes an overflow series: every engine recording into one has left.
fn assert_no_overflow_gauges(text: &str) {
    assert_eq!(
        overflow_samples(text, "gauge"),
        Vec::<&str>::new(),
        "overflow gauges after every overflowed engine left"
    );
}

#[test]
fn overflow_gauges_leave_with_the_last_overflowed_engine_and_counters_stay_monotonic() {
    use metric_handles::vllm::sleep::{EngineSleepState, KvCacheState, WeightsState};
    use metric_handles::vllm::StatsLogger;
    use std::time::Duration;

    let (registry, metrics) = setup_default();
    let limit = metric_handles::limits::DEFAULT_MAX_LABEL_SETS as u32;
    let start = Instant::now();
    let mut logger = StatsLogger::new(&metrics, Duration::from_secs(1));
    let stats = |running: u64, queries: u64, hits: u64| SchedulerStats {
        num_running_reqs: running,
        num_waiting_reqs: 2,
        kv_cache_usage: 0.5,
        prefix_cache_stats: metric_handles::vllm::scheduler::PrefixCacheStats {
            queries,
            hits,
            ..Default::default()
        },
        // The sleep-state gauges hold the same engines under the same limit.
        sleep_state: Some(EngineSleepState {
            scheduler_paused: true,
            weights: WeightsState::Offloaded,
            kv_cache: KvCacheState::Released,
        }),
        ..Default::default()
    };
    let resource_state = "vllm:engine_sleep_resource_state";
    let weights_offloaded = [("resource", "weights"), ("state", "offloaded")];
    for engine in 0..limit {
        metrics.scheduler().record(engine, &stats(1, 0, 0));
    }
    let overflowed: Vec<u32> = (limit..limit + 5).collect();
    for &engine in &overflowed {
        metrics.scheduler().record(engine, &stats(7, 10, 5));
    }
    let queries = "vllm:prefix_cache_queries_total";
    let overflow = [("otel_metric_overflow", "true")];
    let s = scrape(&registry);
    assert_eq!(s.value("vllm:num_requests_running", &overflow), 7.0);
    assert_eq!(s.value(queries, &overflow), 50.0);
    let gauges_while_present = overflow_samples(&s.text, "gauge").len();
    assert!(gauges_while_present >= 3, "{}", s.text);
    // One overflow series per {resource, state} pair, one fully-awake gauge.
    assert_eq!(s.find(resource_state, &overflow).len(), 9);
    assert_eq!(s.find("vllm:engine_fully_awake", &overflow).len(), 1);
    let overflowed_offloaded = [overflow[0], weights_offloaded[0], weights_offloaded[1]];
    assert_eq!(s.value(resource_state, &overflowed_offloaded), 1.0);
    logger.log(start + Duration::from_secs(1));

    // Four of the five leave: the shared series stays, with the last value set.
    for &engine in &overflowed[..4] {
        assert!(metrics.scheduler().remove_engine(engine));
    }
    let s = scrape(&registry);
    assert_eq!(s.value("vllm:num_requests_running", &overflow), 7.0);
    assert_eq!(s.value(queries, &overflow), 50.0);
    assert_eq!(s.find(resource_state, &overflow).len(), 9);

    // The last one leaves: no overflow gauge is left claiming requests or cache use, and the
    // counters keep their totals (a scraper sees no reset).
    assert!(metrics.scheduler().remove_engine(overflowed[4]));
    let s = scrape(&registry);
    assert_no_overflow_gauges(&s.text);
    assert_eq!(s.value(queries, &overflow), 50.0);
    // The engines with their own sleep-state series keep them.
    assert_eq!(s.find(resource_state, &[]).len(), limit as usize * 9);
    assert_eq!(s.find("vllm:engine_fully_awake", &[]).len(), limit as usize);
    let last = (limit - 1).to_string();
    let last_offloaded = [
        ("engine", last.as_str()),
        weights_offloaded[0],
        weights_offloaded[1],
    ];
    assert_eq!(s.value(resource_state, &last_offloaded), 1.0);
    let line = logger.log(start + Duration::from_secs(2));
    assert_eq!(line.running, i64::from(limit));

    // A new engine past the limit: the gauges come back with its values, the counters go on
    // from their totals, and the log line counts only what happened since the previous line.
    metrics.scheduler().record(limit + 100, &stats(3, 4, 4));
    let s = scrape(&registry);
    assert_eq!(s.value("vllm:num_requests_running", &overflow), 3.0);
    assert_eq!(s.value(queries, &overflow), 54.0);
    assert_eq!(s.find(resource_state, &overflow).len(), 9);
    let line = logger.log(start + Duration::from_secs(3));
    assert_eq!(line.running, i64::from(limit) + 3);
    // 4 hits in 4 queries since the previous line; counting the overflow totals from 0 again
    // would give 29 in 54.
    assert_eq!(line.prefix_cache_hit_rate_percent, 100.0);
}
