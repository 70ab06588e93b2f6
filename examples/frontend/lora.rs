//! Which LoRA adapters the requests in flight use, published as `vllm:lora_requests_info`
//! whenever it changes: a request is waiting until its first token, running after.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use metric_handles::vllm::lora::LoraInfoRecorder;

use crate::frontend::lock;
use metric_handles::vllm::lora::LoraState;

pub struct LoraBook {
    recorder: LoraInfoRecorder,
    /// Request id -> (adapter, running).
    requests: Mutex<BTreeMap<u64, (String, bool)>>,
}

impl LoraBook {
    pub fn new(recorder: LoraInfoRecorder) -> Self {
        LoraBook {
            recorder,
            requests: Mutex::new(BTreeMap::new()),
        }
    }

    /// Request `id` for `adapter` is waiting (`running == false`) or running.
    pub fn set(&self, id: u64, adapter: &str, running: bool) {
        let mut requests = lock(&self.requests);
        requests.insert(id, (adapter.to_owned(), running));
        self.publish(&requests);
    }

    /// Request `id` is over.
    pub fn remove(&self, id: u64) {
        let mut requests = lock(&self.requests);
        if requests.remove(&id).is_some() {
            self.publish(&requests);
        }
    }

    fn publish(&self, requests: &BTreeMap<u64, (String, bool)>) {
        let mut state = LoraState {
            running: BTreeSet::new(),
            waiting: BTreeSet::new(),
        };
        for (adapter, running) in requests.values() {
            let set = if *running {
                &mut state.running
            } else {
                &mut state.waiting
            };
            set.insert(adapter.clone());
        }
        self.recorder.update(&state);
    }
}
