//! `/metrics` over HTTP (axum): the format is negotiated from the `Accept` header, anything
//! else is a 404. Encoding reads the metrics' atomics only, so a scrape never blocks recording.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use metric_handles::ExpositionFormat;
use prometheus_client::registry::Registry;

pub fn router(registry: Arc<Registry>) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .fallback(not_found)
        .with_state(registry)
}

async fn metrics(State(registry): State<Arc<Registry>>, headers: HeaderMap) -> Response {
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|value| value.to_str().ok());
    let format = ExpositionFormat::negotiate(accept);
    match format.encode(&registry) {
        Ok(body) => ([(header::CONTENT_TYPE, format.content_type())], body).into_response(),
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, "encoding failed\n").into_response(),
    }
}

async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "not found: metrics are served on /metrics\n",
    )
        .into_response()
}
