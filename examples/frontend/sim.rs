//! Wires the simulation together: engines, clients and engine churn, until the workload is
//! done or the run is stopped.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::cli::Args;
use crate::clock::SimClock;
use crate::engine_sim::EngineConfig;
use crate::frontend::{lock, Frontend};
use crate::recorders::VllmMetrics;
use crate::report::Report;
use crate::workload::Workload;

pub struct Simulation {
    args: Args,
    frontend: Frontend,
    report: Mutex<Report>,
    stop: AtomicBool,
    done: AtomicBool,
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
        };
        let frontend = Frontend::new(metrics, SimClock::new(args.speed), cfg, args.seed);
        let report = Mutex::new(Report::new(args.seed, args.model_name.clone()));
        Arc::new(Simulation {
            args,
            frontend,
            report,
            stop: AtomicBool::new(false),
            done: AtomicBool::new(false),
        })
    }

    /// Starts the engines and the clients; the returned thread ends when the workload is done
    /// (or stopped) and every engine has drained.
    pub fn start(self: &Arc<Self>) -> JoinHandle<()> {
        for _ in 0..self.args.engines {
            self.frontend.start_engine();
        }
        let sim = self.clone();
        std::thread::Builder::new()
            .name("workload".into())
            .spawn(move || sim.run())
            .expect("spawn workload thread")
    }

    fn run(&self) {
        let workload = Workload {
            args: &self.args,
            frontend: &self.frontend,
            report: &self.report,
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
            for client in clients {
                let _ = client.join();
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

    /// Asks the clients to stop (Ctrl-C); requests in flight are aborted.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    pub fn report_json(&self) -> String {
        lock(&self.report).to_json()
    }
}
