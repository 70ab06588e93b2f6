//! The record paths allocate nothing once an engine is known, shown with a
//! counting global allocator. Counts are per thread, so tests running in parallel do not see
//! each other's allocations.

use crate::counting::allocations_during;
use crate::support::vllm::*;
use metric_handles::vllm::request::{EventType, FinishReason, RequestParams};
use metric_handles::vllm::scheduler::SchedulerStats;
use metric_handles::vllm::VllmMetricsConfig;

fn params() -> RequestParams {
    RequestParams {
        arrival_time: 1.0,
        prompt_len: 32,
        max_tokens_param: Some(64),
        n_param: 1,
    }
}

#[test]
fn the_counter_sees_allocations() {
    // Guards against a counter that never counts, which would make every test below pass.
    assert!(allocations_during(|| drop(std::hint::black_box(vec![1u8; 16]))) >= 1);
}

#[test]
fn observing_outputs_and_finishing_allocate_nothing() {
    let (_registry, metrics) = setup_default();
    let first = with_prefill(
        with_events(
            tokens(1),
            &[(EventType::Queued, 1.0), (EventType::Scheduled, 1.5)],
        ),
        32,
        8,
    );
    let next = tokens(2);
    let preempted = with_events(tokens(0), &[(EventType::Preempted, 3.0)]);
    let last = finishing(tokens(1), FinishReason::Stop);

    // Warm up: the engine's first sight resolves its series; the thread's first arc-swap load
    // registers the thread; the first inter-token latencies merged (on drop) make the
    // histogram's merge area.
    let mut warm = metrics.requests().track(0, params());
    warm.observe_output(2.0, 2.0, &first);
    warm.observe_output(3.0, 3.0, &next);
    drop(warm);

    let mut t = metrics.requests().track(0, params());
    t.observe_output(2.0, 2.0, &first);
    let n = allocations_during(|| {
        for i in 0..100 {
            t.observe_output(3.0 + f64::from(i), 3.0, &next);
        }
        t.observe_output(200.0, 200.0, &preempted);
        t.observe_output(201.0, 201.0, &last);
        drop(t);
    });
    assert_eq!(n, 0, "observe_output / finish allocated");

    // Creating a tracker for a known engine, and dropping it unfinished (abort).
    let n = allocations_during(|| {
        let mut t = metrics.requests().track(0, params());
        t.observe_output(2.0, 2.0, &first);
        drop(t);
    });
    assert_eq!(n, 0, "track / drop-as-abort allocated");
}

#[test]
fn observing_outputs_with_a_trace_id_allocates_nothing_after_the_series_first_exemplars() {
    let (_registry, metrics) = setup_default();
    let first = with_prefill(
        with_events(
            tokens(1),
            &[(EventType::Queued, 1.0), (EventType::Scheduled, 1.5)],
        ),
        32,
        8,
    );
    let next = tokens(2);
    let last = finishing(tokens(1), FinishReason::Stop);
    // Warm up: the series' first exemplars allocate their slots, once per series.
    let mut warm = metrics.requests().track(0, params());
    warm.set_trace_id("cmpl-0").expect("a short id");
    warm.observe_output(2.0, 2.0, &first);
    for i in 0..40 {
        warm.observe_output(3.0 + f64::from(i), 3.0, &next);
    }
    warm.observe_output(50.0, 50.0, &last);
    drop(warm);

    // Setting the id allocates its checked labels, once per request.
    let mut t = metrics.requests().track(0, params());
    t.set_trace_id("cmpl-1").expect("a short id");
    let n = allocations_during(|| {
        t.observe_output(2.0, 2.0, &first);
        for i in 0..100 {
            t.observe_output(3.0 + f64::from(i), 3.0, &next);
        }
        t.observe_output(200.0, 200.0, &last);
        drop(t);
    });
    assert_eq!(n, 0, "observe_output / finish with a trace id allocated");
}

#[test]
fn recording_scheduler_stats_for_a_known_engine_allocates_nothing() {
    let (_registry, metrics) = setup(with_spec_tokens(3));
    let stats = busy_scheduler_stats();
    metrics.scheduler().record(3, &stats);
    metrics.scheduler().record_iteration_tokens(3, 1);
    let n = allocations_during(|| {
        for _ in 0..100 {
            metrics.scheduler().record(3, &stats);
            metrics.scheduler().record_iteration_tokens(3, 17);
        }
    });
    assert_eq!(n, 0, "SchedulerStatsRecorder::record allocated");
}

#[test]
fn recording_connector_sleep_and_batch_telemetry_for_a_known_engine_allocates_nothing() {
    use std::collections::BTreeMap;

    use metric_handles::vllm::connectors::{
        KvConnectorStats, MooncakeOperation, MooncakeRecord, MooncakeStats, MooncakeStatus,
        NixlStats,
    };
    use metric_handles::vllm::sleep::{
        EngineSleepState, KvCacheState, SleepOperation, WeightsState,
    };

    let (_registry, metrics) = setup(VllmMetricsConfig::default());
    let record = |status| MooncakeRecord {
        duration_seconds: 0.01,
        num_keys: 2,
        num_bytes: 4096,
        status,
        num_failed_keys: 0,
    };
    let stats = SchedulerStats {
        kv_connector_stats: Some(KvConnectorStats {
            nixl: vec![NixlStats {
                transfer_duration: vec![0.01, 0.02],
                post_duration: vec![0.001],
                bytes_transferred: vec![1 << 20],
                num_descriptors: vec![12],
                num_failed_transfers: vec![1],
                num_failed_notifications: vec![0],
                num_kv_expired_reqs: vec![1],
            }],
            mooncake: Some(MooncakeStats(BTreeMap::from([
                (MooncakeOperation::LoadGet, vec![record(MooncakeStatus::Ok)]),
                (
                    MooncakeOperation::SavePut,
                    vec![record(MooncakeStatus::Ok), record(MooncakeStatus::Error)],
                ),
            ]))),
        }),
        sleep_state: Some(EngineSleepState {
            scheduler_paused: false,
            weights: WeightsState::Resident,
            kv_cache: KvCacheState::Resident,
        }),
        ..SchedulerStats::default()
    };
    let batch = [tokens(1), tokens(3)];
    // First sight: the engine joins, the Mooncake pairs and sleep gauges resolve.
    metrics.scheduler().record(2, &stats);
    metrics.scheduler().record_output_batch(2, &batch);
    let n = allocations_during(|| {
        for _ in 0..100 {
            metrics.scheduler().record(2, &stats);
            metrics.scheduler().record_output_batch(2, &batch);
            drop(metrics.sleep_mode().begin(SleepOperation::Wake));
        }
    });
    assert_eq!(n, 0, "connector / sleep / batch recording allocated");
}
