//! Wires the simulation together: engines, the HTTP server's request intake, clients and engine
//! churn, until the workload is done or the run is stopped.

pub mod clock;
pub mod connectors;
pub mod engine_sim;
pub mod http_client;
pub mod kv_cache;
pub mod plan;
pub mod report;
pub mod rng;
pub mod workload;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::cli::Args;
use crate::frontend::{lock, Frontend};
use crate::lora::LoraBook;
use crate::session::Session;
use crate::sim::clock::SimClock;
use crate::sim::connectors::Connectors;
use crate::sim::engine_sim::{Command, EngineConfig};
use crate::sim::plan::RequestPlan;
use crate::sim::report::Report;
use crate::sim::workload::Workload;
use metric_handles::vllm::request::RequestParams;
use metric_handles::vllm::sleep::SleepOperation;
use metric_handles::vllm::VllmMetrics;

pub struct Simulation {
    args: Args,
    frontend: Frontend,
    report: Mutex<Report>,
    lora: LoraBook,
    /// Ids of the requests the server accepted, in arrival order: each request's fate (cached
    /// prefix, engine failure, simulated abort, random streams) is drawn from its id.
    next_request: AtomicU64,
    stop: AtomicBool,
    done: AtomicBool,
}

/// Why a completion request was not started.
#[derive(Debug)]
pub enum SubmitError {
    /// The request cannot be served (too long for the model or the KV cache).
    Invalid(String),
    /// No engine is running (all were retired at once, or the run is stopping).
    NoEngine,
}

impl Simulation {
    pub fn new(args: Args, metrics: VllmMetrics) -> Arc<Self> {
        let cfg = EngineConfig {
            kv_blocks: args.kv_blocks,
            block_size: args.block_size,
            max_num_seqs: args.max_num_seqs,
            max_batched_tokens: args.max_batched_tokens,
            spec_tokens: args.spec_decode_tokens,
            spec_acceptance_rate: args.spec_acceptance_rate,
            stop_rate: args.stop_rate,
            preemption_rate: args.preemption_rate,
            connectors: Connectors::from_args(&args),
        };
        let lora = LoraBook::new(metrics.lora().clone());
        let frontend = Frontend::new(metrics, SimClock::new(args.speed), cfg, args.seed);
        let report = Mutex::new(Report::new(args.seed, args.model_name.clone()));
        Arc::new(Simulation {
            args,
            frontend,
            report,
            lora,
            next_request: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            done: AtomicBool::new(false),
        })
    }

    pub fn args(&self) -> &Args {
        &self.args
    }

    pub fn frontend(&self) -> &Frontend {
        &self.frontend
    }

    pub fn report(&self) -> &Mutex<Report> {
        &self.report
    }

    pub fn lora(&self) -> &LoraBook {
        &self.lora
    }

    /// Starts the engines (the server can take requests from then on).
    pub fn start_engines(&self) {
        for _ in 0..self.args.engines {
            self.frontend.start_engine();
        }
    }

    /// Starts the clients, which send their requests to the server at `server`; the returned
    /// thread ends when the workload is done (or stopped) and every engine has drained.
    pub fn start_clients(self: &Arc<Self>, server: SocketAddr) -> JoinHandle<()> {
        let sim = self.clone();
        std::thread::Builder::new()
            .name("workload".into())
            .spawn(move || sim.run(server))
            .expect("spawn workload thread")
    }

    /// Accepts a completion request of `prompt_len` tokens and at most `max_tokens` generated
    /// ones: draws its fate, routes it to the least loaded engine and starts following it.
    pub fn submit(
        self: &Arc<Self>,
        prompt_len: u32,
        max_tokens: u32,
        lora: Option<String>,
    ) -> Result<Session, SubmitError> {
        let args = &self.args;
        if max_tokens == 0 {
            return Err(SubmitError::Invalid("max_tokens must be at least 1".into()));
        }
        let longest = u64::from(prompt_len) + u64::from(max_tokens);
        if longest > u64::from(args.max_model_len) {
            return Err(SubmitError::Invalid(format!(
                "This model's maximum context length is {} tokens; the request asks for {longest} \
                 ({prompt_len} in the prompt, {max_tokens} to generate)",
                args.max_model_len
            )));
        }
        if longest.div_ceil(u64::from(args.block_size)) > u64::from(args.kv_blocks) {
            return Err(SubmitError::Invalid(format!(
                "the request needs {longest} tokens of KV cache; an engine has {}",
                u64::from(args.kv_blocks) * u64::from(args.block_size)
            )));
        }
        let id = self.next_request.fetch_add(1, Ordering::Relaxed);
        let plan = RequestPlan::draw_for(args, id, prompt_len, max_tokens);
        let abort_after = plan.abort_after;
        let params = RequestParams {
            arrival_time: self.frontend.clock().wall(),
            prompt_len,
            max_tokens_param: Some(max_tokens),
            n_param: 1,
        };
        let (engine, outputs) = self.frontend.route(plan).ok_or(SubmitError::NoEngine)?;
        Ok(Session::new(
            self.clone(),
            id,
            engine,
            outputs,
            params,
            abort_after,
            lora,
        ))
    }

    fn run(&self, server: SocketAddr) {
        let workload = Workload {
            args: &self.args,
            server,
            next_id: AtomicU64::new(0),
            stop: &self.stop,
        };
        std::thread::scope(|scope| {
            let clients: Vec<_> = (0..self.args.concurrency)
                .map(|_| scope.spawn(|| workload.run_client()))
                .collect();
            if self.args.churn_interval > 0.0 {
                scope.spawn(|| self.churn());
            }
            if self.args.sleep_interval > 0.0 {
                scope.spawn(|| self.sleep_cycles());
            }
            for client in clients {
                let _ = client.join();
            }
            // Without built-in clients the server keeps its engines for outside clients.
            while self.args.requests == 0 && !self.stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
            }
            // Clients are done: end churn before draining what is left.
            self.done.store(true, Ordering::Release);
        });
        self.frontend.shutdown();
    }

    /// Engines join and leave mid-run: every interval one joins, the next time the newest one
    /// leaves, so the engine set alternates between `--engines` and `--engines + 1` members.
    fn churn(&self) {
        let clock = self.frontend.clock();
        let interval = clock.real(self.args.churn_interval);
        let mut joined: Option<u32> = None;
        let mut next = Instant::now() + interval;
        while !self.done.load(Ordering::Acquire) && !self.stop.load(Ordering::Relaxed) {
            if Instant::now() < next {
                std::thread::sleep(Duration::from_millis(10).min(interval));
                continue;
            }
            next += interval;
            match joined.take() {
                None => {
                    let index = self.frontend.start_engine();
                    tracing::info!("engine {index} joined");
                    joined = Some(index);
                }
                Some(index) => {
                    tracing::info!("engine {index} leaving: draining its requests");
                    if self.frontend.retire_engine(index) {
                        lock(&self.report).mark_removed(index);
                        tracing::info!("engine {index} left; its series were removed");
                    }
                }
            }
        }
    }

    fn running(&self) -> bool {
        !self.done.load(Ordering::Acquire) && !self.stop.load(Ordering::Relaxed)
    }

    /// Sleeps for `simulated` seconds, in short naps; `false` when the run ended meanwhile.
    fn nap(&self, simulated: f64) -> bool {
        let until = Instant::now() + self.frontend.clock().real(simulated);
        while self.running() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        self.running()
    }

    /// Sleep mode, every `--sleep-interval`: one engine stops taking requests, finishes its
    /// own, sleeps (the frontend times each operation it dispatches) for a quarter of the
    /// interval, and wakes.
    fn sleep_cycles(&self) {
        let interval = self.args.sleep_interval;
        let sleep_mode = self.frontend.metrics().sleep_mode().clone();
        while self.nap(interval) {
            let Some(engine) = self.frontend.pause_one_engine() else {
                continue;
            };
            while engine.in_flight() > 0 && self.running() {
                std::thread::sleep(Duration::from_millis(5));
            }
            tracing::info!("engine {} going to sleep", engine.index);
            {
                let _op = sleep_mode.begin(SleepOperation::Sleep);
                engine.command(Command::Sleep);
                self.nap(0.4);
            }
            {
                let _op = sleep_mode.begin(SleepOperation::ReleaseKvCacheMemory);
                self.nap(0.1);
            }
            self.nap(interval / 4.0);
            {
                let _op = sleep_mode.begin(SleepOperation::Wake);
                engine.command(Command::Wake);
                self.nap(0.3);
            }
            engine.resume();
            tracing::info!("engine {} awake", engine.index);
        }
    }

    /// Asks the clients to stop (Ctrl-C); requests in flight are aborted.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    pub fn report_json(&self) -> String {
        lock(&self.report).to_json()
    }
}
