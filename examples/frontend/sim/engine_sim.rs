//! One simulated engine core: a continuous-batching scheduler with a KV-block budget, prefill
//! then decode steps, prefix-cache hits, preemption (recompute), speculative decoding and
//! request aborts. It runs on its own thread with its own monotonic clock and reports, like a
//! vLLM engine core, one `SchedulerStats` and the step's `RequestOutput`s per step.

use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::time::{Duration, Instant};

use crate::sim::clock::SimClock;
use crate::sim::connectors::{Admitted, Connectors};
use crate::sim::kv_cache::KvCache;
use crate::sim::plan::{stream, RequestPlan};
use crate::sim::rng::Rng;
use metric_handles::vllm::request::{EventType, FinishReason, PrefillStats, RequestOutput};
use metric_handles::vllm::scheduler::{
    CacheHitSource, CudagraphStats, KvCacheEvictionEvent, PerfStats, PrefixCacheStats,
    SchedulerStats, SpecDecodingStats,
};
use metric_handles::vllm::sleep::{EngineSleepState, KvCacheState, WeightsState};

/// The scheduler's limits and the behaviour knobs that act inside the engine.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    pub kv_blocks: u32,
    pub block_size: u32,
    pub max_num_seqs: u32,
    pub max_batched_tokens: u32,
    pub spec_tokens: u32,
    pub spec_acceptance_rate: f64,
    pub stop_rate: f64,
    pub preemption_rate: f64,
    pub connectors: Connectors,
}

/// What the frontend sends an engine.
pub enum Command {
    Add(RequestPlan),
    Abort(u64),
    /// Sleep mode (level 1): pause scheduling, offload the weights, release the KV cache.
    Sleep,
    /// Back to resident and scheduling.
    Wake,
    /// Finish the requests already sent, then exit (scale-down).
    Drain,
}

/// One step's report.
pub struct Batch {
    /// The engine's monotonic clock at the end of the step.
    pub timestamp: f64,
    pub stats: SchedulerStats,
    pub outputs: Vec<(u64, RequestOutput)>,
}

pub enum EngineMessage {
    Batch(Box<Batch>),
    Exited,
}

struct Seq {
    plan: RequestPlan,
    stop_rng: Rng,
    spec_rng: Rng,
    preempt_rng: Rng,
    generated: u32,
    blocks: u32,
    allocated_at: f64,
    reuse_gaps: Vec<f64>,
    /// Events not yet delivered: they ride on the request's next output.
    events: Vec<(EventType, f64)>,
    /// Scheduled at least once (prefix-cache stats count re-queries separately).
    scheduled_before: bool,
    /// The next step computes the whole context (first schedule, or after a preemption).
    needs_prefill: bool,
    /// `prefill_stats` were delivered (they go with the first prefill only).
    prefill_reported: bool,
    /// Draft tokens accepted in the current decode step.
    accepted_drafts: u32,
}

impl Seq {
    fn new(plan: RequestPlan) -> Self {
        Seq {
            stop_rng: plan.rng(stream::STOP),
            spec_rng: plan.rng(stream::SPEC),
            preempt_rng: plan.rng(stream::PREEMPT),
            plan,
            generated: 0,
            blocks: 0,
            allocated_at: 0.0,
            reuse_gaps: Vec::new(),
            events: Vec::new(),
            scheduled_before: false,
            needs_prefill: true,
            prefill_reported: false,
            accepted_drafts: 0,
        }
    }

    fn context(&self) -> u32 {
        self.plan.prompt_len + self.generated
    }

    /// The connector tier that supplies the cached prefix at this scheduling: only the first,
    /// and only when the prefix is not in the engine's own cache.
    fn first_prefix_source(&self) -> Option<CacheHitSource> {
        (!self.scheduled_before
            && self.plan.cached_prefix > 0
            && self.plan.prefix_source != CacheHitSource::Device)
            .then_some(self.plan.prefix_source)
    }
}

/// Work of one step, decided before the step runs.
#[derive(Default)]
struct StepWork {
    prefill_tokens: u64,
    decode_seqs: u64,
    decode_context_tokens: u64,
    prefix: PrefixCacheStats,
    evictions: Vec<KvCacheEvictionEvent>,
    deferred: u64,
    admitted: Vec<Admitted>,
}

pub struct Engine {
    cfg: EngineConfig,
    clock: SimClock,
    boot_offset: f64,
    jitter: Rng,
    inbox: Receiver<Command>,
    out: Sender<EngineMessage>,
    waiting: VecDeque<Seq>,
    running: Vec<Seq>,
    kv: KvCache,
    draining: bool,
    last_prefix_use: Option<f64>,
    token_id: u32,
    /// Draws of the connectors' telemetry, apart from the step-time jitter.
    connector_rng: Rng,
    sleep: EngineSleepState,
}

const AWAKE: EngineSleepState = EngineSleepState {
    scheduler_paused: false,
    weights: WeightsState::Resident,
    kv_cache: KvCacheState::Resident,
};

impl Engine {
    pub fn new(
        index: u32,
        cfg: EngineConfig,
        clock: SimClock,
        seed: u64,
        inbox: Receiver<Command>,
        out: Sender<EngineMessage>,
    ) -> Self {
        Engine {
            kv: KvCache::new(cfg.kv_blocks),
            cfg,
            clock,
            // Engine cores boot at different times: distinct monotonic clocks.
            boot_offset: 1000.0 + 137.0 * f64::from(index),
            jitter: Rng::for_stream(seed, u64::from(index), u64::MAX),
            connector_rng: Rng::for_stream(seed, u64::from(index), u64::MAX - 1),
            sleep: AWAKE,
            inbox,
            out,
            waiting: VecDeque::new(),
            running: Vec::new(),
            draining: false,
            last_prefix_use: None,
            token_id: 0,
        }
    }

    fn now(&self) -> f64 {
        self.clock.engine_monotonic(self.boot_offset)
    }

    /// Nothing to run: no request, or scheduling is paused by sleep mode.
    fn idle(&self) -> bool {
        (self.waiting.is_empty() && self.running.is_empty()) || self.sleep.scheduler_paused
    }

    /// The engine loop: runs until drained (or the frontend hangs up).
    pub fn run(mut self) {
        let mut idle_reported = false;
        let mut deadline = Instant::now();
        loop {
            if self.idle() {
                if self.draining {
                    break;
                }
                if !idle_reported {
                    // One report with the idle state so the gauges drop to zero.
                    let batch = self.batch(Vec::new(), StepWork::default(), None);
                    if !self.emit(batch) {
                        return;
                    }
                    idle_reported = true;
                }
                match self.inbox.recv_timeout(Duration::from_millis(50)) {
                    Ok(cmd) => self.handle(cmd),
                    Err(RecvTimeoutError::Timeout) => continue,
                    Err(RecvTimeoutError::Disconnected) => break,
                }
                deadline = Instant::now();
            }
            loop {
                match self.inbox.try_recv() {
                    Ok(cmd) => self.handle(cmd),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => {
                        self.draining = true;
                        break;
                    }
                }
            }
            if self.idle() {
                continue;
            }
            idle_reported = false;
            let (work, spec) = self.schedule();
            let duration = self.step_duration(&work);
            // Absolute deadlines so sleep overshoot does not accumulate.
            deadline += self.clock.real(duration);
            let real_now = Instant::now();
            if deadline > real_now {
                std::thread::sleep(deadline - real_now);
            } else {
                deadline = real_now;
            }
            let outputs = self.produce_outputs();
            let batch = self.batch(outputs, work, spec);
            if !self.emit(batch) {
                return;
            }
        }
        let _ = self.out.send(EngineMessage::Exited);
    }

    /// Sends a step's report; `false` when the frontend is gone.
    fn emit(&self, batch: Batch) -> bool {
        self.out.send(EngineMessage::Batch(Box::new(batch))).is_ok()
    }

    fn handle(&mut self, cmd: Command) {
        match cmd {
            Command::Add(plan) => {
                let mut seq = Seq::new(plan);
                seq.events.push((EventType::Queued, self.now()));
                self.waiting.push_back(seq);
            }
            Command::Abort(id) => {
                let now = self.now();
                if let Some(pos) = self.waiting.iter().position(|s| s.plan.id == id) {
                    if let Some(seq) = self.waiting.remove(pos) {
                        self.free(seq, now);
                    }
                } else if let Some(pos) = self.running.iter().position(|s| s.plan.id == id) {
                    let seq = self.running.remove(pos);
                    self.free(seq, now);
                }
            }
            Command::Drain => self.draining = true,
            Command::Sleep | Command::Wake => {
                self.sleep = match cmd {
                    Command::Sleep => EngineSleepState {
                        scheduler_paused: true,
                        weights: WeightsState::Offloaded,
                        kv_cache: KvCacheState::Released,
                    },
                    _ => AWAKE,
                };
                // Confirm the new state at once, in a telemetry-only update.
                let _ = self.out.send(EngineMessage::Batch(Box::new(Batch {
                    timestamp: self.now(),
                    stats: SchedulerStats {
                        sleep_state: Some(self.sleep),
                        sleep_state_only: true,
                        ..SchedulerStats::default()
                    },
                    outputs: Vec::new(),
                })));
            }
        }
    }

    fn free(&mut self, mut seq: Seq, now: f64) {
        let gaps = std::mem::take(&mut seq.reuse_gaps);
        self.kv.release(seq.blocks, seq.allocated_at, now, gaps);
    }

    fn blocks_for(&self, tokens: u32) -> u32 {
        tokens.div_ceil(self.cfg.block_size)
    }

    /// Preempts (recompute policy) the running request at `pos`: its blocks are freed and it
    /// goes back to the front of the waiting queue.
    fn preempt(&mut self, pos: usize, now: f64) {
        let mut seq = self.running.remove(pos);
        let gaps = std::mem::take(&mut seq.reuse_gaps);
        self.kv.release(seq.blocks, seq.allocated_at, now, gaps);
        seq.blocks = 0;
        seq.needs_prefill = true;
        seq.events.push((EventType::Preempted, now));
        self.waiting.push_front(seq);
    }

    /// Decides this step's batch: grows running requests (preempting under KV pressure), then
    /// admits waiting ones within the token budget.
    fn schedule(&mut self) -> (StepWork, Option<SpecDecodingStats>) {
        let now = self.now();
        let mut work = StepWork::default();
        let lookahead = 1 + self.cfg.spec_tokens;

        // Forced preemptions (--preemption-rate) among requests already decoding.
        let mut i = 0;
        while i < self.running.len() {
            let p = self.cfg.preemption_rate;
            let seq = &mut self.running[i];
            if !seq.needs_prefill && seq.preempt_rng.chance(p) {
                self.preempt(i, now);
            } else {
                i += 1;
            }
        }
        // Room for this step's tokens; under pressure preempt the newest request (vLLM's policy).
        let mut i = 0;
        while i < self.running.len() {
            let need = self.blocks_for(self.running[i].context() + lookahead);
            let extra = need.saturating_sub(self.running[i].blocks);
            if extra == 0 {
                i += 1;
                continue;
            }
            if self.kv.allocate(extra, now, &mut work.evictions) {
                self.running[i].blocks += extra;
                i += 1;
            } else {
                let victim = self.running.len() - 1;
                self.preempt(victim, now);
                // The victim may have been `i` itself; either way re-check from `i`.
            }
        }
        for seq in &self.running {
            work.decode_seqs += 1;
            work.decode_context_tokens += u64::from(seq.context());
        }

        // Admit waiting requests, first come first served.
        let mut budget = u64::from(self.cfg.max_batched_tokens);
        while let Some(seq) = self.waiting.front() {
            if self.running.len() >= self.cfg.max_num_seqs as usize {
                break;
            }
            let cached = u64::from(seq.plan.cached_prefix);
            let compute = u64::from(seq.context()).saturating_sub(cached);
            if compute > budget && work.prefill_tokens > 0 {
                // Deferred to a later step by the per-step token budget, not by capacity.
                work.deferred = self.waiting.len() as u64;
                break;
            }
            let need = self.blocks_for(seq.context() + 1);
            if !self.kv.allocate(need, now, &mut work.evictions) {
                break;
            }
            let Some(mut seq) = self.waiting.pop_front() else {
                break;
            };
            budget = budget.saturating_sub(compute);
            work.prefill_tokens += compute;
            // A connector's tier supplies the prefix the first time only: once loaded, its
            // blocks are the engine's own, and a preempted request finds them in its cache.
            let external = seq.first_prefix_source().map(|source| (source, cached));
            let local_cached = if external.is_some() { 0 } else { cached };
            let prefix = &mut work.prefix;
            if seq.scheduled_before {
                prefix.preempted_requests += 1;
                prefix.preempted_queries += u64::from(seq.context());
                prefix.preempted_hits += local_cached;
            } else {
                prefix.requests += 1;
                prefix.queries += u64::from(seq.plan.prompt_len);
                prefix.hits += local_cached;
            }
            if cached > 0 {
                if let Some(last) = self.last_prefix_use {
                    seq.reuse_gaps.push(now - last);
                }
                self.last_prefix_use = Some(now);
            }
            work.admitted.push(Admitted {
                prompt_tokens: u64::from(seq.context()),
                local_cached,
                external,
                computed_tokens: compute,
            });
            seq.blocks = need;
            seq.allocated_at = now;
            seq.scheduled_before = true;
            seq.events.push((EventType::Scheduled, now));
            self.running.push(seq);
        }
        let spec = self.draft_acceptance();
        (work, spec)
    }

    /// Draws how many draft tokens each decoding request accepts this step: position `i` is
    /// accepted with the acceptance rate, given that positions before it were.
    fn draft_acceptance(&mut self) -> Option<SpecDecodingStats> {
        let k = self.cfg.spec_tokens as usize;
        if k == 0 {
            return None;
        }
        let mut stats = SpecDecodingStats {
            num_spec_tokens: k as u64,
            num_accepted_tokens_per_pos: vec![0; k],
            ..SpecDecodingStats::default()
        };
        for seq in self.running.iter_mut().filter(|s| !s.needs_prefill) {
            stats.num_drafts += 1;
            stats.num_draft_tokens += k as u64;
            let mut accepted = 0;
            while accepted < k && seq.spec_rng.chance(self.cfg.spec_acceptance_rate) {
                stats.num_accepted_tokens_per_pos[accepted] += 1;
                accepted += 1;
            }
            stats.num_accepted_tokens += accepted as u64;
            seq.accepted_drafts = accepted as u32;
        }
        (stats.num_drafts > 0).then_some(stats)
    }

    /// Simulated duration of a step: fixed overhead, prefill compute, and decode cost that grows
    /// with batch size, context and speculative verification width (a rough 8B model on one GPU).
    fn step_duration(&mut self, work: &StepWork) -> f64 {
        let verify = 1.0 + 0.1 * f64::from(self.cfg.spec_tokens);
        let base = 0.006
            + 0.000_05 * work.prefill_tokens as f64
            + 0.000_25 * verify * work.decode_seqs as f64
            + 0.000_000_2 * work.decode_context_tokens as f64;
        base * (0.9 + 0.2 * self.jitter.unit())
    }

    /// Runs the step's requests: one token per prefill, 1 + accepted drafts per decode step,
    /// cut at an end-of-sequence token or at `max_tokens`.
    fn produce_outputs(&mut self) -> Vec<(u64, RequestOutput)> {
        let mut outputs = Vec::with_capacity(self.running.len());
        let mut finished = Vec::new();
        for (pos, seq) in self.running.iter_mut().enumerate() {
            let mut output = RequestOutput::default();
            let was_prefill = seq.needs_prefill;
            seq.needs_prefill = false;
            if was_prefill && !seq.prefill_reported {
                seq.prefill_reported = true;
                if seq.plan.fails_in_prefill {
                    output.finish_reason = Some(FinishReason::Error);
                    output.events = std::mem::take(&mut seq.events);
                    outputs.push((seq.plan.id, output));
                    finished.push(pos);
                    continue;
                }
                let cached = seq.plan.cached_prefix;
                let external = if seq.plan.prefix_source == CacheHitSource::Device {
                    0
                } else {
                    cached
                };
                output.prefill_stats = Some(PrefillStats {
                    num_prompt_tokens: seq.plan.prompt_len,
                    num_computed_tokens: seq.plan.prompt_len - cached,
                    num_cached_tokens: cached,
                    num_local_cached_tokens: cached - external,
                    num_external_cached_tokens: external,
                });
            }
            // A prefill yields one token; a decode step its accepted drafts plus the bonus token.
            let step_tokens = if was_prefill {
                1
            } else {
                1 + std::mem::take(&mut seq.accepted_drafts)
            };
            let remaining = seq.plan.max_tokens - seq.generated;
            for _ in 0..step_tokens.min(remaining) {
                self.token_id = self.token_id.wrapping_add(7919) % 128_000;
                output.new_token_ids.push(self.token_id);
                seq.generated += 1;
                if seq.stop_rng.chance(self.cfg.stop_rate) {
                    output.finish_reason = Some(FinishReason::Stop);
                    break;
                }
            }
            if output.finish_reason.is_none() && seq.generated >= seq.plan.max_tokens {
                output.finish_reason = Some(FinishReason::Length);
            }
            if output.finish_reason.is_some() {
                finished.push(pos);
            }
            output.events = std::mem::take(&mut seq.events);
            outputs.push((seq.plan.id, output));
        }
        let now = self.now();
        for pos in finished.into_iter().rev() {
            let seq = self.running.remove(pos);
            self.free(seq, now);
        }
        outputs
    }

    fn batch(
        &mut self,
        outputs: Vec<(u64, RequestOutput)>,
        work: StepWork,
        spec: Option<SpecDecodingStats>,
    ) -> Batch {
        let new_tokens: u64 = outputs
            .iter()
            .map(|(_, o)| o.new_token_ids.len() as u64)
            .sum();
        let step_tokens = work.prefill_tokens + new_tokens;
        // ~8B parameters: 2 FLOPs per parameter per token; weights read once per step, KV
        // (128 KiB per token) read for every context token and written for every new token.
        let perf = (step_tokens > 0).then(|| PerfStats {
            num_flops_per_gpu: 16_000_000_000 * step_tokens,
            num_read_bytes_per_gpu: 16_000_000_000 + 131_072 * work.decode_context_tokens,
            num_write_bytes_per_gpu: 131_072 * step_tokens,
        });
        let cudagraph = (step_tokens > 0).then(|| {
            if work.prefill_tokens == 0 {
                let unpadded = work.decode_seqs * u64::from(1 + self.cfg.spec_tokens);
                let padded = capture_size(unpadded);
                CudagraphStats {
                    num_unpadded_tokens: unpadded,
                    num_padded_tokens: padded,
                    num_paddings: padded - unpadded,
                    runtime_mode: "FULL".into(),
                }
            } else {
                CudagraphStats {
                    num_unpadded_tokens: step_tokens,
                    num_padded_tokens: step_tokens,
                    num_paddings: 0,
                    runtime_mode: "PIECEWISE".into(),
                }
            }
        });
        let deferred = work.deferred.min(self.waiting.len() as u64);
        let connectors = self.cfg.connectors;
        let kv_connector_stats =
            connectors.step_stats(&work.admitted, self.cfg.block_size, &mut self.connector_rng);
        let connector_prefix_cache_stats = connectors.prefix_stats(&work.admitted);
        Batch {
            timestamp: self.now(),
            stats: SchedulerStats {
                num_running_reqs: self.running.len() as u64,
                num_waiting_reqs: self.waiting.len() as u64 - deferred,
                num_skipped_waiting_reqs: deferred,
                kv_cache_usage: self.kv.usage(),
                prefix_cache_stats: work.prefix,
                connector_prefix_cache_stats,
                spec_decoding_stats: spec,
                perf_stats: perf,
                kv_cache_eviction_events: work.evictions,
                cudagraph_stats: cudagraph,
                kv_connector_stats,
                sleep_state: Some(self.sleep),
                ..SchedulerStats::default()
            },
            outputs,
        }
    }
}

/// CUDA graphs are captured for a fixed set of batch sizes; a batch is padded up to the next.
fn capture_size(tokens: u64) -> u64 {
    match tokens {
        0..=1 => 1,
        2 => 2,
        3..=4 => 4,
        5..=8 => 8,
        _ => tokens.div_ceil(8) * 8,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;

    fn plan(id: u64, prompt_len: u32, max_tokens: u32) -> RequestPlan {
        RequestPlan {
            id,
            seed: 1,
            prompt_len,
            max_tokens,
            cached_prefix: 0,
            prefix_source: CacheHitSource::Device,
            fails_in_prefill: false,
            abort_after: None,
            lora: None,
        }
    }

    /// Runs an engine over `plans` until it drains; returns every step report.
    fn run(cfg: EngineConfig, plans: Vec<RequestPlan>) -> Vec<Batch> {
        let (cmd_tx, cmd_rx) = mpsc::channel();
        let (out_tx, out_rx) = mpsc::channel();
        for p in plans {
            cmd_tx.send(Command::Add(p)).expect("send");
        }
        cmd_tx.send(Command::Drain).expect("send");
        let engine = Engine::new(0, cfg, SimClock::new(1000.0), 1, cmd_rx, out_tx);
        std::thread::spawn(move || engine.run());
        let mut batches = Vec::new();
        while let Ok(message) = out_rx.recv_timeout(Duration::from_secs(10)) {
            match message {
                EngineMessage::Batch(b) => batches.push(*b),
                EngineMessage::Exited => return batches,
            }
        }
        panic!("the engine did not exit");
    }

    fn quiet() -> EngineConfig {
        EngineConfig {
            kv_blocks: 64,
            block_size: 16,
            max_num_seqs: 8,
            max_batched_tokens: 4096,
            spec_tokens: 0,
            spec_acceptance_rate: 0.0,
            stop_rate: 0.0,
            preemption_rate: 0.0,
            connectors: Connectors::default(),
        }
    }

    fn outputs_of(batches: &[Batch], id: u64) -> Vec<&RequestOutput> {
        batches
            .iter()
            .flat_map(|b| b.outputs.iter())
            .filter(|(i, _)| *i == id)
            .map(|(_, o)| o)
            .collect()
    }

    #[test]
    fn a_request_is_prefilled_once_then_decoded_to_max_tokens() {
        let batches = run(quiet(), vec![plan(7, 12, 10)]);
        let outs = outputs_of(&batches, 7);
        assert_eq!(outs.len(), 10, "one prefill step and nine decode steps");
        assert!(outs.iter().all(|o| o.new_token_ids.len() == 1));
        let first = outs[0];
        let kinds: Vec<EventType> = first.events.iter().map(|(e, _)| *e).collect();
        assert_eq!(kinds, [EventType::Queued, EventType::Scheduled]);
        assert_eq!(first.prefill_stats.map(|p| p.num_computed_tokens), Some(12));
        assert!(outs[1..].iter().all(|o| o.prefill_stats.is_none()));
        assert_eq!(outs[9].finish_reason, Some(FinishReason::Length));
        assert!(outs[..9].iter().all(|o| o.finish_reason.is_none()));
        let last = batches.last().expect("an idle report");
        assert_eq!(last.stats.num_running_reqs, 0);
        assert_eq!(last.stats.kv_cache_usage, 0.0);
        let ts: Vec<f64> = batches.iter().map(|b| b.timestamp).collect();
        assert!(ts.windows(2).all(|w| w[0] <= w[1]), "monotonic clock");
    }

    #[test]
    fn kv_pressure_preempts_and_requests_still_generate_every_token() {
        // 4 blocks of 16 tokens; each request grows to 40 tokens (3 blocks): both cannot run
        // to the end together.
        let cfg = EngineConfig {
            kv_blocks: 4,
            ..quiet()
        };
        let batches = run(cfg, vec![plan(1, 20, 20), plan(2, 20, 20)]);
        let mut preemptions = 0;
        for id in [1, 2] {
            let outs = outputs_of(&batches, id);
            let tokens: usize = outs.iter().map(|o| o.new_token_ids.len()).sum();
            assert_eq!(tokens, 20, "request {id}");
            assert_eq!(
                outs.last().and_then(|o| o.finish_reason),
                Some(FinishReason::Length)
            );
            assert_eq!(outs.iter().filter(|o| o.prefill_stats.is_some()).count(), 1);
            preemptions += outs
                .iter()
                .flat_map(|o| o.events.iter())
                .filter(|(e, _)| *e == EventType::Preempted)
                .count();
        }
        assert!(preemptions > 0, "the KV budget should force a preemption");
        let preempted_queries: u64 = batches
            .iter()
            .map(|b| b.stats.prefix_cache_stats.preempted_requests)
            .sum();
        assert_eq!(preempted_queries as usize, preemptions);
    }

    #[test]
    fn speculative_steps_yield_accepted_drafts_plus_one() {
        let cfg = EngineConfig {
            spec_tokens: 3,
            spec_acceptance_rate: 1.0,
            ..quiet()
        };
        let batches = run(cfg, vec![plan(1, 8, 9)]);
        let sizes: Vec<usize> = outputs_of(&batches, 1)
            .iter()
            .map(|o| o.new_token_ids.len())
            .collect();
        // Prefill gives 1, then every draft is accepted: 4 per step, cut at max_tokens.
        assert_eq!(sizes, [1, 4, 4]);
        let spec: Vec<&SpecDecodingStats> = batches
            .iter()
            .filter_map(|b| b.stats.spec_decoding_stats.as_ref())
            .collect();
        assert_eq!(spec.len(), 2);
        assert!(spec
            .iter()
            .all(|s| s.num_accepted_tokens_per_pos == [1, 1, 1] && s.num_draft_tokens == 3));
    }
}
