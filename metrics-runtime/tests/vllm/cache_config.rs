//! `vllm:cache_config_info`: one info series per engine, labelled as vLLM's Python server
//! labels it (`CacheConfig.metrics_info()` and `engine`), replaced when the configuration
//! changes and removed with the engine.

use crate::support::vllm::*;
use metric_handles::vllm::cache_config::CacheConfig;

fn profiled(blocks: u64) -> CacheConfig {
    CacheConfig {
        num_gpu_blocks: Some(blocks),
        kv_cache_size_tokens: Some(blocks * 16),
        kv_cache_max_concurrency: Some(2.58203125),
        ..CacheConfig::default()
    }
}

#[test]
fn each_engine_exports_its_cache_config_as_vllm_labels_it() {
    let (registry, metrics) = setup_default();
    metrics.cache_config().set(0, &CacheConfig::default());
    metrics.cache_config().set(1, &profiled(661));
    let text = crate::support::exposition::encode_text(&registry);
    assert!(
        text.contains("# TYPE vllm:cache_config_info gauge\n"),
        "{text}"
    );
    let expected = "vllm:cache_config_info{block_size=\"16\",gpu_memory_utilization=\"0.92\",\
        cache_dtype=\"auto\",is_attention_free=\"False\",num_gpu_blocks_override=\"None\",\
        sliding_window=\"None\",enable_prefix_caching=\"True\",prefix_caching_hash_algo=\"sha256\",\
        num_gpu_blocks=\"661\",num_cpu_blocks=\"None\",kv_cache_size_tokens=\"10576\",\
        kv_cache_max_concurrency=\"2.58203125\",kv_cache_memory_bytes=\"None\",\
        kv_offloading_size=\"None\",kv_offloading_backend=\"native\",engine=\"1\"} 1\n";
    assert!(text.contains(expected), "{text}");
    let s = scrape(&registry);
    assert_eq!(s.find("vllm:cache_config_info", &[]).len(), 2);
    assert!(s.has(
        "vllm:cache_config_info",
        &[("engine", "0"), ("num_gpu_blocks", "None")]
    ));
}

#[test]
fn a_new_configuration_replaces_the_engine_s_series_and_removal_drops_it() {
    let (registry, metrics) = setup_default();
    metrics.scheduler().add_engine(2);
    metrics.cache_config().set(2, &CacheConfig::default());
    metrics.cache_config().set(2, &profiled(4096));
    // Setting the same configuration again changes nothing.
    metrics.cache_config().set(2, &profiled(4096));
    let s = scrape(&registry);
    let series = s.find("vllm:cache_config_info", &[("engine", "2")]);
    assert_eq!(series.len(), 1, "{series:?}");
    assert!(s.has("vllm:cache_config_info", &[("num_gpu_blocks", "4096")]));

    assert!(metrics.scheduler().remove_engine(2));
    let s = scrape(&registry);
    assert!(s.find("vllm:cache_config_info", &[]).is_empty());
    assert!(!metrics.cache_config().remove(2), "already removed");
}
