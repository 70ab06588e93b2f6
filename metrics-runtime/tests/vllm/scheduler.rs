//! Scheduler-metric scenarios: engines joining and leaving, the log-stats
//! accumulator, the periodic log line and the deprecated aliases.

use std::time::{Duration, Instant};

use crate::support::vllm::*;
use metric_handles::vllm::request::{FinishReason, RequestParams};
use metric_handles::vllm::scheduler::{
    iteration_tokens, KvCacheEvictionEvent, PerfStats, PrefixCacheStats, SchedulerStats,
    SpecDecodingStats,
};
use metric_handles::vllm::{StatsLogger, VllmMetricsConfig};

fn prefix(queries: u64, hits: u64) -> PrefixCacheStats {
    PrefixCacheStats {
        queries,
        hits,
        ..PrefixCacheStats::default()
    }
}

fn spec(drafts: u64, draft_tokens: u64, accepted: u64, per_pos: &[u64]) -> SpecDecodingStats {
    SpecDecodingStats {
        num_spec_tokens: 3,
        num_drafts: drafts,
        num_draft_tokens: draft_tokens,
        num_accepted_tokens: accepted,
        num_accepted_tokens_per_pos: per_pos.to_vec(),
    }
}

fn full_stats() -> SchedulerStats {
    SchedulerStats {
        num_running_reqs: 3,
        num_waiting_reqs: 4,
        num_skipped_waiting_reqs: 2,
        kv_cache_usage: 0.5,
        prefix_cache_stats: prefix(100, 40),
        connector_prefix_cache_stats: Some(prefix(10, 5)),
        spec_decoding_stats: Some(spec(2, 6, 4, &[2, 1, 1])),
        perf_stats: Some(PerfStats {
            num_flops_per_gpu: 1000,
            num_read_bytes_per_gpu: 200,
            num_write_bytes_per_gpu: 300,
        }),
        kv_cache_eviction_events: vec![
            KvCacheEvictionEvent {
                lifetime_seconds: 0.5,
                idle_seconds: 0.125,
                reuse_gaps_seconds: vec![0.0078125, 0.015625],
            },
            KvCacheEvictionEvent {
                lifetime_seconds: 2.0,
                idle_seconds: 1.5,
                reuse_gaps_seconds: vec![],
            },
        ],
        cudagraph_stats: None,
        ..SchedulerStats::default()
    }
}

#[test]
fn every_scheduler_metric_is_recorded() {
    let (registry, metrics) = setup(with_spec_tokens(3));
    metrics.scheduler().record(0, &full_stats());
    let mut second = full_stats();
    second.num_running_reqs = 1;
    second.kv_cache_usage = 0.25;
    metrics.scheduler().record(0, &second);

    let s = scrape(&registry);
    let by_reason = "vllm:num_requests_waiting_by_reason";
    let per_pos = "vllm:spec_decode_num_accepted_tokens_per_pos_total";
    s.engine("0").assert_samples(&[
        ("vllm:num_requests_running", &[], 1.0),
        ("vllm:num_requests_waiting", &[], 6.0),
        (by_reason, &[("reason", "capacity")], 4.0),
        (by_reason, &[("reason", "deferred")], 2.0),
        ("vllm:kv_cache_usage_perc", &[], 0.25),
        ("vllm:prefix_cache_queries_total", &[], 200.0),
        ("vllm:prefix_cache_hits_total", &[], 80.0),
        ("vllm:external_prefix_cache_queries_total", &[], 20.0),
        ("vllm:external_prefix_cache_hits_total", &[], 10.0),
        ("vllm:spec_decode_num_drafts_total", &[], 4.0),
        ("vllm:spec_decode_num_draft_tokens_total", &[], 12.0),
        ("vllm:spec_decode_num_accepted_tokens_total", &[], 8.0),
        ("vllm:estimated_flops_per_gpu_total", &[], 2000.0),
        ("vllm:estimated_read_bytes_per_gpu_total", &[], 400.0),
        ("vllm:estimated_write_bytes_per_gpu_total", &[], 600.0),
        (per_pos, &[("position", "0")], 4.0),
        (per_pos, &[("position", "1")], 2.0),
        (per_pos, &[("position", "2")], 2.0),
    ]);
    let lifetime = s.hist("vllm:kv_block_lifetime_seconds", "0");
    assert_eq!((lifetime.count, lifetime.sum), (4.0, 5.0));
    assert_eq!(
        (lifetime.le(0.2), lifetime.le(0.5), lifetime.le(2.0)),
        (0.0, 2.0, 4.0)
    );
    let idle = s.hist("vllm:kv_block_idle_before_evict_seconds", "0");
    assert_eq!((idle.count, idle.sum), (4.0, 3.25));
    let gaps = s.hist("vllm:kv_block_reuse_gap_seconds", "0");
    assert_eq!((gaps.count, gaps.sum), (4.0, 0.046875));
    assert_eq!(
        (gaps.le(0.005), gaps.le(0.01), gaps.le(0.02)),
        (0.0, 2.0, 4.0)
    );
}

#[test]
fn conditional_metrics_are_recorded_only_when_their_stats_are_present() {
    let (registry, metrics) = setup(with_spec_tokens(3));
    let bare = SchedulerStats {
        prefix_cache_stats: prefix(7, 3),
        ..SchedulerStats::default()
    };
    metrics.scheduler().record(1, &bare);
    // Perf stats present but all zero: not recorded.
    metrics.scheduler().record(
        1,
        &SchedulerStats {
            perf_stats: Some(PerfStats::default()),
            ..SchedulerStats::default()
        },
    );
    let s = scrape(&registry);
    s.engine("1").assert_samples(&[
        ("vllm:prefix_cache_queries_total", &[], 7.0),
        ("vllm:prefix_cache_hits_total", &[], 3.0),
    ]);
    for name in [
        "vllm:external_prefix_cache_queries",
        "vllm:external_prefix_cache_hits",
        "vllm:spec_decode_num_drafts",
        "vllm:spec_decode_num_draft_tokens",
        "vllm:spec_decode_num_accepted_tokens",
        "vllm:estimated_flops_per_gpu",
        "vllm:estimated_read_bytes_per_gpu",
        "vllm:estimated_write_bytes_per_gpu",
    ] {
        assert_eq!(s.counter(name, "1"), 0.0, "{name}");
    }
    assert_eq!(s.hist("vllm:kv_block_lifetime_seconds", "1").count, 0.0);
    assert!(metrics
        .scheduler()
        .drain_log_stats(1)
        .accepted_per_pos
        .is_empty());

    // One non-zero perf value: all three are recorded.
    metrics.scheduler().record(
        1,
        &SchedulerStats {
            perf_stats: Some(PerfStats {
                num_write_bytes_per_gpu: 9,
                ..PerfStats::default()
            }),
            ..SchedulerStats::default()
        },
    );
    scrape(&registry).engine("1").assert_samples(&[
        ("vllm:estimated_write_bytes_per_gpu_total", &[], 9.0),
        ("vllm:estimated_flops_per_gpu_total", &[], 0.0),
    ]);
}

#[test]
fn out_of_range_values_are_clamped_and_counters_saturate() {
    let (registry, metrics) = setup_default();
    let record_usage = |usage: f64| {
        metrics.scheduler().record(
            0,
            &SchedulerStats {
                kv_cache_usage: usage,
                ..SchedulerStats::default()
            },
        );
        scrape(&registry).gauge("vllm:kv_cache_usage_perc", "0")
    };
    assert_eq!(record_usage(1.7), 1.0);
    assert_eq!(record_usage(-0.2), 0.0);
    assert_eq!(record_usage(f64::NAN), 0.0);
    assert_eq!(record_usage(f64::INFINITY), 1.0);
    assert_eq!(record_usage(0.75), 0.75);

    let huge = SchedulerStats {
        num_running_reqs: u64::MAX,
        num_waiting_reqs: u64::MAX,
        num_skipped_waiting_reqs: u64::MAX,
        prefix_cache_stats: prefix(u64::MAX, u64::MAX),
        kv_cache_eviction_events: vec![KvCacheEvictionEvent {
            lifetime_seconds: f64::NAN,
            idle_seconds: -3.0,
            reuse_gaps_seconds: vec![f64::INFINITY, f64::NEG_INFINITY],
        }],
        ..SchedulerStats::default()
    };
    metrics.scheduler().record(0, &huge);
    metrics.scheduler().record(0, &huge);
    let s = scrape(&registry);
    assert_eq!(s.gauge("vllm:num_requests_running", "0"), i64::MAX as f64);
    assert_eq!(s.gauge("vllm:num_requests_waiting", "0"), i64::MAX as f64);
    assert_eq!(s.counter("vllm:prefix_cache_queries", "0"), u64::MAX as f64);
    // NaN lifetime: counted in +Inf, kept out of the sum.
    let lifetime = s.hist("vllm:kv_block_lifetime_seconds", "0");
    assert_eq!(
        (lifetime.count, lifetime.sum, lifetime.le(1800.0)),
        (2.0, 0.0, 0.0)
    );
    // Negative idle time: 0, in the first bucket.
    let idle = s.hist("vllm:kv_block_idle_before_evict_seconds", "0");
    assert_eq!((idle.count, idle.sum, idle.le(0.001)), (2.0, 0.0, 2.0));
    let gaps = s.hist("vllm:kv_block_reuse_gap_seconds", "0");
    assert_eq!((gaps.count, gaps.sum, gaps.le(0.001)), (4.0, 0.0, 2.0));
}

#[test]
fn engines_join_late_and_leave_with_all_their_series() {
    let (registry, metrics) = setup_default();
    assert!(metrics.scheduler().engines().is_empty());
    assert!(
        !scrape(&registry).text.contains("engine="),
        "no series before any engine"
    );

    let stats = SchedulerStats {
        num_running_reqs: 2,
        ..SchedulerStats::default()
    };
    metrics.scheduler().record(0, &stats);
    // Engine 5 joins later (data-parallel scale-up), engine 1000 beyond the lock-free slots.
    metrics.scheduler().record(5, &stats);
    let mut t = metrics.requests().track(1000, RequestParams::default());
    t.observe_output(1.0, 1.0, &finishing(tokens(2), FinishReason::Stop));
    metrics.scheduler().record(1000, &stats);
    assert_eq!(metrics.scheduler().engines(), [0, 5, 1000]);
    let s = scrape(&registry);
    for engine in ["0", "5", "1000"] {
        assert_eq!(s.gauge("vllm:num_requests_running", engine), 2.0);
    }
    assert_eq!(s.counter("vllm:generation_tokens", "1000"), 2.0);
    assert_eq!(s.counter("vllm:generation_tokens", "5"), 0.0);

    // Engine 0 leaves: every one of its series, scheduler and request, disappears.
    let in_flight = metrics.requests().track(0, RequestParams::default());
    assert!(metrics.scheduler().remove_engine(0));
    assert!(!metrics.scheduler().remove_engine(0));
    assert_eq!(metrics.scheduler().engines(), [5, 1000]);
    drop(in_flight); // records into the detached handles: not exported
    let s = scrape(&registry);
    assert!(!s.has("vllm:num_requests_running", &[("engine", "0")]));
    assert!(
        !s.text.contains("engine=\"0\""),
        "engine 0 must be gone from every metric:\n{}",
        s.text
    );
    assert!(s.has("vllm:request_success_total", &[("engine", "5")]));
    assert!(metrics.scheduler().remove_engine(1000));
    assert!(!scrape(&registry).text.contains("engine=\"1000\""));

    // It comes back: fresh series.
    metrics.scheduler().record(0, &SchedulerStats::default());
    let s = scrape(&registry);
    assert_eq!(s.gauge("vllm:num_requests_running", "0"), 0.0);
    assert_eq!(
        s.counter_by("vllm:request_success", "0", "finished_reason", "abort"),
        0.0
    );
}

#[test]
fn positions_beyond_the_configured_count_still_record() {
    let (registry, metrics) = setup(with_spec_tokens(2));
    metrics.scheduler().add_engine(0);
    let s = scrape(&registry);
    assert!(s.has(
        "vllm:spec_decode_num_accepted_tokens_per_pos_total",
        &[("position", "1")]
    ));
    assert!(!s.has(
        "vllm:spec_decode_num_accepted_tokens_per_pos_total",
        &[("position", "2")]
    ));
    metrics.scheduler().record(
        0,
        &SchedulerStats {
            spec_decoding_stats: Some(spec(1, 4, 4, &[1, 1, 1, 1])),
            ..SchedulerStats::default()
        },
    );
    let s = scrape(&registry);
    for position in ["0", "1", "2", "3"] {
        assert_eq!(
            s.counter_by(
                "vllm:spec_decode_num_accepted_tokens_per_pos",
                "0",
                "position",
                position
            ),
            1.0
        );
    }
}

#[test]
fn the_log_stats_accumulator_drains_the_spec_example() {
    let (_registry, metrics) = setup(with_spec_tokens(2));
    for (drafts, per_pos) in [(2, vec![1, 2]), (3, vec![3, 4, 5])] {
        metrics.scheduler().record(
            4,
            &SchedulerStats {
                spec_decoding_stats: Some(spec(drafts, 0, 0, &per_pos)),
                ..SchedulerStats::default()
            },
        );
    }
    let drained = metrics.scheduler().drain_log_stats(4);
    assert_eq!(drained.num_drafts, 5);
    assert_eq!(drained.accepted_per_pos, [4, 6, 5]);
    let again = metrics.scheduler().drain_log_stats(4);
    assert_eq!((again.num_drafts, again.accepted_per_pos.len()), (0, 0));
    // An unknown engine drains empty and is not created.
    assert_eq!(metrics.scheduler().drain_log_stats(9).num_drafts, 0);
    assert_eq!(metrics.scheduler().engines(), [4]);
}

#[test]
fn iteration_tokens_are_observed_per_batch() {
    let (registry, metrics) = setup_default();
    let batch = [with_prefill(tokens(1), 40, 8), tokens(1), tokens(0)];
    assert_eq!(iteration_tokens(&batch), 1 + 32 + 1);
    metrics
        .scheduler()
        .record_iteration_tokens(2, iteration_tokens(&batch));
    metrics.scheduler().record_iteration_tokens(2, 1);
    let h = scrape(&registry).hist("vllm:iteration_tokens_total", "2");
    assert_eq!((h.count, h.sum), (2.0, 35.0));
    assert_eq!((h.le(1.0), h.le(32.0), h.le(64.0)), (1.0, 1.0, 2.0));
}

#[test]
fn the_stats_logger_computes_the_spec_example_over_engines_not_starting_at_zero() {
    let (_registry, metrics) = setup(with_spec_tokens(3));
    let record = |engine: u32, stats: SpecDecodingStats, usage: f64, prefix_stats| {
        metrics.scheduler().record(
            engine,
            &SchedulerStats {
                num_running_reqs: 2,
                num_waiting_reqs: 1,
                kv_cache_usage: usage,
                prefix_cache_stats: prefix_stats,
                spec_decoding_stats: Some(stats),
                ..SchedulerStats::default()
            },
        )
    };
    // Before the first line: drafts 10, draft tokens 100, accepted 40 over engines 2 and 7.
    record(2, spec(6, 60, 20, &[10, 6, 4]), 0.25, prefix(10, 0));
    record(7, spec(4, 40, 20, &[10, 6, 4]), 0.25, prefix(10, 0));
    let mut logger = StatsLogger::new(&metrics, Duration::from_secs(10));
    let t0 = Instant::now();
    let first = logger.log(t0);
    assert_eq!(
        first.spec_decode.as_ref().map(|s| s.accepted_tokens),
        Some(40)
    );
    assert_eq!(logger.log_if_due(t0 + Duration::from_secs(1)), None);

    // The interval: drafts +4, draft tokens +20, accepted +12, per position [4, 2, 1]; 2 s.
    record(2, spec(3, 15, 9, &[3, 2, 1]), 0.5, prefix(30, 15));
    record(7, spec(1, 5, 3, &[1]), 0.25, prefix(10, 5));
    let mut t = metrics.requests().track(7, RequestParams::default());
    t.observe_output(
        1.0,
        1.0,
        &finishing(with_prefill(tokens(10), 30, 10), FinishReason::Stop),
    );
    let line = logger.log(t0 + Duration::from_secs(2));
    let spec_line = line.spec_decode.clone().expect("drafts in the interval");
    assert_eq!(spec_line.mean_acceptance_length, 4.0);
    assert_eq!(spec_line.accepted_throughput, 6.0);
    assert_eq!(spec_line.drafted_throughput, 10.0);
    assert_eq!(spec_line.per_position_acceptance_rate, [1.0, 0.5, 0.25]);
    assert_eq!(spec_line.draft_acceptance_rate_percent, 60.0);
    assert_eq!(line.engines, 2);
    assert_eq!((line.running, line.waiting), (4, 2));
    assert_eq!(line.kv_cache_usage_percent, 37.5);
    assert_eq!(line.prefix_cache_hit_rate_percent, 50.0);
    assert_eq!(line.prompt_throughput, 10.0);
    assert_eq!(line.generation_throughput, 5.0);
    assert_eq!(
        line.to_string(),
        "Avg prompt throughput: 10.0 tokens/s, Avg generation throughput: 5.0 tokens/s, \
         Running: 4 reqs, Waiting: 2 reqs, GPU KV cache usage: 37.5%, Prefix cache hit rate: 50.0%; \
         SpecDecoding metrics: Mean acceptance length: 4.00, Accepted throughput: 6.00 tokens/s, \
         Drafted throughput: 10.00 tokens/s, Accepted: 12 tokens, Drafted: 20 tokens, \
         Per-position acceptance rate: 1.000, 0.500, 0.250, Avg Draft acceptance rate: 60.0%"
    );

    // Engine 7 leaves, engine 2 idles: nothing moved, no spec-decode part.
    metrics.scheduler().remove_engine(7);
    let quiet = logger
        .log_if_due(t0 + Duration::from_secs(12))
        .expect("10 s passed");
    assert_eq!(quiet.engines, 1);
    assert_eq!(quiet.generation_throughput, 0.0);
    assert_eq!(quiet.spec_decode, None);
}

#[test]
fn deprecated_aliases_share_the_series_and_are_off_by_default() {
    let record = |config: VllmMetricsConfig| {
        let (registry, metrics) = setup(config);
        metrics.scheduler().record(
            0,
            &SchedulerStats {
                kv_cache_usage: 0.5,
                prefix_cache_stats: prefix(12, 3),
                ..SchedulerStats::default()
            },
        );
        let mut t = metrics.requests().track(0, RequestParams::default());
        t.observe_output(1.0, 1.0, &tokens(1));
        t.observe_output(1.25, 1.0, &finishing(tokens(1), FinishReason::Stop));
        scrape(&registry)
    };
    let old_names = [
        "vllm:gpu_cache_usage_perc",
        "vllm:gpu_prefix_cache_queries_total",
        "vllm:gpu_prefix_cache_hits_total",
        "vllm:time_per_output_token_seconds_count",
    ];

    let off = record(VllmMetricsConfig::default());
    for name in old_names {
        assert!(!off.has(name, &[]), "{name} must be hidden by default");
    }

    let v010 = record(VllmMetricsConfig {
        show_hidden_metrics_for_version: Some("0.10".into()),
        ..VllmMetricsConfig::default()
    });
    assert_eq!(v010.gauge("vllm:gpu_cache_usage_perc", "0"), 0.5);
    assert_eq!(v010.counter("vllm:gpu_prefix_cache_queries", "0"), 12.0);
    assert_eq!(v010.counter("vllm:gpu_prefix_cache_hits", "0"), 3.0);
    // 0.10 still exposed the per-output-token name (hidden only from 0.12), so asking for
    // 0.10 restores it too: one setting brings back a whole 0.10-era dashboard.
    assert_eq!(
        v010.hist("vllm:time_per_output_token_seconds", "0"),
        v010.hist("vllm:inter_token_latency_seconds", "0")
    );

    let v011 = record(VllmMetricsConfig {
        show_hidden_metrics_for_version: Some("0.11".into()),
        ..VllmMetricsConfig::default()
    });
    assert_eq!(
        v011.hist("vllm:time_per_output_token_seconds", "0"),
        v011.hist("vllm:inter_token_latency_seconds", "0")
    );
    assert_eq!(
        v011.hist("vllm:time_per_output_token_seconds", "0").sum,
        0.25
    );
    assert!(!v011.has("vllm:gpu_cache_usage_perc", &[]));
}
