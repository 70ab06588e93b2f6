//! The OpenAI-compatible API over the simulated engines: `POST /v1/completions` (plain JSON, or
//! server-sent events with `"stream": true`), `GET /v1/models` and `GET /health`.
//!
//! The simulated tokenizer: a text prompt has one token per whitespace-separated word (a prompt
//! may also be a list of token ids), and each generated token is one word (` t<id>`), so a client
//! can count the tokens it received from the text alone. Errors use OpenAI's error object.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use hyper::body::{Frame, SizeHint};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::routes::AppState;
use crate::session::{Session, Step};
use crate::sim::SubmitError;
use metric_handles::vllm::request::FinishReason;
use metric_handles::LabelEnum;

/// Largest request body accepted.
const MAX_BODY_BYTES: usize = 4 << 20;

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Prompt {
    Text(String),
    TokenIds(Vec<u32>),
    Batch(Vec<Value>),
}

#[derive(Debug, Default, Deserialize)]
struct StreamOptions {
    #[serde(default)]
    include_usage: bool,
}

#[derive(Debug, Deserialize)]
struct CompletionRequest {
    model: String,
    prompt: Prompt,
    #[serde(default)]
    max_tokens: Option<u32>,
    #[serde(default)]
    stream: bool,
    #[serde(default)]
    stream_options: Option<StreamOptions>,
    #[serde(default)]
    n: Option<u32>,
}

/// OpenAI's default `max_tokens` for completions.
const DEFAULT_MAX_TOKENS: u32 = 16;

pub fn error(status: StatusCode, kind: &str, message: impl Into<String>) -> Response {
    let body = json!({
        "error": {
            "message": message.into(),
            "type": kind,
            "param": Value::Null,
            "code": status.as_u16(),
        }
    });
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn bad_request(message: impl Into<String>) -> Response {
    error(StatusCode::BAD_REQUEST, "BadRequestError", message)
}

pub async fn health() -> StatusCode {
    StatusCode::OK
}

pub async fn models(State(state): State<Arc<AppState>>) -> Response {
    let args = state.sim.args();
    let model = |id: &str, parent: Value| {
        json!({
            "id": id,
            "object": "model",
            "created": state.started,
            "owned_by": "vllm",
            "root": args.model_name,
            "parent": parent,
            "max_model_len": args.max_model_len,
        })
    };
    let mut data = vec![model(&args.model_name, Value::Null)];
    data.extend(
        args.lora_adapter_names()
            .iter()
            .map(|name| model(name, Value::from(args.model_name.as_str()))),
    );
    let body = json!({ "object": "list", "data": data });
    json_response(StatusCode::OK, &body)
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// Reads the body within the body-read timeout and the size limit.
async fn read_body(request: Request, timeout: Duration) -> Result<Bytes, Response> {
    let body = axum::body::to_bytes(request.into_body(), MAX_BODY_BYTES);
    match tokio::time::timeout(timeout, body).await {
        Err(_) => Err(error(
            StatusCode::REQUEST_TIMEOUT,
            "RequestTimeoutError",
            "the request body did not arrive in time",
        )),
        Ok(Err(_)) => Err(error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "BadRequestError",
            format!("the request body is unreadable or larger than {MAX_BODY_BYTES} bytes"),
        )),
        Ok(Ok(bytes)) => Ok(bytes),
    }
}

/// Counts a prompt's tokens; `Err` says why this server does not take the prompt.
fn prompt_tokens(prompt: &Prompt) -> Result<u32, String> {
    let n = match prompt {
        Prompt::Text(text) => text.split_whitespace().count(),
        Prompt::TokenIds(ids) => ids.len(),
        Prompt::Batch(prompts) => {
            return Err(format!(
                "this server takes one prompt per request (a string or a list of token ids), \
                 not a batch of {}",
                prompts.len()
            ))
        }
    };
    match u32::try_from(n) {
        Ok(0) => Err("the prompt is empty".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("the prompt is too long".into()),
    }
}

pub async fn completions(State(state): State<Arc<AppState>>, request: Request) -> Response {
    let body = match read_body(request, state.body_read_timeout).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let request: CompletionRequest = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(e) => return bad_request(format!("invalid completion request: {e}")),
    };
    let args = state.sim.args();
    // The base model, or one of the LoRA adapters served on it.
    let lora = if request.model == args.model_name {
        None
    } else if args.lora_adapter_names().contains(&request.model) {
        Some(request.model.clone())
    } else {
        return error(
            StatusCode::NOT_FOUND,
            "NotFoundError",
            format!("The model `{}` does not exist.", request.model),
        );
    };
    if request.n.is_some_and(|n| n != 1) {
        return bad_request("this server generates one choice per request (n = 1)");
    }
    let prompt_len = match prompt_tokens(&request.prompt) {
        Ok(n) => n,
        Err(message) => return bad_request(message),
    };
    let max_tokens = request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    let session = match state.sim.submit(prompt_len, max_tokens, lora) {
        Ok(session) => session,
        Err(SubmitError::Invalid(message)) => return bad_request(message),
        Err(SubmitError::NoEngine) => {
            return error(
                StatusCode::SERVICE_UNAVAILABLE,
                "ServiceUnavailableError",
                "no engine is running",
            )
        }
    };
    let meta = CompletionMeta {
        id: session.completion_id(),
        created: state.started,
        model: request.model,
    };
    if request.stream {
        let include_usage = request.stream_options.is_some_and(|o| o.include_usage);
        let body = CompletionStream {
            session,
            meta,
            include_usage,
            state: StreamState::Tokens,
        };
        return (
            [
                (header::CONTENT_TYPE, "text/event-stream"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            Body::new(body),
        )
            .into_response();
    }
    complete(session, meta).await
}

struct CompletionMeta {
    id: String,
    created: u64,
    model: String,
}

fn text_of(token_ids: &[u32]) -> String {
    token_ids.iter().map(|id| format!(" t{id}")).collect()
}

fn finish_label(reason: Option<FinishReason>) -> Value {
    reason.map_or(Value::Null, |r| Value::from(r.label_value()))
}

fn usage(session: &Session) -> Value {
    let o = &session.outcome;
    json!({
        "prompt_tokens": session.prompt_tokens(),
        "completion_tokens": o.tokens,
        "total_tokens": u64::from(session.prompt_tokens()) + o.tokens,
        "prompt_tokens_details": { "cached_tokens": o.cached },
    })
}

/// A plain (not streamed) completion: waits for the finish.
async fn complete(mut session: Session, meta: CompletionMeta) -> Response {
    let mut text = String::new();
    let mut finish = None;
    while let Some(step) = session.step().await {
        text.push_str(&text_of(&step.token_ids));
        finish = step.finish;
    }
    if finish == Some(FinishReason::Error) {
        return error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalServerError",
            "the engine failed the request",
        );
    }
    let body = json!({
        "id": meta.id,
        "object": "text_completion",
        "created": meta.created,
        "model": meta.model,
        "choices": [{
            "index": 0,
            "text": text,
            "logprobs": Value::Null,
            "finish_reason": finish_label(finish),
        }],
        "usage": usage(&session),
    });
    json_response(StatusCode::OK, &body)
}

enum StreamState {
    Tokens,
    Usage,
    Done,
    Ended,
}

/// The server-sent events of a streamed completion: one `text_completion` chunk per engine
/// output with tokens, the finish, optionally the usage chunk, then `data: [DONE]`. Dropping it
/// (the client went away) aborts the request.
struct CompletionStream {
    session: Session,
    meta: CompletionMeta,
    include_usage: bool,
    state: StreamState,
}

impl CompletionStream {
    fn chunk(&self, text: String, finish: Option<FinishReason>) -> Bytes {
        let chunk = json!({
            "id": self.meta.id,
            "object": "text_completion",
            "created": self.meta.created,
            "model": self.meta.model,
            "choices": [{
                "index": 0,
                "text": text,
                "logprobs": Value::Null,
                "finish_reason": finish_label(finish),
            }],
        });
        event(&chunk)
    }

    fn step_event(&mut self, step: Step) -> Option<Bytes> {
        if step.finish.is_some() {
            self.state = if self.include_usage {
                StreamState::Usage
            } else {
                StreamState::Done
            };
        }
        if step.finish == Some(FinishReason::Error) {
            let error = json!({"error": {
                "message": "the engine failed the request",
                "type": "InternalServerError",
                "param": Value::Null,
                "code": 500,
            }});
            return Some(event(&error));
        }
        if step.token_ids.is_empty() && step.finish.is_none() {
            return None;
        }
        Some(self.chunk(text_of(&step.token_ids), step.finish))
    }
}

fn event(data: &Value) -> Bytes {
    Bytes::from(format!("data: {data}\n\n"))
}

impl hyper::body::Body for CompletionStream {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        loop {
            let bytes = match self.state {
                StreamState::Tokens => match self.session.poll_step(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(None) => {
                        self.state = StreamState::Done;
                        continue;
                    }
                    Poll::Ready(Some(step)) => match self.step_event(step) {
                        Some(bytes) => bytes,
                        None => continue,
                    },
                },
                StreamState::Usage => {
                    self.state = StreamState::Done;
                    let chunk = json!({
                        "id": self.meta.id,
                        "object": "text_completion",
                        "created": self.meta.created,
                        "model": self.meta.model,
                        "choices": [],
                        "usage": usage(&self.session),
                    });
                    event(&chunk)
                }
                StreamState::Done => {
                    self.state = StreamState::Ended;
                    Bytes::from_static(b"data: [DONE]\n\n")
                }
                StreamState::Ended => return Poll::Ready(None),
            };
            return Poll::Ready(Some(Ok(Frame::data(bytes))));
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self.state, StreamState::Ended)
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}
