//! What the simulated clients saw, per engine: the ground truth the end-to-end tests compare
//! the exported counters with. Counted from the outputs each client received, independently
//! of the recorders.

use std::collections::BTreeMap;

use serde::Serialize;

use metric_handles::vllm::request::{EventType, FinishReason, RequestOutput};
use metric_handles::LabelEnum;

#[derive(Clone, Debug, Default, Serialize)]
pub struct EngineTotals {
    /// Requests routed to the engine whose finish the client recorded.
    pub requests: u64,
    /// Requests by finish reason (`stop`, `length`, `abort`, `error`), all present.
    pub finished: BTreeMap<String, u64>,
    /// Prompt tokens of requests that received a first token (when vLLM counts them).
    pub prompt_tokens: u64,
    /// Prompt tokens served from the prefix cache, same requests.
    pub prompt_tokens_cached: u64,
    /// Tokens delivered to clients.
    pub generation_tokens: u64,
    /// Requests that received at least one token (TTFT samples).
    pub first_tokens: u64,
    /// Outputs with tokens after the first such output (ITL samples).
    pub later_token_outputs: u64,
    /// Preemption events delivered.
    pub preemptions: u64,
    /// The engine left mid-run and its series were removed.
    pub removed: bool,
}

#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub seed: u64,
    pub model_name: String,
    pub engines: BTreeMap<u32, EngineTotals>,
    /// Sum over engines, removed ones included.
    pub total: EngineTotals,
}

/// One request's view, built up by its client.
#[derive(Debug, Default)]
pub struct RequestOutcome {
    pub prompt_len: u32,
    pub tokens: u64,
    pub cached: u64,
    pub first_token_seen: bool,
    pub prompt_counted: bool,
    pub later_token_outputs: u64,
    pub preemptions: u64,
    pub reason: Option<FinishReason>,
}

impl RequestOutcome {
    pub fn new(prompt_len: u32) -> Self {
        RequestOutcome {
            prompt_len,
            ..RequestOutcome::default()
        }
    }

    pub fn observe(&mut self, output: &RequestOutput) {
        let n = output.new_token_ids.len() as u64;
        self.tokens += n;
        self.preemptions += output
            .events
            .iter()
            .filter(|(e, _)| *e == EventType::Preempted)
            .count() as u64;
        if n > 0 {
            if self.first_token_seen {
                self.later_token_outputs += 1;
            } else {
                self.first_token_seen = true;
                if let Some(p) = output.prefill_stats {
                    self.prompt_counted = true;
                    self.cached = u64::from(p.num_cached_tokens);
                }
            }
        }
        if self.reason.is_none() {
            self.reason = output.finish_reason;
        }
    }
}

impl EngineTotals {
    fn empty() -> Self {
        EngineTotals {
            finished: FinishReason::VALUES
                .iter()
                .map(|reason| (reason.to_string(), 0))
                .collect(),
            ..EngineTotals::default()
        }
    }

    fn add(&mut self, o: &RequestOutcome) {
        self.requests += 1;
        let reason = o.reason.unwrap_or(FinishReason::Abort);
        *self
            .finished
            .entry(reason.label_value().to_owned())
            .or_default() += 1;
        if o.prompt_counted {
            self.prompt_tokens += u64::from(o.prompt_len);
            self.prompt_tokens_cached += o.cached;
        }
        self.generation_tokens += o.tokens;
        self.first_tokens += u64::from(o.first_token_seen);
        self.later_token_outputs += o.later_token_outputs;
        self.preemptions += o.preemptions;
    }
}

impl Report {
    pub fn new(seed: u64, model_name: String) -> Self {
        Report {
            seed,
            model_name,
            engines: BTreeMap::new(),
            total: EngineTotals::empty(),
        }
    }

    pub fn record(&mut self, engine: u32, outcome: &RequestOutcome) {
        self.engines
            .entry(engine)
            .or_insert_with(EngineTotals::empty)
            .add(outcome);
        self.total.add(outcome);
    }

    pub fn mark_removed(&mut self, engine: u32) {
        self.engines
            .entry(engine)
            .or_insert_with(EngineTotals::empty)
            .removed = true;
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}
