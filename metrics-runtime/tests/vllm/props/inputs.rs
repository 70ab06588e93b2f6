//! The values the recorders take: plausible ones, and the extremes (NaN, infinities, counts at
//! the edge of their type) half of the time.

use metric_handles::vllm::connectors::{
    KvConnectorStats, MooncakeOperation, MooncakeRecord, MooncakeStats, MooncakeStatus, NixlStats,
};
use metric_handles::vllm::request::{EventType, FinishReason, PrefillStats, RequestOutput};
use metric_handles::vllm::scheduler::{
    CachedTokensBySource, CudagraphStats, KvCacheEvictionEvent, PerfStats, PrefixCacheStats,
    SchedulerStats, SpecDecodingStats,
};
use metric_handles::vllm::sleep::{EngineSleepState, KvCacheState, WeightsState};
use metric_handles::LabelEnum;
use proptest::prelude::*;

use super::SPEC_POSITIONS;

/// Any `f64` half of the time (NaN, ±Inf, subnormals, huge), a plausible clock reading else.
pub(super) fn time() -> impl Strategy<Value = f64> {
    prop_oneof![any::<f64>(), 0.0..1000.0f64, Just(f64::NAN), Just(-1.0)]
}

/// A count: mostly small, sometimes at the edge of its type.
pub(super) fn count64() -> impl Strategy<Value = u64> {
    prop_oneof![4 => 0u64..1000, 1 => any::<u64>(), 1 => Just(u64::MAX)]
}

pub(super) fn count32() -> impl Strategy<Value = u32> {
    prop_oneof![4 => 0u32..1000, 1 => any::<u32>()]
}

pub(super) fn reason() -> impl Strategy<Value = FinishReason> {
    prop_oneof![
        Just(FinishReason::Stop),
        Just(FinishReason::Length),
        Just(FinishReason::Abort),
        Just(FinishReason::Error),
        Just(FinishReason::Repetition),
    ]
}

fn event() -> impl Strategy<Value = (EventType, f64)> {
    (
        prop_oneof![
            Just(EventType::Queued),
            Just(EventType::Scheduled),
            Just(EventType::Preempted)
        ],
        time(),
    )
}

fn prefill() -> impl Strategy<Value = PrefillStats> {
    (count32(), count32(), count32(), count32(), count32()).prop_map(|(p, c, k, l, e)| {
        PrefillStats {
            num_prompt_tokens: p,
            num_computed_tokens: c,
            num_cached_tokens: k,
            num_local_cached_tokens: l,
            num_external_cached_tokens: e,
        }
    })
}

pub(super) fn output() -> impl Strategy<Value = RequestOutput> {
    (
        0usize..4,
        prop::option::weighted(0.2, reason()),
        prop::collection::vec(event(), 0..3),
        prop::option::weighted(0.3, prefill()),
    )
        .prop_map(|(n, finish_reason, events, prefill_stats)| RequestOutput {
            new_token_ids: vec![1; n],
            finish_reason,
            events,
            prefill_stats,
        })
}

fn prefix_stats() -> impl Strategy<Value = PrefixCacheStats> {
    (count64(), count64()).prop_map(|(queries, hits)| PrefixCacheStats {
        queries,
        hits,
        ..PrefixCacheStats::default()
    })
}

/// A connector's prefix-cache stats: its hits by tier too.
fn connector_prefix_stats() -> impl Strategy<Value = PrefixCacheStats> {
    (
        prefix_stats(),
        (count64(), count64(), count64(), count64(), count64()),
    )
        .prop_map(|(stats, (device, host, p2p, disk, external_unspecified))| {
            PrefixCacheStats {
                hits_by_source: CachedTokensBySource {
                    device,
                    host,
                    p2p,
                    disk,
                    external_unspecified,
                },
                ..stats
            }
        })
}

fn nixl_stats() -> impl Strategy<Value = NixlStats> {
    let values = || prop::collection::vec(count64(), 0..3);
    (
        prop::collection::vec(time(), 0..3),
        prop::collection::vec(time(), 0..3),
        values(),
        values(),
        (values(), values(), values()),
    )
        .prop_map(
            |(transfer_duration, post_duration, bytes_transferred, num_descriptors, counters)| {
                NixlStats {
                    transfer_duration,
                    post_duration,
                    bytes_transferred,
                    num_descriptors,
                    num_failed_transfers: counters.0,
                    num_failed_notifications: counters.1,
                    num_kv_expired_reqs: counters.2,
                }
            },
        )
}

fn mooncake_record() -> impl Strategy<Value = MooncakeRecord> {
    (
        time(),
        count64(),
        count64(),
        prop::sample::select(MooncakeStatus::VARIANTS.to_vec()),
        count64(),
    )
        .prop_map(
            |(duration_seconds, num_keys, num_bytes, status, num_failed_keys)| MooncakeRecord {
                duration_seconds,
                num_keys,
                num_bytes,
                status,
                num_failed_keys,
            },
        )
}

fn connector_stats() -> impl Strategy<Value = KvConnectorStats> {
    (
        prop::collection::vec(nixl_stats(), 0..3),
        prop::option::of(
            prop::collection::btree_map(
                prop::sample::select(MooncakeOperation::VARIANTS.to_vec()),
                prop::collection::vec(mooncake_record(), 0..3),
                0..3,
            )
            .prop_map(MooncakeStats),
        ),
    )
        .prop_map(|(nixl, mooncake)| KvConnectorStats { nixl, mooncake })
}

fn sleep_state() -> impl Strategy<Value = EngineSleepState> {
    (
        any::<bool>(),
        prop::sample::select(WeightsState::VARIANTS.to_vec()),
        prop::sample::select(KvCacheState::VARIANTS.to_vec()),
    )
        .prop_map(|(scheduler_paused, weights, kv_cache)| EngineSleepState {
            scheduler_paused,
            weights,
            kv_cache,
        })
}

fn eviction() -> impl Strategy<Value = KvCacheEvictionEvent> {
    (time(), time(), prop::collection::vec(time(), 0..3)).prop_map(|(l, i, g)| {
        KvCacheEvictionEvent {
            lifetime_seconds: l,
            idle_seconds: i,
            reuse_gaps_seconds: g,
        }
    })
}

pub(super) fn scheduler_stats() -> impl Strategy<Value = SchedulerStats> {
    (
        (count64(), count64(), count64(), any::<f64>()),
        prefix_stats(),
        prop::option::of(connector_prefix_stats()),
        // Per-position vectors up to 3x the configured positions; small values keep the
        // expected total exact (the series saturate one by one).
        prop::option::of((count64(), prop::collection::vec(0u64..1000, 0..10))),
        prop::option::of((count64(), count64(), count64())),
        prop::collection::vec(eviction(), 0..3),
        prop::option::weighted(0.2, (count64(), "[A-Z]{0,6}")),
        (
            prop::option::weighted(0.3, connector_stats()),
            prop::option::weighted(0.3, sleep_state()),
            prop::bool::weighted(0.1),
        ),
    )
        .prop_map(
            |(
                (running, waiting, skipped, usage),
                prefix,
                connector,
                spec,
                perf,
                ev,
                cg,
                (kv_connector_stats, sleep_state, sleep_state_only),
            )| {
                SchedulerStats {
                    num_running_reqs: running,
                    num_waiting_reqs: waiting,
                    num_skipped_waiting_reqs: skipped,
                    kv_cache_usage: usage,
                    prefix_cache_stats: prefix,
                    connector_prefix_cache_stats: connector,
                    spec_decoding_stats: spec.map(|(drafts, per_pos)| SpecDecodingStats {
                        num_spec_tokens: SPEC_POSITIONS as u64,
                        num_drafts: drafts,
                        num_draft_tokens: drafts,
                        num_accepted_tokens: per_pos.iter().sum(),
                        num_accepted_tokens_per_pos: per_pos,
                    }),
                    perf_stats: perf.map(|(f, r, w)| PerfStats {
                        num_flops_per_gpu: f,
                        num_read_bytes_per_gpu: r,
                        num_write_bytes_per_gpu: w,
                    }),
                    kv_cache_eviction_events: ev,
                    cudagraph_stats: cg.map(|(n, mode)| CudagraphStats {
                        num_unpadded_tokens: n,
                        num_padded_tokens: n,
                        num_paddings: 0,
                        runtime_mode: mode,
                    }),
                    kv_connector_stats,
                    sleep_state,
                    sleep_state_only,
                }
            },
        )
}
