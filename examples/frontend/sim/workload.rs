//! The built-in load clients: each sends completion requests to the server over real HTTP
//! (three streamed for each plain one), back to back, and reads every response to its end.
//! The server side (the per-request handler following the engines' outputs) is
//! [`crate::session`]; what the clients see is what any OpenAI client would.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{json, Value};

use crate::cli::{lora_adapter_name, Args};
use crate::sim::http_client::{post_json, SseReader};
use crate::sim::plan::RequestPlan;

/// State the client threads share.
pub struct Workload<'a> {
    pub args: &'a Args,
    pub server: SocketAddr,
    pub next_id: AtomicU64,
    pub stop: &'a AtomicBool,
}

/// What a client got back from one request.
#[derive(Debug, Default, PartialEq)]
pub struct Received {
    pub status: u16,
    pub tokens: u64,
    pub finish_reason: Option<String>,
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
            // A request the server refused (no engine while engines churn, the connection
            // cap) is sent again; any other answer, an error included, ends it: the workload
            // counts requests the server took.
            while !self.stop.load(Ordering::Relaxed) {
                match self.send(&plan, id % 4 != 3) {
                    Ok(received) if received.status == 503 => {}
                    Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {}
                    Ok(received) => {
                        if received.status != 200 {
                            tracing::debug!("request {id}: status {}", received.status);
                        }
                        break;
                    }
                    Err(e) => {
                        tracing::debug!("request {id}: {e}");
                        break;
                    }
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }

    /// Sends one completion request with the plan's lengths (a text prompt of
    /// `prompt_len` words) and reads the response to its end.
    pub fn send(&self, plan: &RequestPlan, stream: bool) -> std::io::Result<Received> {
        let prompt = "hi ".repeat(plan.prompt_len as usize);
        let model = match plan.lora {
            Some(k) => lora_adapter_name(k),
            None => self.args.model_name.clone(),
        };
        let request = json!({
            "model": model,
            "prompt": prompt,
            "max_tokens": plan.max_tokens,
            "stream": stream,
        });
        let mut received = Received::default();
        let mut sse = SseReader::default();
        let mut body = Vec::new();
        received.status = post_json(
            self.server,
            "/v1/completions",
            request.to_string().as_bytes(),
            |bytes| {
                if stream {
                    sse.feed(bytes, |data| observe_chunk(&mut received, data));
                } else {
                    body.extend_from_slice(bytes);
                }
            },
        )?;
        if !stream {
            if let Ok(value) = serde_json::from_slice::<Value>(&body) {
                observe_choice(&mut received, &value);
            }
        }
        Ok(received)
    }
}

fn observe_chunk(received: &mut Received, data: &str) {
    if data == "[DONE]" {
        return;
    }
    if let Ok(value) = serde_json::from_str::<Value>(data) {
        observe_choice(received, &value);
    }
}

fn observe_choice(received: &mut Received, value: &Value) {
    let Some(choice) = value["choices"].get(0) else {
        return;
    };
    if let Some(text) = choice["text"].as_str() {
        received.tokens += text.split_whitespace().count() as u64;
    }
    if let Some(reason) = choice["finish_reason"].as_str() {
        received.finish_reason = Some(reason.to_owned());
    }
}
