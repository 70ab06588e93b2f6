// The `/metrics` handler is a tower service itself: axum's `route_service` takes it as
// written, and the route answers a scrape.
use std::sync::Arc;

use axum::body::Body;
use axum::http::Request;
use axum::Router;
use metric_handles::serve::MetricsHandler;
use metric_handles::Registry;
use tower::ServiceExt;

fn main() {
    let handler = MetricsHandler::new(Arc::new(Registry::default()));
    let app: Router = Router::new().route_service("/metrics", handler);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let request = Request::get("/metrics").body(Body::empty()).unwrap();
    let response = runtime.block_on(app.oneshot(request)).unwrap();
    assert_eq!(response.status(), 200);
}
