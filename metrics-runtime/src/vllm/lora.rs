//! `vllm:lora_requests_info`: which LoRA adapters running and waiting requests use.
//!
//! One series for the whole frontend, without `model_name`/`engine` labels, labelled with the
//! adapter names (sorted, comma-joined), whose value is the unix time of the last update; the
//! previous series is removed when the sets change and none is exported while no request uses
//! an adapter (vLLM's Rust frontend, `LoraInfoExporter` in
//! `rust/src/engine-core-client/src/metrics.rs`, mirroring the Python frontend's
//! `LoRARequestStates`). vLLM's Python frontend differs in two ways this follows the Rust one
//! on: it keeps a series with empty adapter labels while idle, and adds a `max_lora` label.

use std::collections::BTreeSet;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::vllm::sync::lock;
use crate::{Family, Gauge, LabelSet, MetricHandles};

/// The labels of `vllm:lora_requests_info`: adapter names, sorted and comma-joined.
#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct LoraInfoLabels {
    /// Adapters of running requests.
    pub running_lora_adapters: String,
    /// Adapters of waiting requests.
    pub waiting_lora_adapters: String,
}

/// The family. Help text is vLLM's.
#[derive(Debug, MetricHandles)]
#[metric_handles(handles = LoraInfoHandles, labels = LoraInfoLabels)]
pub struct LoraInfoMetrics {
    /// Running stats on lora requests
    ///
    /// # Computed
    ///
    /// `VllmMetrics::lora().update(&LoraState)`: one series labelled with the running and waiting
    /// adapter names (sorted, comma-joined), set to the unix time of the update; the previous
    /// series is removed when the sets change, and no series is exported while both sets are empty.
    /// No `model_name`/`engine` labels, as in vLLM. This is the Rust frontend's `LoraInfoExporter`;
    /// vLLM's Python frontend also exports a series with empty adapter labels while idle and a
    /// `max_lora` label.
    #[metric(name = "vllm:lora_requests_info", max_label_sets = 4)]
    pub lora_requests_info: Family<LoraInfoLabels, Gauge<f64, AtomicU64>>,
}

/// The adapters in use: plain input, gathered by the frontend from its requests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoraState {
    /// Adapter names of running requests.
    pub running: BTreeSet<String>,
    /// Adapter names of waiting requests.
    pub waiting: BTreeSet<String>,
}

/// Updates `vllm:lora_requests_info`. Obtained from
/// [`VllmMetrics::lora`](crate::vllm::VllmMetrics::lora); cheap to clone, clones share the series.
#[derive(Clone, Debug)]
pub struct LoraInfoRecorder {
    family: Family<LoraInfoLabels, Gauge<f64, AtomicU64>>,
    current: Arc<Mutex<Option<LoraInfoLabels>>>,
}

impl LoraInfoRecorder {
    pub(crate) fn new(metrics: &LoraInfoMetrics) -> Self {
        LoraInfoRecorder {
            family: metrics.lora_requests_info.clone(),
            current: Arc::new(Mutex::new(None)),
        }
    }

    /// Records `state` now (the value is the current unix time).
    pub fn update(&self, state: &LoraState) {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |elapsed| elapsed.as_secs_f64());
        self.update_at(state, now);
    }

    /// Records `state` with `unix_time` as the value: the series of the current sets is set,
    /// a series of previous sets is removed, and nothing is exported while both sets are
    /// empty. A non-finite or negative time records 0. Names are exported as given; one
    /// containing `,` cannot be told apart from two names in the joined label.
    ///
    /// This is a slow path (it may hash, lock and allocate): call it once per scheduler step,
    /// not per token.
    pub fn update_at(&self, state: &LoraState, unix_time: f64) {
        let next =
            (!state.running.is_empty() || !state.waiting.is_empty()).then(|| LoraInfoLabels {
                running_lora_adapters: join(&state.running),
                waiting_lora_adapters: join(&state.waiting),
            });
        // The lock only orders concurrent updates.
        let mut current = lock(&self.current);
        if *current != next {
            if let Some(previous) = current.as_ref() {
                self.family.remove(previous);
            }
        }
        if let Some(labels) = &next {
            let value = if unix_time.is_finite() && unix_time > 0.0 {
                unix_time
            } else {
                0.0
            };
            self.family.get_or_create(labels).set(value);
        }
        *current = next;
    }
}

fn join(names: &BTreeSet<String>) -> String {
    names
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(",")
}
