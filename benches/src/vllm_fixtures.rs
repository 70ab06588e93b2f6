//! The vLLM recorders under comparison (ours and the per-record-lookup baseline) and their
//! realistic inputs: one request's 128 outputs, and one scheduler step.

use metric_handles::vllm::request::{
    EventType, FinishReason, PrefillStats, RequestOutput, RequestParams,
};
use metric_handles::vllm::scheduler::{
    KvCacheEvictionEvent, PerfStats, PrefixCacheStats, SchedulerStats, SpecDecodingStats,
};
use metric_handles::vllm::{VllmMetrics, VllmMetricsConfig};
use metric_handles::Registry;
use prometheus_client::registry::Registry as BaselineRegistry;

use crate::baseline::LookupMetrics;
use crate::fixtures::MODEL_NAME;

/// Outputs per request in the lifecycle benchmark.
pub const OUTPUTS: usize = 128;

/// Speculative tokens per draft (positions pre-resolved by the recorder).
pub const SPEC_TOKENS: usize = 3;

/// Ours and the baseline, each registered in its own registry for [`MODEL_NAME`] with
/// [`SPEC_TOKENS`] speculative tokens, engine 0 already seen.
pub fn recorders() -> (Registry, VllmMetrics, BaselineRegistry, LookupMetrics) {
    let mut ours_registry = Registry::default();
    let ours = VllmMetrics::register(
        &mut ours_registry,
        VllmMetricsConfig {
            model_name: MODEL_NAME.to_owned(),
            num_speculative_tokens: SPEC_TOKENS,
            ..Default::default()
        },
    );
    ours.scheduler().add_engine(0);
    let mut baseline_registry = BaselineRegistry::default();
    let baseline = LookupMetrics::register(&mut baseline_registry, MODEL_NAME);
    (ours_registry, ours, baseline_registry, baseline)
}

/// One request: its parameters, and `OUTPUTS` outputs with their engine batch timestamp and
/// frontend receive time. Built once, outside the timed loop.
#[derive(Debug)]
pub struct Request {
    /// The tracker's parameters.
    pub params: RequestParams,
    /// `(batch_timestamp, received_at, output)`.
    pub outputs: Vec<(f64, f64, RequestOutput)>,
}

/// A request that is queued, scheduled, prefilled (with a prefix-cache hit), then decodes one
/// token per output for `OUTPUTS` outputs, the last one finishing with `length`.
pub fn request() -> Request {
    let arrival = 1_700_000_000.0;
    let outputs = (0..OUTPUTS)
        .map(|i| {
            let step = i as f64 * 0.02;
            let mut output = RequestOutput {
                new_token_ids: vec![7],
                ..Default::default()
            };
            if i == 0 {
                output.events = vec![(EventType::Queued, 100.0), (EventType::Scheduled, 100.01)];
                output.prefill_stats = Some(PrefillStats {
                    num_prompt_tokens: 512,
                    num_computed_tokens: 256,
                    num_cached_tokens: 256,
                    num_local_cached_tokens: 256,
                    num_external_cached_tokens: 0,
                });
            }
            if i + 1 == OUTPUTS {
                output.finish_reason = Some(FinishReason::Length);
            }
            (100.05 + step, arrival + 0.06 + step, output)
        })
        .collect();
    Request {
        params: RequestParams {
            arrival_time: arrival,
            prompt_len: 512,
            max_tokens_param: Some(OUTPUTS as u32),
            n_param: 1,
        },
        outputs,
    }
}

/// A busy step of an engine with spec decoding, perf stats and one KV-block eviction.
pub fn scheduler_stats() -> SchedulerStats {
    SchedulerStats {
        num_running_reqs: 32,
        num_waiting_reqs: 4,
        num_skipped_waiting_reqs: 1,
        kv_cache_usage: 0.42,
        prefix_cache_stats: PrefixCacheStats {
            requests: 4,
            queries: 2048,
            hits: 1024,
            ..Default::default()
        },
        spec_decoding_stats: Some(SpecDecodingStats {
            num_spec_tokens: SPEC_TOKENS as u64,
            num_drafts: 8,
            num_draft_tokens: 24,
            num_accepted_tokens: 15,
            num_accepted_tokens_per_pos: vec![7, 5, 3],
        }),
        perf_stats: Some(PerfStats {
            num_flops_per_gpu: 1 << 40,
            num_read_bytes_per_gpu: 1 << 30,
            num_write_bytes_per_gpu: 1 << 28,
        }),
        kv_cache_eviction_events: vec![KvCacheEvictionEvent {
            lifetime_seconds: 12.5,
            idle_seconds: 3.0,
            reuse_gaps_seconds: vec![0.5, 2.0],
        }],
        ..Default::default()
    }
}

/// Records one scheduler step and one request's outputs into each of engines `0..engines`:
/// the 64-engine registry the scrape and export benchmarks read.
pub fn record_engines(ours: &VllmMetrics, engines: u32) {
    let stats = scheduler_stats();
    let request = request();
    for engine in 0..engines {
        ours.scheduler().record(engine, &stats);
        let mut tracker = ours.requests().track(engine, request.params);
        for (batch, received, output) in &request.outputs {
            tracker.observe_output(*batch, *received, output);
        }
    }
}
