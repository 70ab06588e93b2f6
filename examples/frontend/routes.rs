//! The routes (axum): the OpenAI-compatible API ([`crate::openai`]) and `/metrics`, served by the
//! library's handler (format negotiated from `Accept`, gzip by `Accept-Encoding`, coalesced
//! encodes off the executor's threads, 503 past the scrape's timeout); any other path is a 404.
//! Every request passes through the runtime's HTTP metrics layer, which records the `http_*`
//! families by route template. Encoding reads the metrics' atomics only, so a scrape never
//! blocks recording.

use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use metric_handles::http::layer::HttpMetricsLayer;
use metric_handles::serve::MetricsHandler;
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

pub fn router(
    state: Arc<AppState>,
    http_metrics: HttpMetricsLayer,
    metrics_handler: &MetricsHandler,
) -> Router {
    Router::new()
        .route_service("/metrics", metrics_handler.service())
        .route("/health", get(openai::health))
        .route("/v1/models", get(openai::models))
        .route("/v1/completions", post(openai::completions))
        .fallback(not_found)
        .with_state(state)
        .layer(http_metrics)
}

async fn not_found() -> Response {
    openai::error(
        StatusCode::NOT_FOUND,
        "NotFoundError",
        "not found: the routes are /v1/completions, /v1/models, /health and /metrics",
    )
}
