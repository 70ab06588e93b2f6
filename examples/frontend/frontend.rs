//! The frontend side of the engines: starts and retires engine cores, routes requests to the
//! least loaded one, and runs one output-handler thread per engine that records the engine's
//! `SchedulerStats` and forwards each request's outputs to the client that waits for them,
//! the way an engine-core client does in a real serving frontend.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

use crate::sim::clock::SimClock;
use crate::sim::engine_sim::{Command, Engine, EngineConfig, EngineMessage};
use crate::sim::plan::RequestPlan;
use metric_handles::vllm::cache_config::CacheConfig;
use metric_handles::vllm::request::RequestOutput;
use metric_handles::vllm::scheduler::iteration_tokens;
use metric_handles::vllm::{SchedulerStatsRecorder, VllmMetrics};

/// One output as it reaches the client.
pub struct Delivery {
    pub batch_timestamp: f64,
    pub output: RequestOutput,
}

/// Where each request's outputs go: the HTTP handler serving it awaits them.
type Streams = Arc<Mutex<HashMap<u64, UnboundedSender<Delivery>>>>;

/// The frontend's handle on one engine core.
pub struct EngineClient {
    pub index: u32,
    inbox: mpsc::Sender<Command>,
    streams: Streams,
    in_flight: AtomicUsize,
    /// Sleep mode: no new request is routed here.
    paused: AtomicBool,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl EngineClient {
    /// The client gives up on a request: stop forwarding its outputs and tell the engine.
    pub fn abort(&self, id: u64) {
        lock(&self.streams).remove(&id);
        let _ = self.inbox.send(Command::Abort(id));
    }

    /// The client is done with a request (its tracker has recorded the finish).
    pub fn release(&self) {
        self.in_flight.fetch_sub(1, Ordering::AcqRel);
    }

    /// Requests routed here that are not over.
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Acquire)
    }

    /// Sends the engine core a command (sleep, wake).
    pub fn command(&self, command: Command) {
        let _ = self.inbox.send(command);
    }

    /// Takes requests again after sleep mode.
    pub fn resume(&self) {
        self.paused.store(false, Ordering::Release);
    }
}

struct Router {
    active: Vec<Arc<EngineClient>>,
    cursor: usize,
    next_index: u32,
}

pub struct Frontend {
    metrics: VllmMetrics,
    clock: SimClock,
    cfg: EngineConfig,
    seed: u64,
    router: Mutex<Router>,
}

/// Locks, ignoring poisoning: a panicked client thread must not take the whole demo down.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Frontend {
    pub fn new(metrics: VllmMetrics, clock: SimClock, cfg: EngineConfig, seed: u64) -> Self {
        Frontend {
            metrics,
            clock,
            cfg,
            seed,
            router: Mutex::new(Router {
                active: Vec::new(),
                cursor: 0,
                next_index: 0,
            }),
        }
    }

    pub fn metrics(&self) -> &VllmMetrics {
        &self.metrics
    }

    pub fn clock(&self) -> SimClock {
        self.clock
    }

    /// Starts an engine core with the next unused index (as a data-parallel scale-up would).
    pub fn start_engine(&self) -> u32 {
        let mut router = lock(&self.router);
        let index = router.next_index;
        router.next_index += 1;
        let (cmd_tx, cmd_rx) = mpsc::channel();
        let (out_tx, out_rx) = mpsc::channel();
        let streams: Streams = Arc::default();
        let engine = Engine::new(
            index,
            self.cfg.clone(),
            self.clock,
            self.seed,
            cmd_rx,
            out_tx,
        );
        let engine_thread = std::thread::Builder::new()
            .name(format!("engine-{index}"))
            .spawn(move || engine.run())
            .expect("spawn engine thread");
        // vLLM's Python server exports each engine's KV-cache configuration as
        // `vllm:cache_config_info`; removing the engine removes it.
        let kv_blocks = u64::from(self.cfg.kv_blocks);
        self.metrics.cache_config().set(
            index,
            &CacheConfig {
                block_size: self.cfg.block_size,
                num_gpu_blocks: Some(kv_blocks),
                kv_cache_size_tokens: Some(kv_blocks * u64::from(self.cfg.block_size)),
                ..CacheConfig::default()
            },
        );
        let scheduler = self.metrics.scheduler().clone();
        let handler_streams = streams.clone();
        let handler_thread = std::thread::Builder::new()
            .name(format!("engine-{index}-outputs"))
            .spawn(move || handle_outputs(index, out_rx, scheduler, handler_streams))
            .expect("spawn output handler thread");
        router.active.push(Arc::new(EngineClient {
            index,
            inbox: cmd_tx,
            streams,
            in_flight: AtomicUsize::new(0),
            paused: AtomicBool::new(false),
            threads: Mutex::new(vec![engine_thread, handler_thread]),
        }));
        index
    }

    /// Routes a request to the least loaded engine (ties rotate, so equal engines share the
    /// load) and sends it. `None` when no engine is running.
    pub fn route(
        &self,
        plan: RequestPlan,
    ) -> Option<(Arc<EngineClient>, UnboundedReceiver<Delivery>)> {
        // The send happens under the router lock so that a concurrent `retire_engine` cannot
        // slip its `Drain` in between choosing an engine and handing it the request.
        let mut router = lock(&self.router);
        let n = router.active.len();
        if n == 0 {
            return None;
        }
        let start = router.cursor % n;
        let chosen = (0..n)
            .map(|k| (start + k) % n)
            .filter(|&i| !router.active[i].paused.load(Ordering::Acquire))
            .min_by_key(|&i| router.active[i].in_flight.load(Ordering::Acquire))?;
        router.cursor = chosen + 1;
        let engine = router.active[chosen].clone();
        let (tx, rx) = unbounded_channel();
        lock(&engine.streams).insert(plan.id, tx);
        engine.in_flight.fetch_add(1, Ordering::AcqRel);
        if engine.inbox.send(Command::Add(plan)).is_err() {
            engine.release();
            return None;
        }
        Some((engine, rx))
    }

    /// Sleep mode: stops routing to the lowest-numbered engine taking requests, when at least
    /// one other one takes them too.
    pub fn pause_one_engine(&self) -> Option<Arc<EngineClient>> {
        let router = lock(&self.router);
        let mut awake = router
            .active
            .iter()
            .filter(|e| !e.paused.load(Ordering::Acquire));
        let engine = awake.next()?;
        awake.next()?;
        engine.paused.store(true, Ordering::Release);
        Some(engine.clone())
    }

    /// Scale-down: stops routing to the engine, lets it finish its requests, waits until every
    /// client has recorded its request's finish, then removes the engine's series.
    pub fn retire_engine(&self, index: u32) -> bool {
        let engine = {
            let mut router = lock(&self.router);
            let Some(pos) = router.active.iter().position(|e| e.index == index) else {
                return false;
            };
            let engine = router.active.remove(pos);
            let _ = engine.inbox.send(Command::Drain);
            engine
        };
        for thread in lock(&engine.threads).drain(..) {
            let _ = thread.join();
        }
        while engine.in_flight.load(Ordering::Acquire) > 0 {
            std::thread::sleep(Duration::from_millis(5));
        }
        self.metrics.scheduler().remove_engine(index);
        true
    }

    /// Drains every engine and waits for their threads; their series stay (the run is over,
    /// the final values are the point).
    pub fn shutdown(&self) {
        let engines: Vec<_> = lock(&self.router).active.drain(..).collect();
        for engine in &engines {
            let _ = engine.inbox.send(Command::Drain);
        }
        for engine in &engines {
            for thread in lock(&engine.threads).drain(..) {
                let _ = thread.join();
            }
        }
    }
}

/// The engine-core client's output loop for one engine.
fn handle_outputs(
    index: u32,
    rx: Receiver<EngineMessage>,
    scheduler: SchedulerStatsRecorder,
    streams: Streams,
) {
    for message in rx {
        let batch = match message {
            EngineMessage::Batch(batch) => batch,
            EngineMessage::Exited => break,
        };
        scheduler.record(index, &batch.stats);
        if batch.outputs.is_empty() {
            continue;
        }
        // Computed prompt tokens plus generated tokens, once per non-empty batch.
        let tokens = iteration_tokens(batch.outputs.iter().map(|(_, output)| output));
        scheduler.record_iteration_tokens(index, tokens);
        let mut streams = lock(&streams);
        for (id, output) in batch.outputs {
            let finished = output.finish_reason.is_some();
            if let Some(tx) = streams.get(&id) {
                let _ = tx.send(Delivery {
                    batch_timestamp: batch.timestamp,
                    output,
                });
            }
            if finished {
                streams.remove(&id);
            }
        }
    }
}
