//! [`MetricsHandler`] as a tower `Service`, for axum (`Router::route_service`) or any tower
//! stack over `http` requests: the handler itself, or [`MetricsService`]. The encode runs on a
//! thread of the handler's pool, as under [`MetricsHandler::respond`]; the wait for it and the
//! scrape's timeout are async (tokio's timer), so no executor thread is held.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use bytes::Bytes;
use http::{Request, Response};
use tower_service::Service;

use super::coalesce::Outcome;
use super::handler::{Body as ScrapeBody, MetricsHandler, ScrapeRequest, ScrapeResponse};

/// The `/metrics` handler as a tower `Service` ([`MetricsHandler::service`]). The handler is a
/// `Service` itself, answering as this one does: `route_service("/metrics", handler)` and
/// `route_service("/metrics", handler.service())` are the same route.
///
/// It needs a tokio runtime with its timer enabled (as `#[tokio::main]` builds it) for the
/// scrape timeout.
///
/// ```
/// use std::sync::Arc;
/// use axum::Router;
/// use metric_handles::serve::MetricsHandler;
/// use metric_handles::Registry;
///
/// let handler = MetricsHandler::new(Arc::new(Registry::default()));
/// let app: Router = Router::new()
///     .route_service("/metrics", handler.clone())
///     .route_service("/federate-metrics", handler.service());
/// # let _ = app;
/// ```
#[derive(Clone, Debug)]
pub struct MetricsService {
    handler: MetricsHandler,
}

impl MetricsHandler {
    /// This handler as a tower `Service` (it shares the handler's encodes and limits).
    pub fn service(&self) -> MetricsService {
        MetricsService {
            handler: self.clone(),
        }
    }
}

/// The response future of [`MetricsService`].
pub struct MetricsFuture {
    inner: Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>,
}

impl std::fmt::Debug for MetricsFuture {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_struct("MetricsFuture").finish_non_exhaustive()
    }
}

impl Future for MetricsFuture {
    type Output = Result<Response<Body>, Infallible>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.inner.as_mut().poll(cx)
    }
}

impl<B> Service<Request<B>> for MetricsService {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = MetricsFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> MetricsFuture {
        scrape(&self.handler, &request)
    }
}

/// The handler is a tower `Service` itself, answering as [`MetricsService`] does, so that
/// `Router::route_service("/metrics", handler)` works as written.
impl<B> Service<Request<B>> for MetricsHandler {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = MetricsFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> MetricsFuture {
        scrape(self, &request)
    }
}

/// The answer to `request`, once its encode is done or its deadline passed. The request is
/// read here, before the future is polled; the future owns only a clone of the handler.
fn scrape<B>(handler: &MetricsHandler, request: &Request<B>) -> MetricsFuture {
    let handler = handler.clone();
    let headers = request.headers();
    let scrape = ScrapeRequest::from_headers(request.method().as_str(), |name| {
        headers.get(name).and_then(|value| value.to_str().ok())
    });
    let admitted = handler.admit(&scrape);
    MetricsFuture {
        inner: Box::pin(async move {
            let admitted = match admitted {
                Ok(admitted) => admitted,
                Err(response) => return Ok(into_http(response)),
            };
            // Dropping the waiter (at the timeout, or with this future when the client goes
            // away) gives this scrape's claim on the encode up.
            let waiter = handler.start(&admitted);
            let outcome = match admitted.deadline {
                Some(deadline) => tokio::time::timeout_at(deadline.into(), waiter).await.ok(),
                None => Some(waiter.await),
            };
            Ok(into_http(handler.answer(admitted, outcome)))
        }),
    }
}

/// The encode's body, shared with the other scrapes it served (no copy).
struct SharedBody(Outcome);

impl AsRef<[u8]> for SharedBody {
    fn as_ref(&self) -> &[u8] {
        match &*self.0 {
            Ok(body) => body,
            Err(_) => &[],
        }
    }
}

fn into_http(response: ScrapeResponse) -> Response<Body> {
    let body = match response.body {
        ScrapeBody::Shared(outcome) => Body::from(Bytes::from_owner(SharedBody(outcome))),
        ScrapeBody::Owned(bytes) => Body::from(bytes),
        ScrapeBody::Empty => Body::empty(),
    };
    let mut http = Response::new(body);
    *http.status_mut() =
        http::StatusCode::from_u16(response.status).unwrap_or(http::StatusCode::OK);
    let headers = http.headers_mut();
    for (name, value) in response.headers {
        if let Ok(value) = http::HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
    }
    http
}
