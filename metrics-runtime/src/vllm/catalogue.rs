//! vLLM's metric catalogue: the generic [`Catalogue`] over the descriptor tables, plus a
//! hand-written "how computed" text per metric.

use super::buckets::{
    ITERATION_TOKENS_BUCKETS, ITL_BUCKETS, KV_RESIDENCY_BUCKETS, MOONCAKE_OPERATION_TIME_BUCKETS,
    NIXL_BYTES_BUCKETS, NIXL_DESCRIPTORS_BUCKETS, NIXL_POST_TIME_BUCKETS, NIXL_XFER_TIME_BUCKETS,
    PARAMS_N_BUCKETS, PREEMPTIONS_BUCKETS, REQUEST_LATENCY_BUCKETS, SLEEP_MODE_DURATION_BUCKETS,
    TOKENS_BUCKETS_DEFAULT_MAX, TTFT_BUCKETS,
};
use super::request::metrics::RequestMetrics;
use super::scheduler::connectors::{MOONCAKE_DESCRIPTORS, NIXL_DESCRIPTORS};
use super::scheduler::lora_info::LoraInfoMetrics;
use super::scheduler::metrics::SchedulerMetrics;
use super::sleep::mode::SleepModeMetrics;
use super::sleep::state::SLEEP_STATE_DESCRIPTORS;
use crate::catalogue::Catalogue;
use crate::http::{
    HttpMetrics, HTTP_REQUEST_DURATION_BUCKETS, HTTP_REQUEST_DURATION_HIGHR_BUCKETS,
};
use crate::MetricDescriptor;

/// How the recorders compute each metric, keyed by its primary name.
pub(crate) fn how_computed(name: &str) -> Option<&'static str> {
    Some(match name {
        "vllm:num_requests_running" => "Set to `num_running_reqs` of each `SchedulerStats`.",
        "vllm:num_requests_waiting" => {
            "Set to `num_waiting_reqs + num_skipped_waiting_reqs` (saturating)."
        }
        "vllm:num_requests_waiting_by_reason" => {
            "`capacity` set to `num_waiting_reqs`, `deferred` to `num_skipped_waiting_reqs`. Both \
             series exist from the engine's first sight."
        }
        "vllm:kv_cache_usage_perc" => {
            "Set to `kv_cache_usage`, a fraction (1.0 = full) despite the name, clamped to 0..1 \
             (NaN records 0)."
        }
        "vllm:prefix_cache_queries" => "Increased by `prefix_cache_stats.queries` (tokens queried).",
        "vllm:prefix_cache_hits" => "Increased by `prefix_cache_stats.hits` (tokens hit).",
        "vllm:external_prefix_cache_queries" => {
            "Increased by `connector_prefix_cache_stats.queries`, only when connector stats are \
             present."
        }
        "vllm:external_prefix_cache_hits" => {
            "Increased by `connector_prefix_cache_stats.hits`, only when connector stats are \
             present."
        }
        "vllm:spec_decode_num_drafts" => {
            "Increased by `spec_decoding_stats.num_drafts`, only when spec-decode stats are present."
        }
        "vllm:spec_decode_num_draft_tokens" => {
            "Increased by `spec_decoding_stats.num_draft_tokens`, only when spec-decode stats are \
             present."
        }
        "vllm:spec_decode_num_accepted_tokens" => {
            "Increased by `spec_decoding_stats.num_accepted_tokens`, only when spec-decode stats \
             are present."
        }
        "vllm:spec_decode_num_accepted_tokens_per_pos" => {
            "Position `i` increased by `num_accepted_tokens_per_pos[i]`. Positions \
             `0..num_speculative_tokens` are pre-resolved (array index); a position beyond goes \
             through a bounded lookup."
        }
        "vllm:estimated_flops_per_gpu" => {
            "Increased by `perf_stats.num_flops_per_gpu`, only when perf stats are present and any \
             of the three perf values is non-zero."
        }
        "vllm:estimated_read_bytes_per_gpu" => {
            "Increased by `perf_stats.num_read_bytes_per_gpu`, same condition as \
             `vllm:estimated_flops_per_gpu`."
        }
        "vllm:estimated_write_bytes_per_gpu" => {
            "Increased by `perf_stats.num_write_bytes_per_gpu`, same condition as \
             `vllm:estimated_flops_per_gpu`."
        }
        "vllm:kv_block_lifetime_seconds" => {
            "Observes each eviction event's `lifetime_seconds` (negative values record 0)."
        }
        "vllm:kv_block_idle_before_evict_seconds" => {
            "Observes each eviction event's `idle_seconds` (negative values record 0)."
        }
        "vllm:kv_block_reuse_gap_seconds" => {
            "Observes every gap of every eviction event's `reuse_gaps_seconds`."
        }
        "vllm:iteration_tokens_total" => {
            "What vLLM's Rust frontend counts: once per non-empty output batch of the engine \
             (`SchedulerStatsRecorder::record_output_batch`), the batch's computed prompt tokens \
             plus generated tokens: over its outputs, new tokens plus \
             `prefill_stats.num_computed_tokens` when present (`metric_handles::vllm::iteration_tokens`; \
             cached prompt tokens are not counted). An empty batch records nothing. A histogram \
             whose name ends in `_total`, as in vLLM."
        }
        "vllm:prompt_tokens_cached_by_source" => {
            "Per `SchedulerStats`: `device` += `prefix_cache_stats.hits` (every local prefix-cache \
             hit is in device memory); when connector stats are present, each source += \
             `connector_prefix_cache_stats.hits_by_source` of that source. All five sources are \
             exported at 0 from the engine's first sight. Skipped for a `sleep_state_only` update."
        }
        "vllm:request_num_preemptions" => {
            "Observes, when the request finishes, the number of Preempted events it went through \
             (0 for most requests): one observation per finished request or child sequence."
        }
        "vllm:nixl_xfer_time_seconds" => {
            "Observes each `transfer_duration` of each `NixlStats` in `kv_connector_stats.nixl` \
             (negative values record 0). Registered through the plug-in family API; exported at 0 \
             from the engine's first sight, as in vLLM."
        }
        "vllm:nixl_post_time_seconds" => {
            "Observes each `post_duration` of each `NixlStats` (negative values record 0)."
        }
        "vllm:nixl_bytes_transferred" => "Observes each `bytes_transferred` of each `NixlStats`.",
        "vllm:nixl_num_descriptors" => "Observes each `num_descriptors` of each `NixlStats`.",
        "vllm:nixl_num_failed_transfers" => {
            "Increased by every element of `num_failed_transfers` of each `NixlStats` (saturating)."
        }
        "vllm:nixl_num_failed_notifications" => {
            "Increased by every element of `num_failed_notifications` of each `NixlStats` \
             (saturating)."
        }
        "vllm:nixl_num_kv_expired_reqs" => {
            "Increased by every element of `num_kv_expired_reqs` of each `NixlStats` (saturating)."
        }
        "vllm:mooncake_store_operation_time_seconds" => {
            "For each record of each operation in `kv_connector_stats.mooncake`: observes \
             `duration_seconds` (negative values record 0) in the series {operation, record's \
             status}. A pair's five series are resolved through the plug-in family API on its \
             first record, then cached per engine: later records are an array index and atomics."
        }
        "vllm:mooncake_store_operation" => "+1 per Mooncake record, by operation and status.",
        "vllm:mooncake_store_operation_keys" => {
            "Increased by each record's `num_keys`, by operation and status."
        }
        "vllm:mooncake_store_operation_bytes" => {
            "Increased by each record's `num_bytes`, by operation and status."
        }
        "vllm:mooncake_store_operation_failed_keys" => {
            "Increased by each record's `num_failed_keys`, by operation and status."
        }
        "vllm:engine_sleep_resource_state" => {
            "On each `SchedulerStats` carrying `sleep_state` (also a `sleep_state_only` update): \
             for each resource, 1 on its current state's series, 0 on the others; the nine \
             valid {resource, state} series (scheduler: running, paused; weights: resident, \
             offloaded, discarded, unknown; kv_cache: resident, released, unknown) appear with \
             the engine's first snapshot. An unrecognised state decodes to `unknown`."
        }
        "vllm:engine_fully_awake" => {
            "Set with each snapshot: 1 when `scheduler_paused` is false and weights and KV cache \
             are `resident`, else 0. Absent until the engine's first snapshot."
        }
        "vllm:sleep_mode_operation_duration_seconds" => {
            "`VllmMetrics::sleep_mode().begin(operation)` returns a guard; dropping it (success, \
             failure or cancellation) observes the elapsed time, once. vLLM's three operations \
             (`sleep`, `release_kv_cache_memory`, `wake`: the complete set) are exported from \
             registration."
        }
        "vllm:sleep_mode_operations_in_flight" => {
            "+1 by `begin(operation)`, -1 when its guard is dropped."
        }
        "vllm:lora_requests_info" => {
            "`VllmMetrics::lora().update(&LoraState)`: one series labelled with the running and \
             waiting adapter names (sorted, comma-joined), set to the unix time of the update; \
             the previous series is removed when the sets change, and no series is exported \
             while both sets are empty. No `model_name`/`engine` labels, as in vLLM. This is \
             the Rust frontend's `LoraInfoExporter`; vLLM's Python frontend also exports a \
             series with empty adapter labels while idle and a `max_lora` label."
        }
        "http_requests" => {
            "+1 per HTTP request, by method, status class (`2xx`...) and matched route template \
             (`none` when no route matched), recorded by an HTTP layer through \
             `metric_handles::http::HttpMetrics`; requests to `EXCLUDED_HANDLERS` are not counted."
        }
        "http_request_duration_seconds" => {
            "Observes each request's duration, by method and route template (same exclusions)."
        }
        "http_request_duration_highr_seconds" => {
            "Observes each request's duration, unlabelled (same exclusions)."
        }
        "vllm:request_success" => {
            "+1 for the finish reason when a request finishes (every reason counts, despite the \
             name). A tracker dropped without a finish counts as `abort`, once. All five reasons \
             are exported at 0 from the engine's first sight."
        }
        "vllm:prompt_tokens" => {
            "Increased by `prefill_stats.num_prompt_tokens` of the request's first token-carrying \
             output, when that output has prefill stats (once per request)."
        }
        "vllm:prompt_tokens_by_source" => {
            "Once per request, with the prompt counters: `local_compute` += `num_computed_tokens`, \
             `local_cache_hit` += `num_local_cached_tokens`, `external_kv_transfer` += \
             `num_external_cached_tokens`."
        }
        "vllm:prompt_tokens_cached" => {
            "Increased by `num_cached_tokens` with the prompt counters (once per request)."
        }
        "vllm:generation_tokens" => {
            "Increased by the number of new tokens of every output, as the output arrives (only \
             the inter-token-latency samples are merged in batches)."
        }
        "vllm:num_preemptions" => "+1 per Preempted event in a request's outputs.",
        "vllm:request_prompt_tokens" => "Observes `prompt_len` when the request finishes.",
        "vllm:request_generation_tokens" => {
            "Observes the request's generated tokens when it finishes."
        }
        "vllm:request_max_num_generation_tokens" => {
            "Observes the generated tokens when the request finishes; for a parallel-sampling \
             parent (`track_parallel`), the most any child generated, once, when the last child \
             finishes."
        }
        "vllm:request_params_max_tokens" => {
            "Observes `max_tokens_param` when the request finishes, only when it was given."
        }
        "vllm:request_params_n" => {
            "Observes `n_param` when the request finishes; for a parallel-sampling parent, the \
             real `n` once, when the last child finishes."
        }
        "vllm:request_prefill_kv_computed_tokens" => {
            "Observes `prompt_len` minus the latest `prefill_stats.num_cached_tokens` seen \
             (saturating at 0) when the request finishes."
        }
        "vllm:time_to_first_token_seconds" => {
            "Observes `received_at - arrival_time` on the request's first output that carries a \
             token (never on a token-less output)."
        }
        "vllm:inter_token_latency_seconds" => {
            "Observes `batch_timestamp - last token's batch_timestamp` on every later output that \
             carries a token: one sample per output batch, however many tokens it carries. The \
             tracker keeps the samples and merges them every 32 generated tokens and at the \
             finish, as vLLM's Rust frontend does (`VLLM_RS_ITL_FLUSH_INTERVAL_TOKENS`)."
        }
        "vllm:request_time_per_output_token_seconds" => {
            "Observes decode time / (generated tokens - 1) when the request finishes with more \
             than one token, else 0."
        }
        "vllm:e2e_request_latency_seconds" => {
            "Observes `received_at - arrival_time` of the finishing output (or of the abort)."
        }
        "vllm:request_queue_time_seconds" => {
            "Observes `diff_or_zero(scheduled, queued)`: the first Scheduled event and the last \
             Queued event; 0 unless both were seen."
        }
        "vllm:request_prefill_time_seconds" => {
            "Observes `diff_or_zero(first token, scheduled)`: includes time spent preempted, since \
             the first Scheduled event is kept."
        }
        "vllm:request_decode_time_seconds" => {
            "Observes `diff_or_zero(last token, first token)` (engine clock)."
        }
        "vllm:request_inference_time_seconds" => {
            "Observes `diff_or_zero(last token, scheduled)` (engine clock)."
        }
        _ => return None,
    })
}

/// The vLLM sources (file and commit of `vllm-project/vllm`) this metric set was matched
/// against.
const VLLM_SOURCES: &[(&str, &str)] = &[
    (
        "rust/src/engine-core-client/src/metrics.rs",
        "028b5aab8189f6c7137c1c2feed73a25ec222ac0",
    ),
    (
        "rust/src/engine-core-client/src/protocol/stats.rs",
        "028b5aab8189f6c7137c1c2feed73a25ec222ac0",
    ),
    (
        "rust/src/metrics/src/request.rs",
        "13dacb061076cdc9db585bbefa5c113430d42ad0",
    ),
    (
        "rust/src/metrics/src/scheduler.rs",
        "01cc1d3e7640a8ada37f99ca60cc3ee66490cf38",
    ),
    (
        "rust/src/metrics/src/api_server.rs",
        "47e7f394085ecdfaa68df604a182ee3c33d8a483",
    ),
    (
        "rust/src/server/src/middleware/metrics.rs",
        "60fc951145fb4e97295f3266a2229adf11f9d694",
    ),
    (
        "rust/src/metrics/src/lib.rs",
        "154aa495a1213d50b56338fcfc408380db8d7569",
    ),
];

/// Every family of the catalogue, by section: (title, descriptors).
fn catalogue_sections() -> Vec<(&'static str, &'static [MetricDescriptor])> {
    vec![
        (
            "Scheduler metrics (`SchedulerMetrics`, one set per engine)",
            SchedulerMetrics::DESCRIPTORS,
        ),
        (
            "Request metrics (`RequestMetrics`, one set per engine)",
            RequestMetrics::DESCRIPTORS,
        ),
        (
            "NIXL connector (plug-in families, one set per engine)",
            NIXL_DESCRIPTORS,
        ),
        (
            "Mooncake store connector (plug-in families, by operation and status)",
            MOONCAKE_DESCRIPTORS,
        ),
        (
            "Engine sleep state (plug-in families, one set per engine)",
            SLEEP_STATE_DESCRIPTORS,
        ),
        (
            "Sleep-mode operations (`SleepModeMetrics`, no model_name/engine labels)",
            SleepModeMetrics::DESCRIPTORS,
        ),
        (
            "LoRA adapters (`LoraInfoMetrics`, no model_name/engine labels)",
            LoraInfoMetrics::DESCRIPTORS,
        ),
        (
            "HTTP API server (`metric_handles::http::HttpMetrics`, registered by the HTTP layer)",
            HttpMetrics::DESCRIPTORS,
        ),
    ]
}

/// vLLM's metric catalogue (the repository's `docs/metrics.md`): every family of vLLM's Rust
/// frontend `/metrics` with its type, labels, buckets, help, how the recorders compute it and
/// its deprecated aliases, generated from the descriptor tables of the vLLM metric structs and
/// of [`HttpMetrics`](crate::http::HttpMetrics).
///
/// A frontend that registers metrics of its own next to vLLM's can add them as another section
/// before rendering:
///
/// ```
/// # use metric_handles::{Counter, Family, MetricHandles, NoLabels};
/// # #[derive(MetricHandles)]
/// # pub struct RouterMetrics {
/// #     /// Requests routed
/// #     #[metric(name = "router:requests")]
/// #     pub requests: Family<NoLabels, Counter>,
/// # }
/// let markdown = metric_handles::vllm::catalogue()
///     .section("Router metrics", RouterMetrics::DESCRIPTORS)
///     .to_markdown();
/// assert!(markdown.contains("### `vllm:num_requests_running`"));
/// assert!(markdown.contains("### `router:requests`"));
/// ```
pub fn catalogue() -> Catalogue {
    let sections = catalogue_sections();
    let families: usize = sections.iter().map(|(_, d)| d.len()).sum();
    let mut sources = String::from(
        "## Matched against\n\n\
         The set, its help texts and the recording rules were matched against these files of \
         `vllm-project/vllm` (newest versions available, by commit):\n\n",
    );
    for (file, commit) in VLLM_SOURCES {
        sources.push_str(&format!("* `{file}` at `{commit}`\n"));
    }
    sources.push_str(
        "\nThe NIXL and Mooncake-store help texts, and the NIXL buckets, are those of vLLM's \
         connectors (`vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py`, \
         `.../mooncake/store/metrics.py`), which the Rust frontend records. The Mooncake-store \
         operation-time buckets are the Rust frontend's own (its `rust/src/metrics/src/scheduler.rs` \
         registers the connector families, 0.001 s to 4 s), not the Python connector's (0.0001 s \
         to 2 s). The help text of `vllm:request_num_preemptions` is the one vLLM documents \
         (`docs/usage/metrics.md`). The help texts of `vllm:prompt_tokens_cached_by_source`, \
         `vllm:engine_sleep_resource_state` and `vllm:engine_fully_awake` are this crate's: the \
         declarations of these three in vLLM were not among the files above.",
    );
    let mut catalogue = Catalogue::new("vLLM metric catalogue")
        .intro(format!(
            "The {families} families of vLLM's Rust frontend `/metrics`, with vLLM's names, types, \
             labels, buckets and help texts: `metric_handles::vllm::VllmMetrics` registers all but \
             the three HTTP families, which `metric_handles::http::HttpMetrics` declares for an HTTP \
             layer. Where the Rust frontend's help text differs from vLLM's Python frontend, the \
             Rust frontend's is used. Per-engine series carry `model_name` and `engine` first. \
             Counters are exposed with the `_total` suffix. The token-count histograms' last bound \
             is `max_model_len` (`VllmMetricsConfig`, default {TOKENS_BUCKETS_DEFAULT_MAX})."
        ))
        .intro(sources)
        .intro(
            "Deprecated aliases are off by default; `VllmMetricsConfig::show_hidden_metrics_for_version` \
             set to the version named below exposes them (vLLM's \
             `--show-hidden-metrics-for-version`). An alias shares its metric's series: recording \
             once updates both names. vLLM deprecated `vllm:gpu_cache_usage_perc`, \
             `vllm:gpu_prefix_cache_queries` and `vllm:gpu_prefix_cache_hits` in 0.9.2 and hides \
             them from 0.11 on, re-enabled with `--show-hidden-metrics-for-version=0.10`; it \
             deprecated `vllm:time_per_output_token_seconds` (same series as \
             `vllm:inter_token_latency_seconds`) in 0.11, re-enabled with `=0.11`. An alias's \
             version below is that flag value; asking for it or any older version shows the \
             alias, so `0.10` restores all four names at once.",
        )
        .intro(
            "Bad input never panics and never puts NaN into a `_sum`: durations from timestamps \
             that are NaN, infinite or out of order record 0 (the sample still counts); \
             `kv_cache_usage` is clamped to 0..1; counter increments saturate at `u64::MAX`; \
             outputs after a request's finish are ignored, counted \
             (`RequestMetricsRecorder::ignored_outputs`) and logged with `tracing::warn!`. The \
             full table is `docs/reliability.md`.",
        );
    for (title, descriptors) in sections {
        catalogue = catalogue.section(title, descriptors);
    }
    catalogue
        .detail("Computed", |d| how_computed(d.name).map(str::to_owned))
        .bucket_name("TTFT_BUCKETS", TTFT_BUCKETS)
        .bucket_name("ITL_BUCKETS", ITL_BUCKETS)
        .bucket_name("REQUEST_LATENCY_BUCKETS", REQUEST_LATENCY_BUCKETS)
        .bucket_name("PARAMS_N_BUCKETS", PARAMS_N_BUCKETS)
        .bucket_name("ITERATION_TOKENS_BUCKETS", ITERATION_TOKENS_BUCKETS)
        .bucket_name("KV_RESIDENCY_BUCKETS", KV_RESIDENCY_BUCKETS)
        .bucket_name("PREEMPTIONS_BUCKETS", PREEMPTIONS_BUCKETS)
        .bucket_name("NIXL_XFER_TIME_BUCKETS", NIXL_XFER_TIME_BUCKETS)
        .bucket_name("NIXL_POST_TIME_BUCKETS", NIXL_POST_TIME_BUCKETS)
        .bucket_name("NIXL_BYTES_BUCKETS", NIXL_BYTES_BUCKETS)
        .bucket_name("NIXL_DESCRIPTORS_BUCKETS", NIXL_DESCRIPTORS_BUCKETS)
        .bucket_name(
            "MOONCAKE_OPERATION_TIME_BUCKETS",
            MOONCAKE_OPERATION_TIME_BUCKETS,
        )
        .bucket_name("SLEEP_MODE_DURATION_BUCKETS", SLEEP_MODE_DURATION_BUCKETS)
        .bucket_name(
            "HTTP_REQUEST_DURATION_BUCKETS",
            HTTP_REQUEST_DURATION_BUCKETS,
        )
        .bucket_name(
            "HTTP_REQUEST_DURATION_HIGHR_BUCKETS",
            HTTP_REQUEST_DURATION_HIGHR_BUCKETS,
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_has_a_how_computed_text() {
        for (_, descriptors) in catalogue_sections() {
            for d in descriptors {
                assert!(how_computed(d.name).is_some(), "{}", d.name);
            }
        }
        assert_eq!(how_computed("vllm:nope"), None);
    }
}
