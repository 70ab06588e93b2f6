//! `vllm:cache_config_info`: each engine's KV-cache configuration, as labels of an info series.
//!
//! vLLM's Python server exports it from `PrometheusStatLogger.log_metrics_info` in
//! `vllm/v1/metrics/loggers.py`: a gauge fixed at 1 per engine, labelled with every field of
//! the engine's `CacheConfig` (`CacheConfig.metrics_info` in `vllm/config/cache.py`: each
//! field's Python `str()`, so `None`, `True`, `0.92`) and `engine`, with no `model_name`.
//! Here it is an [`Info`] family named `vllm:cache_config`: the Prometheus text reads
//! `vllm:cache_config_info{...} 1` under `# TYPE vllm:cache_config_info gauge`, as vLLM writes
//! it, and OpenMetrics types it `info`. The labels are the fields a serving frontend knows of
//! its engines' cache, in `CacheConfig`'s declaration order; the fields vLLM adds for model
//! kinds a frontend does not configure (Mamba state, layouts, checkpoint intervals) are left
//! out.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::vllm::sync::lock;
use crate::{Family, Info, LabelSet, MetricHandles};

/// An engine's KV-cache configuration: the fields of vLLM's `CacheConfig`
/// (`vllm/config/cache.py`) that `vllm:cache_config_info` exports. `None` is exported as
/// Python's `None`, as vLLM does for a value not known (yet).
#[derive(Clone, Debug, PartialEq)]
pub struct CacheConfig {
    /// Tokens per KV-cache block.
    pub block_size: u32,
    /// The fraction of GPU memory the engine may use.
    pub gpu_memory_utilization: f64,
    /// The KV-cache data type (`auto`, `fp8`, ...).
    pub cache_dtype: String,
    /// Whether the model is attention-free.
    pub is_attention_free: bool,
    /// The number of GPU blocks forced by configuration.
    pub num_gpu_blocks_override: Option<u64>,
    /// The sliding window, in tokens.
    pub sliding_window: Option<u64>,
    /// Whether prefix caching is on.
    pub enable_prefix_caching: bool,
    /// The prefix-caching hash (`sha256`, `xxhash`, ...).
    pub prefix_caching_hash_algo: String,
    /// The GPU blocks allocated (known after profiling).
    pub num_gpu_blocks: Option<u64>,
    /// The CPU blocks allocated.
    pub num_cpu_blocks: Option<u64>,
    /// The engine's KV-cache capacity in tokens.
    pub kv_cache_size_tokens: Option<u64>,
    /// How many requests of the maximum length fit in the KV cache at once.
    pub kv_cache_max_concurrency: Option<f64>,
    /// The KV-cache size per GPU in bytes, when configured.
    pub kv_cache_memory_bytes: Option<u64>,
    /// The KV-offloading buffer in GiB, when offloading is on.
    pub kv_offloading_size: Option<f64>,
    /// The KV-offloading backend (`native`, `lmcache`).
    pub kv_offloading_backend: String,
}

/// vLLM's defaults (`vllm/config/cache.py`), with nothing allocated yet.
impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            block_size: 16,
            gpu_memory_utilization: 0.92,
            cache_dtype: "auto".into(),
            is_attention_free: false,
            num_gpu_blocks_override: None,
            sliding_window: None,
            enable_prefix_caching: true,
            prefix_caching_hash_algo: "sha256".into(),
            num_gpu_blocks: None,
            num_cpu_blocks: None,
            kv_cache_size_tokens: None,
            kv_cache_max_concurrency: None,
            kv_cache_memory_bytes: None,
            kv_offloading_size: None,
            kv_offloading_backend: "native".into(),
        }
    }
}

/// The labels of `vllm:cache_config_info`: [`CacheConfig`]'s fields as Python's `str()`
/// spells them, then `engine`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct CacheConfigLabels {
    /// [`CacheConfig::block_size`] as Python's `str()` spells it.
    pub block_size: String,
    /// [`CacheConfig::gpu_memory_utilization`] as Python's `str()` spells it.
    pub gpu_memory_utilization: String,
    /// [`CacheConfig::cache_dtype`] as Python's `str()` spells it.
    pub cache_dtype: String,
    /// [`CacheConfig::is_attention_free`] as Python's `str()` spells it.
    pub is_attention_free: String,
    /// [`CacheConfig::num_gpu_blocks_override`] as Python's `str()` spells it.
    pub num_gpu_blocks_override: String,
    /// [`CacheConfig::sliding_window`] as Python's `str()` spells it.
    pub sliding_window: String,
    /// [`CacheConfig::enable_prefix_caching`] as Python's `str()` spells it.
    pub enable_prefix_caching: String,
    /// [`CacheConfig::prefix_caching_hash_algo`] as Python's `str()` spells it.
    pub prefix_caching_hash_algo: String,
    /// [`CacheConfig::num_gpu_blocks`] as Python's `str()` spells it.
    pub num_gpu_blocks: String,
    /// [`CacheConfig::num_cpu_blocks`] as Python's `str()` spells it.
    pub num_cpu_blocks: String,
    /// [`CacheConfig::kv_cache_size_tokens`] as Python's `str()` spells it.
    pub kv_cache_size_tokens: String,
    /// [`CacheConfig::kv_cache_max_concurrency`] as Python's `str()` spells it.
    pub kv_cache_max_concurrency: String,
    /// [`CacheConfig::kv_cache_memory_bytes`] as Python's `str()` spells it.
    pub kv_cache_memory_bytes: String,
    /// [`CacheConfig::kv_offloading_size`] as Python's `str()` spells it.
    pub kv_offloading_size: String,
    /// [`CacheConfig::kv_offloading_backend`] as Python's `str()` spells it.
    pub kv_offloading_backend: String,
    /// The engine's index.
    pub engine: String,
}

impl CacheConfigLabels {
    /// `config`'s labels for `engine`.
    pub fn new(engine: u32, config: &CacheConfig) -> Self {
        CacheConfigLabels {
            block_size: config.block_size.to_string(),
            gpu_memory_utilization: python_float(config.gpu_memory_utilization),
            cache_dtype: config.cache_dtype.clone(),
            is_attention_free: python_bool(config.is_attention_free).into(),
            num_gpu_blocks_override: python_option(config.num_gpu_blocks_override),
            sliding_window: python_option(config.sliding_window),
            enable_prefix_caching: python_bool(config.enable_prefix_caching).into(),
            prefix_caching_hash_algo: config.prefix_caching_hash_algo.clone(),
            num_gpu_blocks: python_option(config.num_gpu_blocks),
            num_cpu_blocks: python_option(config.num_cpu_blocks),
            kv_cache_size_tokens: python_option(config.kv_cache_size_tokens),
            kv_cache_max_concurrency: config
                .kv_cache_max_concurrency
                .map_or_else(|| "None".into(), python_float),
            kv_cache_memory_bytes: python_option(config.kv_cache_memory_bytes),
            kv_offloading_size: config
                .kv_offloading_size
                .map_or_else(|| "None".into(), python_float),
            kv_offloading_backend: config.kv_offloading_backend.clone(),
            engine: engine.to_string(),
        }
    }
}

/// The family. Help text is vLLM's.
#[derive(Debug, MetricHandles)]
#[metric_handles(handles = CacheConfigHandles, labels = CacheConfigLabels)]
pub struct CacheConfigMetrics {
    /// Information of the LLMEngine CacheConfig
    ///
    /// # Computed
    ///
    /// `VllmMetrics::cache_config().set(engine, &CacheConfig)`: one series per engine, labelled
    /// with the engine's `CacheConfig` fields (Python's `str()` of each: `None`, `True`,
    /// `0.92`) and `engine`, value 1; setting another configuration replaces the engine's
    /// series, and removing the engine removes it. No `model_name` label, as in vLLM. An info
    /// family: the Prometheus text names it `vllm:cache_config_info` with type `gauge`, as
    /// vLLM's Python server does (`log_metrics_info` in `vllm/v1/metrics/loggers.py`).
    #[metric(name = "vllm:cache_config", max_label_sets = 1024)]
    pub cache_config: Family<CacheConfigLabels, Info>,
}

/// Sets `vllm:cache_config_info` per engine. Obtained from
/// [`VllmMetrics::cache_config`](crate::vllm::VllmMetrics::cache_config); cheap to clone,
/// clones share the series.
#[derive(Clone, Debug)]
pub struct CacheConfigRecorder {
    family: Family<CacheConfigLabels, Info>,
    /// Each engine's current labels: what `set` replaces and `remove` removes.
    current: Arc<Mutex<BTreeMap<u32, CacheConfigLabels>>>,
}

impl CacheConfigRecorder {
    pub(crate) fn new(metrics: &CacheConfigMetrics) -> Self {
        CacheConfigRecorder {
            family: metrics.cache_config.clone(),
            current: Arc::default(),
        }
    }

    /// Exports `config` as `engine`'s cache configuration, replacing what was set before.
    ///
    /// A slow path (it formats, hashes, locks and allocates): call it when an engine joins
    /// or its configuration changes (`num_gpu_blocks` is known after profiling).
    pub fn set(&self, engine: u32, config: &CacheConfig) {
        let labels = CacheConfigLabels::new(engine, config);
        // The lock orders concurrent updates of one engine.
        let mut current = lock(&self.current);
        if let Some(previous) = current.get(&engine) {
            if *previous == labels {
                return;
            }
            self.family.remove(previous);
        }
        self.family.get_or_create(&labels);
        current.insert(engine, labels);
    }

    /// Removes `engine`'s series; returns whether it had one.
    pub fn remove(&self, engine: u32) -> bool {
        let mut current = lock(&self.current);
        match current.remove(&engine) {
            Some(labels) => self.family.remove(&labels),
            None => false,
        }
    }
}

/// Python's `str()` of a `bool`.
fn python_bool(value: bool) -> &'static str {
    if value {
        "True"
    } else {
        "False"
    }
}

/// Python's `str()` of an optional integer.
fn python_option(value: Option<u64>) -> String {
    value.map_or_else(|| "None".into(), |value| value.to_string())
}

/// Python's `str()` (`repr`) of a float: the shortest digits that round-trip, always with a
/// `.0` or an exponent, in exponent form below 1e-4 and from 1e16 (`1e-05`, `1e+16`), and
/// `nan`, `inf`, `-inf`.
fn python_float(value: f64) -> String {
    if value.is_nan() {
        return "nan".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.into();
    }
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-4..1e16).contains(&magnitude) {
        let text = format!("{value:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let (sign, digits) = match exponent.strip_prefix('-') {
            Some(digits) => ('-', digits),
            None => ('+', exponent),
        };
        return format!("{mantissa}e{sign}{digits:0>2}");
    }
    let text = value.to_string();
    if text.contains('.') {
        text
    } else {
        format!("{text}.0")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_spelled_as_python_s_str_spells_them() {
        let cases = [
            (0.92, "0.92"),
            (1.0, "1.0"),
            (4.0, "4.0"),
            (0.0, "0.0"),
            (-2.5, "-2.5"),
            (2.58203125, "2.58203125"),
            (1e-5, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (123456789012345.0, "123456789012345.0"),
            (f64::NAN, "nan"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (value, expected) in cases {
            assert_eq!(python_float(value), expected, "{value}");
        }
    }

    #[test]
    fn labels_spell_none_and_booleans_as_python_does() {
        let labels = CacheConfigLabels::new(3, &CacheConfig::default());
        assert_eq!(labels.num_gpu_blocks, "None");
        assert_eq!(labels.enable_prefix_caching, "True");
        assert_eq!(labels.is_attention_free, "False");
        assert_eq!(labels.gpu_memory_utilization, "0.92");
        assert_eq!(labels.engine, "3");
    }
}
