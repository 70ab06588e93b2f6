//! One request as the frontend's per-request handler sees it: routed to an engine, followed
//! output by output (driving its `RequestMetricsTracker`), and counted in the report when it
//! ends. Dropping an unfinished session (the HTTP client went away) aborts the request, as a
//! serving frontend does when a client disconnects.

use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::sync::mpsc::UnboundedReceiver;

use crate::frontend::{lock, Delivery, EngineClient};
use crate::sim::report::RequestOutcome;
use crate::sim::Simulation;
use metric_handles::vllm::request::{FinishReason, RequestParams};
use metric_handles::vllm::RequestMetricsTracker;

/// What one engine output gives the client.
pub struct Step {
    pub token_ids: Vec<u32>,
    pub finish: Option<FinishReason>,
}

/// The OpenAI completion id of request `id`: what the client receives, and with `--exemplars`
/// the trace id of the request's exemplars.
fn completion_id(id: u64) -> String {
    format!("cmpl-{id}")
}

pub struct Session {
    sim: Arc<Simulation>,
    pub id: u64,
    engine: Arc<EngineClient>,
    outputs: UnboundedReceiver<Delivery>,
    tracker: Option<RequestMetricsTracker>,
    pub outcome: RequestOutcome,
    /// The simulated client gives up once it has this many tokens (`--abort-rate`).
    abort_after: Option<u32>,
    /// The abort point was reached before any output: the next step is the abort.
    abort_now: bool,
    /// The LoRA adapter the request asked for.
    lora: Option<String>,
}

impl Session {
    pub fn new(
        sim: Arc<Simulation>,
        id: u64,
        engine: Arc<EngineClient>,
        outputs: UnboundedReceiver<Delivery>,
        params: RequestParams,
        abort_after: Option<u32>,
        lora: Option<String>,
    ) -> Self {
        if let Some(adapter) = &lora {
            sim.lora().set(id, adapter, false);
        }
        let outcome = RequestOutcome::new(params.prompt_len);
        let mut tracker = sim
            .frontend()
            .metrics()
            .requests()
            .track(engine.index, params);
        if sim.args().exemplars {
            // An id of a few digits is far inside OpenMetrics' 128 characters; were it refused,
            // the request would record without exemplars, and `rejected_exemplars` count it.
            let _ = tracker.set_trace_id(&completion_id(id));
        }
        Session {
            outcome,
            sim,
            id,
            engine,
            outputs,
            tracker: Some(tracker),
            abort_now: abort_after == Some(0),
            abort_after,
            lora,
        }
    }

    /// The OpenAI completion id the client receives (`cmpl-<id>`).
    pub fn completion_id(&self) -> String {
        completion_id(self.id)
    }

    pub fn prompt_tokens(&self) -> u32 {
        self.outcome.prompt_len
    }

    /// The next output, or `None` after the finish. An aborted request (simulated client
    /// abort, or the engine went away) finishes with `FinishReason::Abort`.
    pub fn poll_step(&mut self, cx: &mut Context<'_>) -> Poll<Option<Step>> {
        if self.tracker.is_none() {
            return Poll::Ready(None);
        }
        if self.abort_now {
            return Poll::Ready(Some(self.abort()));
        }
        let delivery = match self.outputs.poll_recv(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(None) => return Poll::Ready(Some(self.abort())),
            Poll::Ready(Some(delivery)) => delivery,
        };
        let received_at = self.sim.frontend().clock().wall();
        if let Some(tracker) = self.tracker.as_mut() {
            tracker.observe_output(delivery.batch_timestamp, received_at, &delivery.output);
        }
        let had_tokens = self.outcome.first_token_seen;
        self.outcome.observe(&delivery.output);
        if let (Some(adapter), false, true) =
            (&self.lora, had_tokens, self.outcome.first_token_seen)
        {
            self.sim.lora().set(self.id, adapter, true);
        }
        let step = Step {
            token_ids: delivery.output.new_token_ids,
            finish: self.outcome.reason,
        };
        if step.finish.is_some() {
            // The tracker recorded the finish with the output.
            self.tracker = None;
            self.end();
        } else if self
            .abort_after
            .is_some_and(|k| self.outcome.tokens >= u64::from(k))
        {
            self.abort_now = true;
        }
        Poll::Ready(Some(step))
    }

    /// Awaits the next output (see [`Session::poll_step`]).
    pub async fn step(&mut self) -> Option<Step> {
        std::future::poll_fn(|cx| self.poll_step(cx)).await
    }

    fn abort(&mut self) -> Step {
        self.abort_now = false;
        self.engine.abort(self.id);
        if let Some(tracker) = self.tracker.take() {
            tracker.abort(self.sim.frontend().clock().wall());
        }
        self.outcome.reason = Some(FinishReason::Abort);
        self.end();
        Step {
            token_ids: Vec::new(),
            finish: Some(FinishReason::Abort),
        }
    }

    /// Counts the request in the report, then frees the engine (last: a retiring engine's
    /// series are removed once no request holds it).
    fn end(&mut self) {
        if self.lora.is_some() {
            self.sim.lora().remove(self.id);
        }
        lock(self.sim.report()).record(self.engine.index, &self.outcome);
        self.engine.release();
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.tracker.is_some() {
            self.abort();
        }
    }
}
