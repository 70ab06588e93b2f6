//! Shared helpers of the vLLM integration tests: set-up, and the encoded Prometheus text
//! exposition read back (with the strict parser of `exposition.rs`), so tests assert on what
//! a scraper sees.
#![allow(dead_code)]

use metric_handles::vllm::request::{
    EventType, FinishReason, PrefillStats, RequestOutput, RequestParams,
};
use metric_handles::vllm::scheduler::{
    CudagraphStats, KvCacheEvictionEvent, PerfStats, PrefixCacheStats, SchedulerStats,
    SpecDecodingStats,
};
use metric_handles::vllm::{VllmMetrics, VllmMetricsConfig};
use metric_handles::Registry;

pub fn setup(config: VllmMetricsConfig) -> (Registry, VllmMetrics) {
    let mut registry = Registry::default();
    let metrics = VllmMetrics::register(&mut registry, config);
    (registry, metrics)
}

pub fn setup_default() -> (Registry, VllmMetrics) {
    setup(VllmMetricsConfig::default())
}

/// The default configuration with `n` speculative tokens (the per-position series it
/// pre-resolves).
pub fn with_spec_tokens(n: usize) -> VllmMetricsConfig {
    VllmMetricsConfig {
        num_speculative_tokens: n,
        ..VllmMetricsConfig::default()
    }
}

/// One sample line: name, labels in order, value.
type Sample = (String, Vec<(String, String)>, f64);

/// The classic-text exposition, parsed into samples.
pub struct Scrape {
    pub text: String,
    samples: Vec<Sample>,
}

pub fn scrape(registry: &Registry) -> Scrape {
    let text = super::exposition::encode_text(registry);
    let samples = super::exposition::parse(&text)
        .into_iter()
        .map(|sample| {
            let value = sample_value(&sample.value);
            (sample.name, sample.labels, value)
        })
        .collect();
    Scrape { text, samples }
}

/// A sample's value as written (`+Inf`, `-Inf` and `NaN` included).
fn sample_value(written: &str) -> f64 {
    match written {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        "NaN" => f64::NAN,
        v => v.parse().unwrap_or_else(|_| panic!("bad value {v:?}")),
    }
}

/// A histogram series as exposed.
#[derive(Debug, PartialEq)]
pub struct Hist {
    pub count: f64,
    pub sum: f64,
    /// `(le, cumulative count)`, `+Inf` last.
    pub buckets: Vec<(f64, f64)>,
}

impl Hist {
    /// The cumulative count at bound `le`.
    pub fn le(&self, le: f64) -> f64 {
        self.buckets
            .iter()
            .find(|(b, _)| *b == le)
            .unwrap_or_else(|| panic!("no bucket le={le} in {self:?}"))
            .1
    }
}

impl Scrape {
    /// Every sample named `name` whose labels include all of `labels`.
    pub fn find(&self, name: &str, labels: &[(&str, &str)]) -> Vec<(&[(String, String)], f64)> {
        self.samples
            .iter()
            .filter(|(n, ls, _)| {
                n == name
                    && labels
                        .iter()
                        .all(|(k, v)| ls.iter().any(|(lk, lv)| lk == k && lv == v))
            })
            .map(|(_, ls, v)| (ls.as_slice(), *v))
            .collect()
    }

    /// The single sample named `name` with `labels` (panics when absent or ambiguous).
    pub fn value(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        let found = self.find(name, labels);
        assert_eq!(
            found.len(),
            1,
            "expected exactly one sample {name}{labels:?}, found {found:?}\n{}",
            self.text
        );
        found[0].1
    }

    /// Whether any sample carries this name and labels.
    pub fn has(&self, name: &str, labels: &[(&str, &str)]) -> bool {
        !self.find(name, labels).is_empty()
    }

    /// Engine `engine`'s samples, to assert a table of expected values at once.
    pub fn engine<'a>(&'a self, engine: &'a str) -> EngineSamples<'a> {
        EngineSamples {
            scrape: self,
            engine,
        }
    }

    /// Engine `engine`'s value of the counter `base` (exposed as `base_total`).
    pub fn counter(&self, base: &str, engine: &str) -> f64 {
        self.value(&format!("{base}_total"), &[("engine", engine)])
    }

    /// Engine `engine`'s value of counter `base` with one extra label.
    pub fn counter_by(&self, base: &str, engine: &str, key: &str, value: &str) -> f64 {
        self.value(
            &format!("{base}_total"),
            &[("engine", engine), (key, value)],
        )
    }

    /// Engine `engine`'s value of gauge `name`.
    pub fn gauge(&self, name: &str, engine: &str) -> f64 {
        self.value(name, &[("engine", engine)])
    }

    /// Engine `engine`'s histogram `name`, checked for internal consistency.
    pub fn hist(&self, name: &str, engine: &str) -> Hist {
        self.hist_with(name, &[("engine", engine)])
    }

    /// The single histogram series `name` with `labels`, checked for internal consistency.
    pub fn hist_with(&self, name: &str, labels: &[(&str, &str)]) -> Hist {
        let count = self.value(&format!("{name}_count"), labels);
        let sum = self.value(&format!("{name}_sum"), labels);
        let buckets: Vec<(f64, f64)> = self
            .find(&format!("{name}_bucket"), labels)
            .into_iter()
            .map(|(labels, v)| {
                let le = &labels.iter().find(|(k, _)| k == "le").expect("le label").1;
                let le = if le == "+Inf" {
                    f64::INFINITY
                } else {
                    le.parse().expect("numeric le")
                };
                (le, v)
            })
            .collect();
        assert_eq!(
            buckets.last().map(|b| b.1),
            Some(count),
            "{name}: _count must equal the +Inf bucket"
        );
        assert!(
            buckets.windows(2).all(|w| w[0].1 <= w[1].1),
            "{name}: cumulative"
        );
        assert!(sum.is_finite(), "{name}: _sum must be finite");
        Hist {
            count,
            sum,
            buckets,
        }
    }

    /// Asserts that engine `engine` finished exactly `n` [`TwoTokenRequest`]s: `2n` generated
    /// tokens, `n` stopped requests and `n` inter-token latencies.
    pub fn assert_two_token_requests(&self, engine: &str, n: f64) {
        let stopped = [("finished_reason", "stop")];
        self.engine(engine).assert_samples(&[
            ("vllm:generation_tokens_total", &[], 2.0 * n),
            ("vllm:request_success_total", &stopped, n),
        ]);
        let itl = self.hist("vllm:inter_token_latency_seconds", engine);
        assert_eq!(itl.count, n, "engine {engine}: inter-token latencies");
    }

    /// Asserts that each histogram named holds one observation of engine `engine`, summing to
    /// the value given.
    pub fn assert_one_observation_each(&self, engine: &str, expected: &[(&str, f64)]) {
        for &(name, sum) in expected {
            let h = self.hist(name, engine);
            assert_eq!((h.count, h.sum), (1.0, sum), "{name}");
        }
    }
}

/// One expected sample of an engine: its exposed name (`_total` included for a counter), the
/// labels besides `engine` that single it out, and its value.
pub type ExpectedSample<'a> = (&'a str, &'a [(&'a str, &'a str)], f64);

/// The samples of one engine in a scrape ([`Scrape::engine`]).
pub struct EngineSamples<'a> {
    scrape: &'a Scrape,
    engine: &'a str,
}

impl EngineSamples<'_> {
    /// Asserts each expected sample: exactly one sample of this engine has its name and
    /// labels, and it has its value. A failure names the sample.
    pub fn assert_samples(&self, expected: &[ExpectedSample<'_>]) {
        for &(name, extra, want) in expected {
            let labels: Vec<(&str, &str)> = [("engine", self.engine)]
                .into_iter()
                .chain(extra.iter().copied())
                .collect();
            assert_eq!(self.scrape.value(name, &labels), want, "{name}{labels:?}");
        }
    }
}

/// The request the concurrency tests record over and over: one token, then one more that stops
/// it. Its outputs are built once, so a round allocates only what the recorders do.
pub struct TwoTokenRequest {
    first: RequestOutput,
    last: RequestOutput,
}

impl Default for TwoTokenRequest {
    fn default() -> Self {
        Self {
            first: tokens(1),
            last: finishing(tokens(1), FinishReason::Stop),
        }
    }
}

impl TwoTokenRequest {
    /// Tracks one such request on `engine`, its outputs at batch times `at` and `at + 0.5`.
    pub fn record(&self, metrics: &VllmMetrics, engine: u32, at: f64) {
        let mut t = metrics.requests().track(engine, RequestParams::default());
        t.observe_output(at, 1.0, &self.first);
        t.observe_output(at + 0.5, 2.0, &self.last);
    }
}

/// A scheduler update with every core field set (request counts, prefix caches, speculative
/// decoding with three accepted positions, perf, one eviction, CUDA graphs), so one record
/// reaches every scheduler family but the connector, sleep and LoRA ones.
pub fn busy_scheduler_stats() -> SchedulerStats {
    SchedulerStats {
        num_running_reqs: 5,
        num_waiting_reqs: 2,
        num_skipped_waiting_reqs: 1,
        kv_cache_usage: 0.42,
        prefix_cache_stats: PrefixCacheStats {
            queries: 1000,
            hits: 250,
            ..PrefixCacheStats::default()
        },
        connector_prefix_cache_stats: Some(PrefixCacheStats {
            queries: 100,
            hits: 30,
            ..PrefixCacheStats::default()
        }),
        spec_decoding_stats: Some(SpecDecodingStats {
            num_spec_tokens: 2,
            num_drafts: 10,
            num_draft_tokens: 20,
            num_accepted_tokens: 13,
            num_accepted_tokens_per_pos: vec![8, 4, 1],
        }),
        perf_stats: Some(PerfStats {
            num_flops_per_gpu: 1 << 40,
            num_read_bytes_per_gpu: 1 << 30,
            num_write_bytes_per_gpu: 1 << 20,
        }),
        kv_cache_eviction_events: vec![KvCacheEvictionEvent {
            lifetime_seconds: 12.5,
            idle_seconds: 3.0,
            reuse_gaps_seconds: vec![0.5, f64::NAN],
        }],
        cudagraph_stats: Some(CudagraphStats {
            num_unpadded_tokens: 7,
            num_padded_tokens: 8,
            num_paddings: 1,
            runtime_mode: "FULL".into(),
        }),
        ..SchedulerStats::default()
    }
}

/// An output with `tokens` new tokens.
pub fn tokens(n: usize) -> RequestOutput {
    RequestOutput {
        new_token_ids: vec![1; n],
        ..RequestOutput::default()
    }
}

/// Adds events to an output.
pub fn with_events(mut output: RequestOutput, events: &[(EventType, f64)]) -> RequestOutput {
    output.events = events.to_vec();
    output
}

/// Adds a finish reason to an output.
pub fn finishing(mut output: RequestOutput, reason: FinishReason) -> RequestOutput {
    output.finish_reason = Some(reason);
    output
}

/// Adds prefill stats to an output: `prompt` tokens of which `cached` came from the local cache.
pub fn with_prefill(mut output: RequestOutput, prompt: u32, cached: u32) -> RequestOutput {
    output.prefill_stats = Some(PrefillStats {
        num_prompt_tokens: prompt,
        num_computed_tokens: prompt - cached,
        num_cached_tokens: cached,
        num_local_cached_tokens: cached,
        num_external_cached_tokens: 0,
    });
    output
}
