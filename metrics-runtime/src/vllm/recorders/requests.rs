//! [`RequestMetricsTracker`]: one per request, writes the lifecycle's records into the cached
//! request handles of the engine the request was routed to.

use std::fmt;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::exemplar::{self, EncodedLabels, ExemplarError};
use crate::vllm::recorders::core::{Core, EngineEntry};
use crate::vllm::request::input::{FinishReason, RequestOutput};
use crate::vllm::request::lifecycle::{
    FinishRecord, OutputRecord, ParentFields, RequestLifecycle, RequestParams,
};
use crate::vllm::request::record::Itl;

/// Creates request trackers. Obtained from
/// [`VllmMetrics::requests`](crate::vllm::VllmMetrics::requests); cheap to clone.
#[derive(Clone)]
pub struct RequestMetricsRecorder {
    core: Arc<Core>,
}

impl RequestMetricsRecorder {
    pub(crate) fn new(core: Arc<Core>) -> Self {
        RequestMetricsRecorder { core }
    }

    /// Starts tracking a request routed to `engine`. The tracker holds its engine's handles
    /// (one `Arc` clone; the engine's series are resolved here if it was never seen).
    ///
    /// The request records `request_params_n` with `params.n_param` itself: the form vLLM's
    /// Rust frontend uses, where each of `n` choices is its own request with `n = 1`. For the
    /// parent form (one parent with the real `n`), use [`track_parallel`](Self::track_parallel).
    pub fn track(&self, engine: u32, params: RequestParams) -> RequestMetricsTracker {
        let entry = self.core.engine_arc(engine);
        RequestMetricsTracker {
            itl: Itl::of(&entry.requests),
            entry,
            lifecycle: RequestLifecycle::new(params),
            parent: None,
            trace: None,
        }
    }

    /// Starts tracking a parallel-sampling request (`n = params.n_param`) in vLLM's Python
    /// frontend's parent form: returns one tracker per sequence. Each child records its own
    /// outputs and finish like a request of its own (TTFT, ITL, tokens, latencies,
    /// `request_success`, ...), except `request_params_n` and
    /// `request_max_num_generation_tokens`, which are recorded once for the parent, with the
    /// real `n` and the most tokens any child generated, when the last child finishes (or is
    /// dropped, which finishes it as `abort`).
    ///
    /// With `n_param` 0 or 1 this is [`track`](Self::track) (a single tracker, `n` recorded as
    /// given).
    pub fn track_parallel(&self, engine: u32, params: RequestParams) -> Vec<RequestMetricsTracker> {
        if params.n_param <= 1 {
            return vec![self.track(engine, params)];
        }
        let entry = self.core.engine_arc(engine);
        let parent = Arc::new(ParentState {
            n: params.n_param,
            remaining: AtomicU32::new(params.n_param),
            max_generation_tokens: AtomicU64::new(0),
        });
        (0..params.n_param)
            .map(|_| RequestMetricsTracker {
                itl: Itl::of(&entry.requests),
                entry: Arc::clone(&entry),
                lifecycle: RequestLifecycle::new_child(params),
                parent: Some(Arc::clone(&parent)),
                trace: None,
            })
            .collect()
    }

    /// Outputs received after their request had finished, and so ignored. They are also
    /// logged with `tracing::warn!`, at most once per 10 seconds (each warning says how many it
    /// held back), so a frontend bug cannot flood the log.
    pub fn ignored_outputs(&self) -> u64 {
        self.core
            .diagnostics
            .outputs_after_finish
            .load(Ordering::Relaxed)
    }

    /// Explicit finishes ([`RequestMetricsTracker::finish`], [`RequestMetricsTracker::abort`])
    /// of requests that had already finished, and so ignored: a request is counted in
    /// `vllm:request_success` exactly once. Each is also logged with `tracing::debug!` (not
    /// `warn!`: aborting on a client disconnect that races with the last output is normal).
    pub fn ignored_finishes(&self) -> u64 {
        self.core
            .diagnostics
            .finishes_after_finish
            .load(Ordering::Relaxed)
    }
}

impl fmt::Debug for RequestMetricsRecorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestMetricsRecorder")
            .field("ignored_outputs", &self.ignored_outputs())
            .field("ignored_finishes", &self.ignored_finishes())
            .finish()
    }
}

/// The shared state of a parallel-sampling parent's children.
#[derive(Debug)]
struct ParentState {
    n: u32,
    remaining: AtomicU32,
    max_generation_tokens: AtomicU64,
}

/// Records one request's metrics as its outputs arrive.
///
/// Every method records through the cached handles of the request's engine: atomic operations
/// only, no hashing, lock or allocation (except the `tracing::warn!` for an ignored output).
///
/// Each output's tokens are added to `vllm:generation_tokens` as the output arrives (one
/// atomic add), as vLLM's Rust frontend does (`rust/src/llm/src/request_metrics.rs`). Its
/// `vllm:inter_token_latency_seconds` sample is kept in the tracker with plain arithmetic and
/// merged into the engine's series every
/// [`FLUSH_INTERVAL_TOKENS`](crate::vllm::request::FLUSH_INTERVAL_TOKENS) generated tokens, at the
/// finish, on [`flush`](Self::flush), and when the tracker is dropped: vLLM's Rust frontend
/// batches these samples the same way (`VLLM_RS_ITL_FLUSH_INTERVAL_TOKENS`). A scrape during
/// the request lags it by fewer than that many samples, and once the request has finished the
/// exposition is the same, byte for byte, as if every output had been recorded directly.
/// Everything else (time to first token, prompt counters, preemptions, the finish) is recorded
/// as it happens.
///
/// Defined behaviour for bad input:
/// * an output after the finish is ignored, counted in
///   [`RequestMetricsRecorder::ignored_outputs`] and logged with `tracing::warn!` (at most once
///   per 10 seconds);
/// * a second finish records nothing: a finish reason on an output after the finish is an
///   ignored output (above); [`finish`](Self::finish) or [`abort`](Self::abort) after the finish
///   is counted in [`RequestMetricsRecorder::ignored_finishes`] and logged with `tracing::debug!`;
/// * durations between two clock readings that went backwards, or with a NaN or infinite
///   reading, record 0 (the sample is still counted); request phases use vLLM's rule
///   (`end - start`, or `0` when either event was not seen, i.e. its timestamp is 0);
/// * counters saturate at `u64::MAX`.
///
/// A tracker dropped before a finish records the request as finished with reason `abort` at
/// the current wall-clock time, exactly once.
///
/// With a trace id ([`set_trace_id`](Self::set_trace_id)), the request's observations carry it
/// as their exemplar (`trace_id="..."`): its time to first token, end-to-end latency, the last
/// inter-token latency of each merge, and each output's `vllm:generation_tokens` increment.
/// OpenMetrics and protobuf scrapes write them; a trace backend links a slow bucket to the
/// request that landed in it.
pub struct RequestMetricsTracker {
    entry: Arc<EngineEntry>,
    lifecycle: RequestLifecycle,
    parent: Option<Arc<ParentState>>,
    itl: Itl,
    /// The exemplar labels of the request's observations, checked once.
    trace: Option<Box<EncodedLabels>>,
}

impl RequestMetricsTracker {
    /// Makes `trace_id` (an OpenAI request id, a W3C trace id) the exemplar of this request's
    /// observations from now on, as the label `trace_id`. Checked once here against
    /// OpenMetrics' limit (128 characters of label names and values, so 120 for the id): a
    /// longer id is refused with the error (and counted in
    /// [`rejected_exemplars`](crate::exemplar::rejected_exemplars)), and the request records without
    /// exemplars. Allocates once, for the checked labels; every record after that allocates
    /// nothing.
    pub fn set_trace_id(&mut self, trace_id: &str) -> Result<(), ExemplarError> {
        match EncodedLabels::try_from_pairs(&[("trace_id", trace_id)]) {
            Ok(labels) => {
                self.trace = Some(Box::new(labels));
                Ok(())
            }
            Err(error) => {
                self.trace = None;
                exemplar::count_rejected();
                Err(error)
            }
        }
    }

    /// Records one output of the request: `batch_timestamp` is the engine's monotonic clock
    /// for the batch, `received_at` the frontend's wall clock (unix seconds). An output with a
    /// finish reason also records the finish.
    pub fn observe_output(
        &mut self,
        batch_timestamp: f64,
        received_at: f64,
        output: &RequestOutput,
    ) {
        match self
            .lifecycle
            .observe_output(batch_timestamp, received_at, output)
        {
            Some(record) => {
                self.write_output(&record);
                if let Some(reason) = output.finish_reason {
                    self.finish(reason, received_at);
                }
            }
            None => self.ignored(),
        }
    }

    /// Finishes the request as aborted (the client went away) at `received_at`. Records
    /// nothing if it had already finished.
    pub fn abort(mut self, received_at: f64) {
        self.finish(FinishReason::Abort, received_at);
    }

    /// Finishes the request with `reason` at `received_at`, when the engine's output did not
    /// carry it (an error surfaced by the frontend, for instance). Records nothing if it had
    /// already finished.
    pub fn finish(&mut self, reason: FinishReason, received_at: f64) {
        match self.lifecycle.finish(reason, received_at) {
            Some(finish) => self.write_finish(&finish),
            None => self.second_finish(reason),
        }
    }

    /// Merges the inter-token-latency samples kept in the tracker into the engine's series now
    /// (they are merged every [`FLUSH_INTERVAL_TOKENS`](crate::vllm::request::FLUSH_INTERVAL_TOKENS)
    /// tokens and at the finish anyway).
    pub fn flush(&mut self) {
        self.itl.flush(self.trace.as_deref());
    }

    /// Whether the finish has been recorded.
    pub fn is_finished(&self) -> bool {
        self.lifecycle.is_finished()
    }

    /// The engine the request was routed to.
    pub fn engine(&self) -> u32 {
        self.entry.labels.engine
    }

    /// The request's state so far.
    pub fn lifecycle(&self) -> &RequestLifecycle {
        &self.lifecycle
    }

    fn write_output(&mut self, record: &OutputRecord) {
        self.itl.record(record, self.trace.as_deref());
        self.entry
            .requests
            .record_output(record, self.trace.as_deref());
    }

    fn write_finish(&mut self, finish: &FinishRecord) {
        self.flush();
        let h = &self.entry.requests;
        h.record_finish(finish, self.trace.as_deref());
        if let (None, Some(parent)) = (&finish.parent_fields, &self.parent) {
            parent
                .max_generation_tokens
                .fetch_max(finish.generation_tokens, Ordering::Relaxed);
            // AcqRel: the last child must see every other child's `fetch_max`.
            if parent.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
                h.record_parent_fields(&ParentFields {
                    n: parent.n,
                    max_generation_tokens: parent.max_generation_tokens.load(Ordering::Relaxed),
                });
            }
        }
    }

    #[cold]
    fn second_finish(&self, reason: FinishReason) {
        self.entry
            .diagnostics
            .finishes_after_finish
            .fetch_add(1, Ordering::Relaxed);
        tracing::debug!(
            engine = self.entry.labels.engine,
            ?reason,
            "vLLM metrics: request finished again after its finish; ignored"
        );
    }

    #[cold]
    fn ignored(&self) {
        self.entry
            .diagnostics
            .outputs_after_finish
            .fetch_add(1, Ordering::Relaxed);
        if let Some(held_back) = self.entry.diagnostics.outputs_after_finish_warning.admit() {
            tracing::warn!(
                engine = self.entry.labels.engine,
                held_back,
                "vLLM metrics: request output received after the request finished; ignored \
                 (at most one such warning per 10 s: held_back counts those not logged since \
                 the last one; RequestMetricsRecorder::ignored_outputs counts all)"
            );
        }
    }
}

impl Drop for RequestMetricsTracker {
    fn drop(&mut self) {
        if !self.lifecycle.is_finished() {
            self.finish(FinishReason::Abort, unix_now());
        }
    }
}

impl fmt::Debug for RequestMetricsTracker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestMetricsTracker")
            .field("engine", &self.engine())
            .field("lifecycle", &self.lifecycle)
            .finish()
    }
}

/// The wall clock in unix seconds; 0 if the clock is before 1970 (then e2e records 0).
fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}
