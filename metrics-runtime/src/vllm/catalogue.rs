//! vLLM's metric catalogue: the generic [`Catalogue`] over the descriptor tables. How each
//! metric is computed is its descriptor's `computed` text, written beside its declaration (a
//! field's `# Computed` doc section, or `MetricDescriptor::with_computed`).

use super::buckets::{
    ITERATION_TOKENS_BUCKETS, ITL_BUCKETS, KV_RESIDENCY_BUCKETS, MOONCAKE_OPERATION_TIME_BUCKETS,
    NIXL_BYTES_BUCKETS, NIXL_DESCRIPTORS_BUCKETS, NIXL_POST_TIME_BUCKETS, NIXL_XFER_TIME_BUCKETS,
    PARAMS_N_BUCKETS, PREEMPTIONS_BUCKETS, REQUEST_LATENCY_BUCKETS, SLEEP_MODE_DURATION_BUCKETS,
    TOKENS_BUCKETS_DEFAULT_MAX, TTFT_BUCKETS,
};
use super::cache_config::CacheConfigMetrics;
use super::connectors::metrics::{MOONCAKE_DESCRIPTORS, NIXL_DESCRIPTORS};
use super::lora::LoraInfoMetrics;
use super::request::metrics::RequestMetrics;
use super::scheduler::metrics::SchedulerMetrics;
use super::sleep::mode::SleepModeMetrics;
use super::sleep::state::SLEEP_STATE_DESCRIPTORS;
use crate::catalogue::Catalogue;
use crate::descriptor::MetricDescriptor;
use crate::http::{
    HttpMetrics, HTTP_REQUEST_DURATION_BUCKETS, HTTP_REQUEST_DURATION_HIGHR_BUCKETS,
};

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
    (
        "vllm/v1/metrics/loggers.py",
        "005a810bc40faa25b8870fbc8559c3462581eee3",
    ),
    (
        "vllm/config/cache.py",
        "002f10e0cfa1373a19a0d2756598a34b700d20e5",
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
            "NIXL connector (one set per engine)",
            NIXL_DESCRIPTORS,
        ),
        (
            "Mooncake store connector (by operation and status)",
            MOONCAKE_DESCRIPTORS,
        ),
        (
            "Engine sleep state (one set per engine)",
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
            "KV-cache configuration (`CacheConfigMetrics`, one series per engine, no model_name label)",
            CacheConfigMetrics::DESCRIPTORS,
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
/// of [`HttpMetrics`].
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
            "The {families} families of vLLM's Rust frontend `/metrics` and its Python server's \
             `vllm:cache_config_info`, with vLLM's names, types, labels, buckets and help texts: \
             `metric_handles::vllm::VllmMetrics` registers all but the three HTTP families, which \
             `metric_handles::http::HttpMetrics` declares for an HTTP layer. Where the Rust \
             frontend's help text differs from vLLM's Python frontend, the Rust frontend's is used. \
             Per-engine series carry `model_name` and `engine` first (`vllm:cache_config_info` \
             only `engine`, as in vLLM). \
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
    fn every_metric_says_how_it_is_computed() {
        for (_, descriptors) in catalogue_sections() {
            for d in descriptors {
                let computed = d.computed.unwrap_or_default();
                assert!(computed.ends_with('.'), "{}: {computed:?}", d.name);
            }
        }
    }
}
