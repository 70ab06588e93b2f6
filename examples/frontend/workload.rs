//! The simulated clients: each sends a request, follows its outputs and, like a frontend's
//! per-request handler, drives the request's `RequestMetricsTracker` from its own thread.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Mutex;
use std::time::Duration;

use crate::cli::Args;
use crate::frontend::{lock, Frontend};
use crate::plan::RequestPlan;
use crate::recorders::{FinishReason, RequestParams};
use crate::report::{Report, RequestOutcome};

/// State the client threads share.
pub struct Workload<'a> {
    pub args: &'a Args,
    pub frontend: &'a Frontend,
    pub report: &'a Mutex<Report>,
    pub next_id: AtomicU64,
    pub stop: &'a AtomicBool,
}

impl Workload<'_> {
    /// One client: requests back to back until the workload is exhausted or stopped.
    pub fn run_client(&self) {
        while !self.stop.load(Ordering::Relaxed) {
            let id = self.next_id.fetch_add(1, Ordering::Relaxed);
            if self.args.requests > 0 && id >= self.args.requests {
                return;
            }
            let plan = RequestPlan::draw(self.args, id);
            if !self.run_request(plan) {
                // No engine is up (all retired at once): wait for one to join.
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }

    fn run_request(&self, plan: RequestPlan) -> bool {
        let clock = self.frontend.clock();
        let arrival_time = clock.wall();
        let id = plan.id;
        let abort_after = plan.abort_after;
        let mut outcome = RequestOutcome::new(plan.prompt_len);
        let params = RequestParams {
            arrival_time,
            prompt_len: plan.prompt_len,
            max_tokens_param: Some(plan.max_tokens),
            n_param: 1,
        };
        let Some((engine, outputs)) = self.frontend.route(plan) else {
            return false;
        };
        let mut tracker = self
            .frontend
            .metrics()
            .requests()
            .track(engine.index, params);
        let mut give_up = abort_after == Some(0);
        while !give_up {
            match outputs.recv_timeout(Duration::from_millis(100)) {
                Ok(delivery) => {
                    let received_at = clock.wall();
                    tracker.observe_output(delivery.batch_timestamp, received_at, &delivery.output);
                    outcome.observe(&delivery.output);
                    if outcome.reason.is_some() {
                        break;
                    }
                    give_up = abort_after.is_some_and(|k| outcome.tokens >= u64::from(k));
                }
                Err(RecvTimeoutError::Timeout) => give_up = self.stop.load(Ordering::Relaxed),
                // The engine went away without finishing the request.
                Err(RecvTimeoutError::Disconnected) => give_up = true,
            }
        }
        if outcome.reason.is_none() {
            engine.abort(id);
            tracker.abort(clock.wall());
            outcome.reason = Some(FinishReason::Abort);
        }
        lock(self.report).record(engine.index, &outcome);
        // Last: a retiring engine's series are removed once no client holds a request on it.
        engine.release();
        true
    }
}
