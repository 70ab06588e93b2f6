//! The routes (axum): the OpenAI-compatible API ([`crate::openai`]) and `/metrics`, whose format
//! is negotiated from the `Accept` header; any other path is a 404. Every request passes through
//! the runtime's HTTP metrics layer, which records the `http_*` families by route template.
//! Encoding reads the metrics' atomics only, so a scrape never blocks recording.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use metric_handles::http_layer::HttpMetricsLayer;
use metric_handles::Negotiated;
use metric_handles::Registry;

use crate::openai;
use crate::sim::Simulation;

/// What the handlers share.
pub struct AppState {
    pub registry: Arc<Registry>,
    pub sim: Arc<Simulation>,
    /// Unix seconds of the server's start: the `created` of responses and of the model.
    pub started: u64,
    pub body_read_timeout: Duration,
}

pub fn router(state: Arc<AppState>, http_metrics: HttpMetricsLayer) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .route("/health", get(openai::health))
        .route("/v1/models", get(openai::models))
        .route("/v1/completions", post(openai::completions))
        .fallback(not_found)
        .with_state(state)
        .layer(http_metrics)
}

async fn metrics(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|value| value.to_str().ok());
    let negotiated = Negotiated::from_accept(accept);
    match negotiated.format.encode(&state.registry) {
        Ok(body) => ([(header::CONTENT_TYPE, negotiated.content_type())], body).into_response(),
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, "encoding failed\n").into_response(),
    }
}

async fn not_found() -> Response {
    openai::error(
        StatusCode::NOT_FOUND,
        "NotFoundError",
        "not found: the routes are /v1/completions, /v1/models, /health and /metrics",
    )
}
