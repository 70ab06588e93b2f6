//! The `/metrics` handler is a tower service itself: axum's `route_service` takes it as
//! written, from outside the crate, and the route answers a scrape.

use std::sync::Arc;

use axum::body::Body;
use axum::http::Request;
use axum::Router;
use metric_handles::serve::MetricsHandler;
use metric_handles::Registry;
use tower::ServiceExt;

#[test]
fn axum_routes_to_the_handler_as_written_and_the_route_answers_a_scrape() {
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
