//! The per-record-lookup baseline of the vLLM recorders: the way vLLM's frontend recorded
//! before it cached handles. Every metric is a prometheus-client `Family`, and every record
//! calls `get_or_create(&labels)` (hash the label set, take the family's lock, probe the map).
//!
//! The arithmetic is the runtime's own [`RequestLifecycle`], so the baseline computes exactly
//! what the real recorder computes and the comparison isolates *how* values are recorded.
//! Label sets with an extra label are built per record, cloning the model name, as code
//! without cached handles must (a `Family` key is an owned label set).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;

use metric_handles::vllm::buckets::{
    ITL_BUCKETS, KV_RESIDENCY_BUCKETS, PARAMS_N_BUCKETS, REQUEST_LATENCY_BUCKETS,
    TOKENS_BUCKETS_DEFAULT_MAX, TTFT_BUCKETS,
};
use metric_handles::vllm::request::{
    FinishReason, FinishRecord, OutputRecord, PromptSource, RequestLifecycle, RequestOutput,
    RequestParams,
};
use metric_handles::vllm::scheduler::{SchedulerStats, WaitingReason};

use crate::labels::EngineLabels;

type HistogramFamily = Family<EngineLabels, Histogram, fn() -> Histogram>;

/// `finished_reason` on top of the engine labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct FinishedReasonLabels {
    model_name: String,
    engine: u32,
    finished_reason: FinishReason,
}

/// `source` on top of the engine labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SourceLabels {
    model_name: String,
    engine: u32,
    source: PromptSource,
}

/// `reason` on top of the engine labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ReasonLabels {
    model_name: String,
    engine: u32,
    reason: WaitingReason,
}

/// `position` on top of the engine labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct PositionLabels {
    model_name: String,
    engine: u32,
    position: u64,
}

fn histogram(bounds: &[f64]) -> Histogram {
    Histogram::new(bounds.iter().copied())
}
fn ttft() -> Histogram {
    histogram(TTFT_BUCKETS)
}
fn itl() -> Histogram {
    histogram(ITL_BUCKETS)
}
fn latency() -> Histogram {
    histogram(REQUEST_LATENCY_BUCKETS)
}
fn tokens() -> Histogram {
    Histogram::new(metric_handles::buckets::one_two_five(f64::from(
        TOKENS_BUCKETS_DEFAULT_MAX,
    )))
}
fn params_n() -> Histogram {
    histogram(PARAMS_N_BUCKETS)
}
fn kv_residency() -> Histogram {
    histogram(KV_RESIDENCY_BUCKETS)
}

/// Every request and scheduler metric as a prometheus-client family.
#[derive(Debug)]
pub struct LookupMetrics {
    model_name: String,
    request_success: Family<FinishedReasonLabels, Counter>,
    prompt_tokens: Family<EngineLabels, Counter>,
    prompt_tokens_by_source: Family<SourceLabels, Counter>,
    prompt_tokens_cached: Family<EngineLabels, Counter>,
    generation_tokens: Family<EngineLabels, Counter>,
    num_preemptions: Family<EngineLabels, Counter>,
    request_prompt_tokens: HistogramFamily,
    request_generation_tokens: HistogramFamily,
    request_max_num_generation_tokens: HistogramFamily,
    request_params_max_tokens: HistogramFamily,
    request_params_n: HistogramFamily,
    request_prefill_kv_computed_tokens: HistogramFamily,
    time_to_first_token: HistogramFamily,
    inter_token_latency: HistogramFamily,
    request_time_per_output_token: HistogramFamily,
    e2e_request_latency: HistogramFamily,
    request_queue_time: HistogramFamily,
    request_prefill_time: HistogramFamily,
    request_decode_time: HistogramFamily,
    request_inference_time: HistogramFamily,
    num_requests_running: Family<EngineLabels, Gauge>,
    num_requests_waiting: Family<EngineLabels, Gauge>,
    num_requests_waiting_by_reason: Family<ReasonLabels, Gauge>,
    kv_cache_usage: Family<EngineLabels, Gauge<f64, AtomicU64>>,
    prefix_cache_queries: Family<EngineLabels, Counter>,
    prefix_cache_hits: Family<EngineLabels, Counter>,
    external_prefix_cache_queries: Family<EngineLabels, Counter>,
    external_prefix_cache_hits: Family<EngineLabels, Counter>,
    spec_decode_num_drafts: Family<EngineLabels, Counter>,
    spec_decode_num_draft_tokens: Family<EngineLabels, Counter>,
    spec_decode_num_accepted_tokens: Family<EngineLabels, Counter>,
    spec_decode_num_accepted_tokens_per_pos: Family<PositionLabels, Counter>,
    estimated_flops_per_gpu: Family<EngineLabels, Counter>,
    estimated_read_bytes_per_gpu: Family<EngineLabels, Counter>,
    estimated_write_bytes_per_gpu: Family<EngineLabels, Counter>,
    kv_block_lifetime: HistogramFamily,
    kv_block_idle_before_evict: HistogramFamily,
    kv_block_reuse_gap: HistogramFamily,
}

impl LookupMetrics {
    /// Creates every family and registers it in `registry`.
    pub fn register(registry: &mut Registry, model_name: &str) -> Self {
        let h = |constructor: fn() -> Histogram| HistogramFamily::new_with_constructor(constructor);
        let metrics = LookupMetrics {
            model_name: model_name.to_owned(),
            request_success: Family::default(),
            prompt_tokens: Family::default(),
            prompt_tokens_by_source: Family::default(),
            prompt_tokens_cached: Family::default(),
            generation_tokens: Family::default(),
            num_preemptions: Family::default(),
            request_prompt_tokens: h(tokens),
            request_generation_tokens: h(tokens),
            request_max_num_generation_tokens: h(tokens),
            request_params_max_tokens: h(tokens),
            request_params_n: h(params_n),
            request_prefill_kv_computed_tokens: h(tokens),
            time_to_first_token: h(ttft),
            inter_token_latency: h(itl),
            request_time_per_output_token: h(itl),
            e2e_request_latency: h(latency),
            request_queue_time: h(latency),
            request_prefill_time: h(latency),
            request_decode_time: h(latency),
            request_inference_time: h(latency),
            num_requests_running: Family::default(),
            num_requests_waiting: Family::default(),
            num_requests_waiting_by_reason: Family::default(),
            kv_cache_usage: Family::default(),
            prefix_cache_queries: Family::default(),
            prefix_cache_hits: Family::default(),
            external_prefix_cache_queries: Family::default(),
            external_prefix_cache_hits: Family::default(),
            spec_decode_num_drafts: Family::default(),
            spec_decode_num_draft_tokens: Family::default(),
            spec_decode_num_accepted_tokens: Family::default(),
            spec_decode_num_accepted_tokens_per_pos: Family::default(),
            estimated_flops_per_gpu: Family::default(),
            estimated_read_bytes_per_gpu: Family::default(),
            estimated_write_bytes_per_gpu: Family::default(),
            kv_block_lifetime: h(kv_residency),
            kv_block_idle_before_evict: h(kv_residency),
            kv_block_reuse_gap: h(kv_residency),
        };
        metrics.register_all(registry);
        metrics
    }

    fn register_all(&self, r: &mut Registry) {
        macro_rules! register {
            ($($field:ident => $name:literal),* $(,)?) => {
                $( r.register($name, "baseline", self.$field.clone()); )*
            };
        }
        register!(
            request_success => "vllm:request_success",
            prompt_tokens => "vllm:prompt_tokens",
            prompt_tokens_by_source => "vllm:prompt_tokens_by_source",
            prompt_tokens_cached => "vllm:prompt_tokens_cached",
            generation_tokens => "vllm:generation_tokens",
            num_preemptions => "vllm:num_preemptions",
            request_prompt_tokens => "vllm:request_prompt_tokens",
            request_generation_tokens => "vllm:request_generation_tokens",
            request_max_num_generation_tokens => "vllm:request_max_num_generation_tokens",
            request_params_max_tokens => "vllm:request_params_max_tokens",
            request_params_n => "vllm:request_params_n",
            request_prefill_kv_computed_tokens => "vllm:request_prefill_kv_computed_tokens",
            time_to_first_token => "vllm:time_to_first_token_seconds",
            inter_token_latency => "vllm:inter_token_latency_seconds",
            request_time_per_output_token => "vllm:request_time_per_output_token_seconds",
            e2e_request_latency => "vllm:e2e_request_latency_seconds",
            request_queue_time => "vllm:request_queue_time_seconds",
            request_prefill_time => "vllm:request_prefill_time_seconds",
            request_decode_time => "vllm:request_decode_time_seconds",
            request_inference_time => "vllm:request_inference_time_seconds",
            num_requests_running => "vllm:num_requests_running",
            num_requests_waiting => "vllm:num_requests_waiting",
            num_requests_waiting_by_reason => "vllm:num_requests_waiting_by_reason",
            kv_cache_usage => "vllm:kv_cache_usage_perc",
            prefix_cache_queries => "vllm:prefix_cache_queries",
            prefix_cache_hits => "vllm:prefix_cache_hits",
            external_prefix_cache_queries => "vllm:external_prefix_cache_queries",
            external_prefix_cache_hits => "vllm:external_prefix_cache_hits",
            spec_decode_num_drafts => "vllm:spec_decode_num_drafts",
            spec_decode_num_draft_tokens => "vllm:spec_decode_num_draft_tokens",
            spec_decode_num_accepted_tokens => "vllm:spec_decode_num_accepted_tokens",
            spec_decode_num_accepted_tokens_per_pos => "vllm:spec_decode_num_accepted_tokens_per_pos",
            estimated_flops_per_gpu => "vllm:estimated_flops_per_gpu",
            estimated_read_bytes_per_gpu => "vllm:estimated_read_bytes_per_gpu",
            estimated_write_bytes_per_gpu => "vllm:estimated_write_bytes_per_gpu",
            kv_block_lifetime => "vllm:kv_block_lifetime_seconds",
            kv_block_idle_before_evict => "vllm:kv_block_idle_before_evict_seconds",
            kv_block_reuse_gap => "vllm:kv_block_reuse_gap_seconds",
        );
    }

    fn labels(&self, engine: u32) -> EngineLabels {
        EngineLabels {
            model_name: self.model_name.clone(),
            engine,
        }
    }

    /// Records one `SchedulerStats` of `engine` with a lookup per metric (the same
    /// arithmetic as `SchedulerStatsRecorder::record`, without the log-stats accumulator the
    /// real recorder also feeds).
    pub fn record_scheduler_stats(&self, engine: u32, stats: &SchedulerStats) {
        let l = self.labels(engine);
        let gauge = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        let reason = |reason| ReasonLabels {
            model_name: l.model_name.clone(),
            engine,
            reason,
        };
        self.num_requests_running
            .get_or_create(&l)
            .set(gauge(stats.num_running_reqs));
        self.num_requests_waiting.get_or_create(&l).set(gauge(
            stats
                .num_waiting_reqs
                .saturating_add(stats.num_skipped_waiting_reqs),
        ));
        self.num_requests_waiting_by_reason
            .get_or_create(&reason(WaitingReason::Capacity))
            .set(gauge(stats.num_waiting_reqs));
        self.num_requests_waiting_by_reason
            .get_or_create(&reason(WaitingReason::Deferred))
            .set(gauge(stats.num_skipped_waiting_reqs));
        self.kv_cache_usage
            .get_or_create(&l)
            .set(stats.kv_cache_usage.clamp(0.0, 1.0));
        let add = |family: &Family<EngineLabels, Counter>, value: u64| {
            family.get_or_create(&l).inc_by(value);
        };
        let observe =
            |family: &HistogramFamily, value: f64| family.get_or_create(&l).observe(value);
        let prefix = &stats.prefix_cache_stats;
        add(&self.prefix_cache_queries, prefix.queries);
        add(&self.prefix_cache_hits, prefix.hits);
        if let Some(connector) = &stats.connector_prefix_cache_stats {
            add(&self.external_prefix_cache_queries, connector.queries);
            add(&self.external_prefix_cache_hits, connector.hits);
        }
        if let Some(spec) = &stats.spec_decoding_stats {
            add(&self.spec_decode_num_drafts, spec.num_drafts);
            add(&self.spec_decode_num_draft_tokens, spec.num_draft_tokens);
            add(
                &self.spec_decode_num_accepted_tokens,
                spec.num_accepted_tokens,
            );
            for (position, &accepted) in spec.num_accepted_tokens_per_pos.iter().enumerate() {
                if accepted != 0 {
                    let labels = PositionLabels {
                        model_name: l.model_name.clone(),
                        engine,
                        position: position as u64,
                    };
                    self.spec_decode_num_accepted_tokens_per_pos
                        .get_or_create(&labels)
                        .inc_by(accepted);
                }
            }
        }
        if let Some(perf) = &stats.perf_stats {
            add(&self.estimated_flops_per_gpu, perf.num_flops_per_gpu);
            add(
                &self.estimated_read_bytes_per_gpu,
                perf.num_read_bytes_per_gpu,
            );
            add(
                &self.estimated_write_bytes_per_gpu,
                perf.num_write_bytes_per_gpu,
            );
        }
        for event in &stats.kv_cache_eviction_events {
            observe(&self.kv_block_lifetime, event.lifetime_seconds.max(0.0));
            observe(
                &self.kv_block_idle_before_evict,
                event.idle_seconds.max(0.0),
            );
            for &gap in &event.reuse_gaps_seconds {
                observe(&self.kv_block_reuse_gap, gap.max(0.0));
            }
        }
    }
}

/// A request tracker that looks every handle up per record.
#[derive(Debug)]
pub struct LookupTracker<'a> {
    metrics: &'a LookupMetrics,
    labels: EngineLabels,
    lifecycle: RequestLifecycle,
}

impl<'a> LookupTracker<'a> {
    /// Starts tracking a request routed to `engine`.
    pub fn new(metrics: &'a LookupMetrics, engine: u32, params: RequestParams) -> Self {
        LookupTracker {
            metrics,
            labels: metrics.labels(engine),
            lifecycle: RequestLifecycle::new(params),
        }
    }

    /// Records one output (and the finish when it carries a finish reason).
    pub fn observe_output(
        &mut self,
        batch_timestamp: f64,
        received_at: f64,
        output: &RequestOutput,
    ) {
        if let Some(record) = self
            .lifecycle
            .observe_output(batch_timestamp, received_at, output)
        {
            self.write_output(&record);
            if let Some(reason) = output.finish_reason {
                self.finish(reason, received_at);
            }
        }
    }

    /// Finishes the request with `reason` (when no output carried one).
    pub fn finish(&mut self, reason: FinishReason, received_at: f64) {
        if let Some(finish) = self.lifecycle.finish(reason, received_at) {
            self.write_finish(&finish);
        }
    }

    fn write_output(&self, record: &OutputRecord) {
        let (m, l) = (self.metrics, &self.labels);
        m.generation_tokens
            .get_or_create(l)
            .inc_by(record.generation_tokens);
        if record.preemptions != 0 {
            m.num_preemptions
                .get_or_create(l)
                .inc_by(record.preemptions);
        }
        if let Some(prompt) = &record.prompt {
            m.prompt_tokens
                .get_or_create(l)
                .inc_by(prompt.prompt_tokens.into());
            let by_source = [
                (PromptSource::LocalCompute, prompt.local_compute),
                (PromptSource::LocalCacheHit, prompt.local_cache_hit),
                (
                    PromptSource::ExternalKvTransfer,
                    prompt.external_kv_transfer,
                ),
            ];
            for (source, tokens) in by_source {
                let labels = SourceLabels {
                    model_name: l.model_name.clone(),
                    engine: l.engine,
                    source,
                };
                m.prompt_tokens_by_source
                    .get_or_create(&labels)
                    .inc_by(tokens.into());
            }
            m.prompt_tokens_cached
                .get_or_create(l)
                .inc_by(prompt.cached.into());
        }
        if let Some(ttft) = record.ttft {
            m.time_to_first_token.get_or_create(l).observe(ttft);
        }
        if let Some(itl) = record.itl {
            m.inter_token_latency.get_or_create(l).observe(itl);
        }
    }

    fn write_finish(&self, finish: &FinishRecord) {
        let (m, l) = (self.metrics, &self.labels);
        let labels = FinishedReasonLabels {
            model_name: l.model_name.clone(),
            engine: l.engine,
            finished_reason: finish.reason,
        };
        m.request_success.get_or_create(&labels).inc();
        let observe = |family: &HistogramFamily, value: f64| family.get_or_create(l).observe(value);
        observe(&m.request_prompt_tokens, finish.prompt_tokens.into());
        observe(
            &m.request_generation_tokens,
            finish.generation_tokens as f64,
        );
        if let Some(max_tokens) = finish.max_tokens_param {
            observe(&m.request_params_max_tokens, max_tokens.into());
        }
        observe(
            &m.request_prefill_kv_computed_tokens,
            finish.prefill_kv_computed_tokens.into(),
        );
        observe(&m.e2e_request_latency, finish.e2e);
        observe(&m.request_queue_time, finish.queue);
        observe(&m.request_prefill_time, finish.prefill);
        observe(&m.request_decode_time, finish.decode);
        observe(&m.request_inference_time, finish.inference);
        observe(
            &m.request_time_per_output_token,
            finish.time_per_output_token,
        );
        if let Some(parent) = &finish.parent_fields {
            observe(&m.request_params_n, parent.n.into());
            observe(
                &m.request_max_num_generation_tokens,
                parent.max_generation_tokens as f64,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vllm_fixtures::{recorders, request, scheduler_stats};

    /// The baseline does the same work as the real recorders: every sample it exports is
    /// exported, with the same value, by the runtime's recorders fed the same input.
    #[test]
    fn the_baseline_records_what_the_runtime_records() {
        let (ours_registry, ours, baseline_registry, baseline) = recorders();
        let stats = scheduler_stats();
        ours.scheduler().record(1, &stats);
        baseline.record_scheduler_stats(1, &stats);
        let request = request();
        let mut tracker = ours.requests().track(1, request.params);
        let mut lookup = LookupTracker::new(&baseline, 1, request.params);
        for (batch, received, output) in &request.outputs {
            tracker.observe_output(*batch, *received, output);
            lookup.observe_output(*batch, *received, output);
        }
        assert!(tracker.is_finished());

        // Both in OpenMetrics, prometheus-client's `text::encode` format.
        let ours_text = metric_handles::ExpositionFormat::OpenMetrics
            .encode(&ours_registry)
            .expect("encode");
        let mut baseline_text = String::new();
        prometheus_client::encoding::text::encode(&mut baseline_text, &baseline_registry)
            .expect("encode");
        let samples: Vec<&str> = baseline_text
            .lines()
            .filter(|line| !line.starts_with('#'))
            .collect();
        assert!(samples.len() > 300, "{} samples", samples.len());
        for sample in samples {
            assert!(ours_text.contains(sample), "missing from ours: {sample}");
        }
    }
}
