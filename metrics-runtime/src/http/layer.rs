//! A tower [`Layer`] that records the three HTTP families of [`crate::http`] for any axum (or
//! tower) service, the way vLLM's Rust frontend does (`rust/src/server/src/middleware/metrics.rs`).
//!
//! * `handler` is the matched route template (axum's [`MatchedPath`], e.g. `/v1/models/{id}`),
//!   never the raw path, whose values a client chooses without limit. A request that matched no
//!   route is recorded under [`UNMATCHED_HANDLER`] (`none`). A request to a service nested
//!   with `Router::nest_service`, which axum gives no `MatchedPath`, is recorded under the path
//!   it is nested at when the layer is told that path
//!   ([`HttpMetricsLayer::with_nested_services`]).
//! * Requests to [`EXCLUDED_HANDLERS`] (`/metrics`, `/health`, ...) are not recorded;
//!   [`HttpMetricsLayer::with_excluded_handlers`] replaces the list.
//! * The duration runs from the request reaching the layer to the response head leaving the
//!   inner service, as in vLLM's Rust frontend; for a streamed body that is the time to the
//!   first byte, not to the end of the stream. [`HttpMetricsLayer::with_duration_to_end_of_body`]
//!   times (and counts) each request to the end of its response body instead, as Go's promhttp
//!   and prometheus-fastapi-instrumentator do.
//! * [`HttpMetricsLayer::with_body_metrics`] adds the opt-in families of [`HttpBodyMetrics`]:
//!   body sizes and requests in progress, measured by wrapping the bodies ([`MeteredBody`]).
//! * `method` is one of the nine methods of RFC 9110 and RFC 5789 (`GET`, `POST`, ...);
//!   any extension method is recorded as [`OTHER_METHOD`], so a client cannot grow the label set.
//! * An inner service that fails (rather than answering with an error status) is counted as
//!   `5xx`: hyper answers such a request with a 500 or closes the connection.
//! * A request whose response future is dropped before the inner service answers (the client
//!   went away mid-handler) is not recorded, as in vLLM's Rust frontend.
//!
//! # Measuring bodies
//!
//! Either of the two options above turns the layer into an `HttpMetricsLayer<MeteredBodies>`,
//! whose service wraps the request and the response body in a [`MeteredBody`] (the inner
//! service is given `Request<MeteredBody<ReqBody>>` and answers as before; the layer answers
//! `Response<MeteredBody<ResBody>>`). The default `HttpMetricsLayer<ResponseHead>` wraps
//! nothing, so what it records and what it costs are unchanged.
//!
//! * With [`with_duration_to_end_of_body`](HttpMetricsLayer::with_duration_to_end_of_body),
//!   a request is counted and its duration observed when its response body yields its last
//!   frame or an error, or is dropped before (the client went away mid-stream: the duration
//!   then runs to the drop), with the status of its response head.
//! * `http_request_size_bytes` observes the request body's data bytes the service read, when
//!   it drops the body; `http_response_size_bytes` the response body's data bytes yielded to
//!   the server, when the body ends or is dropped; `http_requests_inprogress` counts a request
//!   from its arrival at the layer until its response body ends or is dropped, or its
//!   response future is dropped or fails. Each request leaves it exactly once, whichever way
//!   it ends (an `InFlightGuard` carried from the response future to
//!   the body).
//!
//! Per frame the wrapper adds the frame's length to a count: no allocation, no lookup. Per
//! request, the handles are resolved once per (route, method) and cloned into the wrappers
//! (reference counts). axum turns a body that is not its own `Body` into one with a box, so
//! under an axum `Router` the metered mode costs an allocation per request and per response.
//!
//! Handles are resolved once per (route, method, status class) and cached: the per-request
//! work is one lock-free map read keyed by the borrowed route string, then atomic adds. At most
//! `max_routes` route templates get their own cache entry ([`DEFAULT_MAX_ROUTES`]); requests
//! to further templates are recorded with the overflow label `otel_metric_overflow="true"` in
//! place of `handler` (their `method` and `status` kept).
//!
//! Add it with `Router::layer` (not `route_layer`) so that requests no route matched are
//! counted too:
//!
//! ```
//! use axum::{routing::get, Router};
//! use metric_handles::http::{HttpBodyMetrics, HttpMetrics};
//! use metric_handles::http::layer::HttpMetricsLayer;
//! use metric_handles::Registry;
//!
//! let mut registry = Registry::default();
//! let http = HttpMetrics::register(&mut registry);
//! let app: Router = Router::new()
//!     .route("/v1/models", get(|| async { "[]" }))
//!     .layer(HttpMetricsLayer::new(http.clone()));
//!
//! // A server that streams: durations to the end of the body, body sizes, requests in progress.
//! let mut streaming = Registry::default();
//! let layer = HttpMetricsLayer::new(HttpMetrics::register(&mut streaming))
//!     .with_duration_to_end_of_body()
//!     .with_body_metrics(HttpBodyMetrics::register(&mut streaming));
//! let app: Router = Router::new()
//!     .route("/v1/completions", get(|| async { "data: [DONE]" }))
//!     .layer(layer);
//! # let _ = app;
//! ```

use std::collections::HashMap;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::Instant;

use arc_swap::ArcSwap;
use axum::extract::MatchedPath;
use http::{Method, Request, Response};
use tower_layer::Layer;
use tower_service::Service;

use crate::gauge::InFlightGuard;
pub use crate::http::body::MeteredBody;
use crate::http::body::{BodyEnd, RequestRecord};
use crate::http::{
    Handler, HttpBodyMetrics, HttpHandlerLabels, HttpMetrics, HttpRequestLabels, StatusClass,
    EXCLUDED_HANDLERS, UNMATCHED_HANDLER,
};
use crate::sync::lock;
use crate::{Counter, Gauge, Histogram};

/// Route templates that get their own series unless [`HttpMetricsLayer::with_max_routes`] says
/// otherwise. A server's route table is far smaller; the bound only matters when routes are
/// built at run time.
pub const DEFAULT_MAX_ROUTES: usize = 256;

/// The `method` label of a request whose method is not one of the nine standard methods.
pub const OTHER_METHOD: &str = "OTHER";

/// The standard methods, in the order of their cache slots; the last slot is [`OTHER_METHOD`].
const METHODS: [Method; 9] = [
    Method::GET,
    Method::HEAD,
    Method::POST,
    Method::PUT,
    Method::DELETE,
    Method::CONNECT,
    Method::OPTIONS,
    Method::TRACE,
    Method::PATCH,
];
const METHOD_SLOTS: usize = METHODS.len() + 1;

const STATUS_CLASSES: [StatusClass; 6] = [
    StatusClass::Informational,
    StatusClass::Success,
    StatusClass::Redirection,
    StatusClass::ClientError,
    StatusClass::ServerError,
    StatusClass::Unknown,
];

fn method_slot(method: &Method) -> usize {
    METHODS
        .iter()
        .position(|m| m == method)
        .unwrap_or(METHODS.len())
}

fn method_label(slot: usize) -> &'static str {
    METHODS.get(slot).map_or(OTHER_METHOD, Method::as_str)
}

fn status_slot(class: StatusClass) -> usize {
    STATUS_CLASSES
        .iter()
        .position(|c| *c == class)
        .unwrap_or(STATUS_CLASSES.len() - 1)
}

/// The handles of one (route, method): resolved on first use, then shared.
#[derive(Default)]
struct MethodHandles {
    requests: [OnceLock<Counter>; STATUS_CLASSES.len()],
    duration: OnceLock<Histogram>,
    /// The opt-in families of [`HttpBodyMetrics`].
    request_size: OnceLock<Histogram>,
    response_size: OnceLock<Histogram>,
    in_progress: OnceLock<Gauge>,
}

/// Everything recorded for one route template.
struct RouteHandles {
    handler: Handler,
    methods: [MethodHandles; METHOD_SLOTS],
}

impl RouteHandles {
    fn new(handler: Handler) -> Arc<Self> {
        Arc::new(RouteHandles {
            handler,
            methods: Default::default(),
        })
    }
}

type RouteMap = HashMap<Box<str>, Arc<RouteHandles>>;

struct Shared {
    metrics: HttpMetrics,
    config: Config,
    /// Read without a lock on every request; replaced (copy on write) when a route is added.
    routes: ArcSwap<RouteMap>,
    /// Serialises additions so that two first requests to one route build one entry.
    adding: Mutex<()>,
    unmatched: Arc<RouteHandles>,
    overflow: Arc<RouteHandles>,
}

impl Shared {
    fn route(&self, handler: &str) -> Arc<RouteHandles> {
        if let Some(route) = self.routes.load().get(handler) {
            return route.clone();
        }
        let _adding = lock(&self.adding);
        let current = self.routes.load_full();
        if let Some(route) = current.get(handler) {
            return route.clone();
        }
        if current.len() >= self.config.max_routes {
            return self.overflow.clone();
        }
        let route = RouteHandles::new(Handler::Route(handler.to_owned()));
        let mut next = RouteMap::clone(&current);
        next.insert(handler.into(), route.clone());
        self.routes.store(Arc::new(next));
        route
    }

    fn is_excluded(&self, handler: &str) -> bool {
        self.config.excluded.iter().any(|e| **e == *handler)
    }

    /// The route `matched` names, the path of its nested service for the two routes axum
    /// adds at a nested service's own path (`/static` and `/static/`), so every request to
    /// the service has one `handler`.
    fn nested_route<'a>(&'a self, matched: &'a str) -> &'a str {
        let own_path = matched.strip_suffix('/').unwrap_or(matched);
        self.config
            .nested
            .iter()
            .find(|prefix| *prefix.template == *own_path)
            .map_or(matched, |prefix| &*prefix.template)
    }

    /// The nested service `path` is served by, if any.
    fn nested_service(&self, path: &str) -> Option<&str> {
        self.config
            .nested
            .iter()
            .find(|prefix| prefix.contains(path))
            .map(|prefix| &*prefix.template)
    }

    /// The `http_requests_total` and `http_request_duration_seconds` series of a request.
    fn request_handles<'r>(
        &self,
        route: &'r RouteHandles,
        method: usize,
        status: StatusClass,
    ) -> (&'r Counter, &'r Histogram) {
        let handles = &route.methods[method];
        let requests = handles.requests[status_slot(status)].get_or_init(|| {
            self.metrics.requests.get_or_create(&HttpRequestLabels {
                method: method_label(method).into(),
                status,
                handler: route.handler.clone(),
            })
        });
        let duration = handles.duration.get_or_init(|| {
            self.metrics
                .duration
                .get_or_create(&handler_labels(route, method))
        });
        (requests, duration)
    }

    fn record(&self, route: &RouteHandles, method: usize, status: StatusClass, seconds: f64) {
        let (requests, duration) = self.request_handles(route, method, status);
        requests.inc();
        duration.observe(seconds);
        self.metrics.duration_highr.observe(seconds);
    }

    /// What the request to `route` records when it is answered, or `None` if its route is
    /// excluded.
    fn begin<B>(self: &Arc<Self>, request: &Request<B>, started_at: Instant) -> Option<Pending> {
        let handler = match request.extensions().get::<MatchedPath>() {
            Some(path) => Some(self.nested_route(path.as_str())),
            None => self.nested_service(request.uri().path()),
        };
        let route = match handler {
            Some(handler) if self.is_excluded(handler) => return None,
            Some(handler) => self.route(handler),
            None if self.is_excluded(UNMATCHED_HANDLER) => return None,
            None => self.unmatched.clone(),
        };
        Some(Pending {
            shared: self.clone(),
            route,
            method: method_slot(request.method()),
            started_at,
        })
    }
}

fn handler_labels(route: &RouteHandles, method: usize) -> HttpHandlerLabels {
    HttpHandlerLabels {
        method: method_label(method).into(),
        handler: route.handler.clone(),
    }
}

/// The default mode of [`HttpMetricsLayer`]: a request is recorded when its response head
/// leaves the inner service, as vLLM's Rust frontend records it; bodies are not wrapped.
#[derive(Clone, Copy, Debug)]
pub enum ResponseHead {}

/// The mode of an [`HttpMetricsLayer`] that measures bodies
/// ([`with_duration_to_end_of_body`](HttpMetricsLayer::with_duration_to_end_of_body),
/// [`with_body_metrics`](HttpMetricsLayer::with_body_metrics)): request and response bodies are
/// wrapped in a [`MeteredBody`].
#[derive(Clone, Copy, Debug)]
pub enum MeteredBodies {}

/// Records `http_requests_total`, `http_request_duration_seconds` and
/// `http_request_duration_highr_seconds` for every request through the wrapped service (and,
/// in the [`MeteredBodies`] mode, the opt-in families of [`HttpBodyMetrics`]). Cloning it
/// shares the cache.
pub struct HttpMetricsLayer<M = ResponseHead> {
    shared: Arc<Shared>,
    _mode: PhantomData<fn() -> M>,
}

impl<M> Clone for HttpMetricsLayer<M> {
    fn clone(&self) -> Self {
        HttpMetricsLayer {
            shared: self.shared.clone(),
            _mode: PhantomData,
        }
    }
}

impl<M> std::fmt::Debug for HttpMetricsLayer<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpMetricsLayer")
            .field("excluded", &self.shared.config.excluded)
            .field("max_routes", &self.shared.config.max_routes)
            .field("nested_services", &self.shared.config.nested)
            .field("end_of_body", &self.shared.config.end_of_body)
            .field("body_metrics", &self.shared.config.bodies.is_some())
            .field("routes", &self.shared.routes.load().len())
            .finish()
    }
}

impl HttpMetricsLayer {
    /// A layer recording into `metrics` (from [`HttpMetrics::register`]), excluding vLLM's
    /// [`EXCLUDED_HANDLERS`], with at most [`DEFAULT_MAX_ROUTES`] route templates, timing each
    /// request to its response head.
    pub fn new(metrics: HttpMetrics) -> Self {
        Self::build(
            metrics,
            Config {
                excluded: EXCLUDED_HANDLERS.iter().map(|h| (*h).into()).collect(),
                max_routes: DEFAULT_MAX_ROUTES,
                nested: Vec::new(),
                end_of_body: false,
                bodies: None,
            },
        )
    }
}

impl<M> HttpMetricsLayer<M> {
    /// The same layer, counting each request and observing its duration when its response
    /// body ends (its last frame or an error), or is dropped unfinished, rather than when the
    /// response head leaves the inner service: for a streamed response, the whole stream.
    ///
    /// vLLM's dashboards read the head-time duration, which is the default; this is for a
    /// server whose responses stream, where the head time says little.
    pub fn with_duration_to_end_of_body(self) -> HttpMetricsLayer<MeteredBodies> {
        self.reconfigured(|config| config.end_of_body = true)
    }

    /// The same layer, also recording the families of `bodies` (from
    /// [`HttpBodyMetrics::register`]): request and response body sizes and requests in
    /// progress, for the requests the layer records.
    pub fn with_body_metrics(self, bodies: HttpBodyMetrics) -> HttpMetricsLayer<MeteredBodies> {
        self.reconfigured(|config| config.bodies = Some(bodies))
    }

    /// The same layer with `handlers` (route templates) as the excluded list instead.
    pub fn with_excluded_handlers<I, H>(self, handlers: I) -> Self
    where
        I: IntoIterator<Item = H>,
        H: Into<Box<str>>,
    {
        self.reconfigured(|config| config.excluded = handlers.into_iter().map(Into::into).collect())
    }

    /// The same layer with at most `max_routes` route templates recorded under their own name
    /// (at least 1); later templates are recorded under `otel_metric_overflow="true"` in place
    /// of `handler`, their `method` and `status` kept.
    pub fn with_max_routes(self, max_routes: usize) -> Self {
        self.reconfigured(|config| config.max_routes = max_routes.max(1))
    }

    /// The same layer, told where services are nested with `Router::nest_service`: a
    /// request under one of `paths` (the path itself, or below it) is recorded with that path
    /// as its `handler`.
    ///
    /// axum gives requests to a nested service no `MatchedPath` (by design: what matched is
    /// its internal wildcard route), so without this they would be recorded as matching no
    /// route (`handler="none"`). A path segment written `{name}` matches any one segment, as
    /// in the route, so `/{tenant}/files` records `handler="/{tenant}/files"`.
    pub fn with_nested_services<I, P>(self, paths: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: AsRef<str>,
    {
        let nested = paths
            .into_iter()
            .map(|path| NestedPrefix::new(path.as_ref()))
            .collect();
        self.reconfigured(|config| config.nested = nested)
    }

    fn reconfigured<N>(self, change: impl FnOnce(&mut Config)) -> HttpMetricsLayer<N> {
        let mut config = self.shared.config.clone();
        change(&mut config);
        HttpMetricsLayer::build(self.shared.metrics.clone(), config)
    }

    fn build(metrics: HttpMetrics, config: Config) -> Self {
        HttpMetricsLayer {
            shared: Arc::new(Shared {
                metrics,
                config,
                routes: ArcSwap::from_pointee(RouteMap::new()),
                adding: Mutex::new(()),
                unmatched: RouteHandles::new(Handler::Unmatched),
                overflow: RouteHandles::new(Handler::Overflow),
            }),
            _mode: PhantomData,
        }
    }
}

/// What a layer is told at construction.
#[derive(Clone, Debug)]
struct Config {
    excluded: Vec<Box<str>>,
    max_routes: usize,
    nested: Vec<NestedPrefix>,
    /// Requests are counted and timed at the end of their response body.
    end_of_body: bool,
    /// The opt-in families, recorded by the [`MeteredBodies`] mode's wrappers.
    bodies: Option<HttpBodyMetrics>,
}

/// The path a service is nested at, split into segments (`None` for a `{param}` segment).
#[derive(Clone, Debug)]
struct NestedPrefix {
    template: Box<str>,
    segments: Vec<Option<Box<str>>>,
}

impl NestedPrefix {
    fn new(path: &str) -> Self {
        let template = format!("/{}", path.trim_matches('/'));
        let segments = segments(&template)
            .map(|segment| {
                let is_param = segment.starts_with('{') && segment.ends_with('}');
                (!is_param).then(|| segment.into())
            })
            .collect();
        NestedPrefix {
            template: template.into(),
            segments,
        }
    }

    /// Whether `path` is this prefix or lies below it.
    fn contains(&self, path: &str) -> bool {
        let mut path = segments(path);
        self.segments
            .iter()
            .all(|expected| match (expected, path.next()) {
                (Some(expected), Some(segment)) => **expected == *segment,
                (None, Some(segment)) => !segment.is_empty(),
                (_, None) => false,
            })
    }
}

/// The `/`-separated segments of `path`, without the leading empty one.
fn segments(path: &str) -> impl Iterator<Item = &str> {
    path.strip_prefix('/')
        .unwrap_or(path)
        .split('/')
        .filter(|s| !s.is_empty())
}

impl<S, M> Layer<S> for HttpMetricsLayer<M> {
    type Service = HttpMetricsService<S, M>;

    fn layer(&self, inner: S) -> Self::Service {
        HttpMetricsService {
            inner,
            shared: self.shared.clone(),
            _mode: PhantomData,
        }
    }
}

/// The service [`HttpMetricsLayer`] wraps around `S`.
pub struct HttpMetricsService<S, M = ResponseHead> {
    inner: S,
    shared: Arc<Shared>,
    _mode: PhantomData<fn() -> M>,
}

impl<S: Clone, M> Clone for HttpMetricsService<S, M> {
    fn clone(&self) -> Self {
        HttpMetricsService {
            inner: self.inner.clone(),
            shared: self.shared.clone(),
            _mode: PhantomData,
        }
    }
}

impl<S: std::fmt::Debug, M> std::fmt::Debug for HttpMetricsService<S, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        debug_wrapper(f, "HttpMetricsService", &self.inner)
    }
}

/// The `Debug` of what the layer wraps around the inner service or its future: the inner one
/// only, not the recording state the wrapper carries (the shared route cache, the request's
/// pending record).
fn debug_wrapper(
    f: &mut std::fmt::Formatter<'_>,
    name: &str,
    inner: &dyn std::fmt::Debug,
) -> std::fmt::Result {
    f.debug_struct(name)
        .field("inner", inner)
        .finish_non_exhaustive()
}

/// What a response future records when the inner service answers.
struct Pending {
    shared: Arc<Shared>,
    route: Arc<RouteHandles>,
    method: usize,
    started_at: Instant,
}

impl<S, ReqBody, ResBody> Service<Request<ReqBody>> for HttpMetricsService<S, ResponseHead>
where
    S: Service<Request<ReqBody>, Response = Response<ResBody>>,
{
    type Response = Response<ResBody>;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<ReqBody>) -> Self::Future {
        let pending = self.shared.begin(&request, Instant::now());
        ResponseFuture {
            inner: self.inner.call(request),
            pending,
        }
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`HttpMetricsService`]: records when the inner one completes.
    pub struct ResponseFuture<F> {
        #[pin]
        inner: F,
        pending: Option<Pending>,
    }
}

impl<F: std::fmt::Debug> std::fmt::Debug for ResponseFuture<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        debug_wrapper(f, "ResponseFuture", &self.inner)
    }
}

impl<F, ResBody, E> Future for ResponseFuture<F>
where
    F: Future<Output = Result<Response<ResBody>, E>>,
{
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let output = std::task::ready!(this.inner.poll(cx));
        if let Some(p) = this.pending.take() {
            p.record_now(status_of(&output));
        }
        Poll::Ready(output)
    }
}

fn status_of<B, E>(output: &Result<Response<B>, E>) -> StatusClass {
    match output {
        Ok(response) => StatusClass::from_code(response.status().as_u16()),
        Err(_) => StatusClass::ServerError,
    }
}

impl Pending {
    /// Counts the request and observes its duration to now.
    fn record_now(self, status: StatusClass) {
        let seconds = self.started_at.elapsed().as_secs_f64();
        self.shared
            .record(&self.route, self.method, status, seconds);
    }

    /// The request's count and duration, to record at the end of its response body.
    fn record_later(self, status: StatusClass) -> RequestRecord {
        let (requests, duration) = self
            .shared
            .request_handles(&self.route, self.method, status);
        RequestRecord {
            requests: requests.clone(),
            duration: duration.clone(),
            duration_highr: self.shared.metrics.duration_highr.clone(),
            started_at: self.started_at,
        }
    }

    fn method_handles(&self) -> &MethodHandles {
        &self.route.methods[self.method]
    }

    fn handler_labels(&self) -> HttpHandlerLabels {
        handler_labels(&self.route, self.method)
    }
}

impl<S, ReqBody, ResBody> Service<Request<ReqBody>> for HttpMetricsService<S, MeteredBodies>
where
    S: Service<Request<MeteredBody<ReqBody>>, Response = Response<ResBody>>,
{
    type Response = Response<MeteredBody<ResBody>>;
    type Error = S::Error;
    type Future = MeteredResponseFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<ReqBody>) -> Self::Future {
        let pending = self.shared.begin(&request, Instant::now());
        let bodies = self.shared.config.bodies.as_ref();
        let (request_end, in_progress) = match (&pending, bodies) {
            (Some(p), Some(bodies)) => {
                let handles = p.method_handles();
                let size = handles
                    .request_size
                    .get_or_init(|| bodies.request_size.get_or_create(&p.handler_labels()));
                let gauge = handles
                    .in_progress
                    .get_or_init(|| bodies.in_progress.get_or_create(&p.handler_labels()));
                let end = BodyEnd {
                    size: Some(size.clone()),
                    ..BodyEnd::default()
                };
                (Some(end), Some(InFlightGuard::new(gauge.clone())))
            }
            _ => (None, None),
        };
        let request = request.map(|body| MeteredBody::new(body, request_end));
        MeteredResponseFuture {
            inner: self.inner.call(request),
            pending,
            in_progress,
        }
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`HttpMetricsService`] in the [`MeteredBodies`] mode: wraps the
    /// response body in a [`MeteredBody`] that records at the end of the body.
    pub struct MeteredResponseFuture<F> {
        #[pin]
        inner: F,
        pending: Option<Pending>,
        // Left when this future is dropped, unless the response body took it over.
        in_progress: Option<InFlightGuard<Gauge>>,
    }
}

impl<F: std::fmt::Debug> std::fmt::Debug for MeteredResponseFuture<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        debug_wrapper(f, "MeteredResponseFuture", &self.inner)
    }
}

impl<F, ResBody, E> Future for MeteredResponseFuture<F>
where
    F: Future<Output = Result<Response<ResBody>, E>>,
{
    type Output = Result<Response<MeteredBody<ResBody>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let output = std::task::ready!(this.inner.poll(cx));
        let in_progress = this.in_progress.take();
        let Some(p) = this.pending.take() else {
            return Poll::Ready(output.map(|response| response.map(|b| MeteredBody::new(b, None))));
        };
        let status = status_of(&output);
        let response = match output {
            Ok(response) => response,
            Err(error) => {
                p.record_now(status);
                return Poll::Ready(Err(error));
            }
        };
        let shared = p.shared.clone();
        let size = shared.config.bodies.as_ref().map(|bodies| {
            p.method_handles()
                .response_size
                .get_or_init(|| bodies.response_size.get_or_create(&p.handler_labels()))
                .clone()
        });
        let request = if shared.config.end_of_body {
            Some(p.record_later(status))
        } else {
            p.record_now(status);
            None
        };
        let end = BodyEnd {
            size,
            in_progress,
            request,
        };
        Poll::Ready(Ok(response.map(|body| MeteredBody::new(body, Some(end)))))
    }
}

#[cfg(test)]
mod tests {
    use crate::Registry;
    use axum::body::Body;
    use axum::http::StatusCode;
    use axum::routing::get;
    use axum::Router;
    use tower::ServiceExt;

    use super::*;
    use crate::test_support::{assert_has_lines, exposition};

    fn app(layer: HttpMetricsLayer) -> Router {
        Router::new()
            .route("/v1/models", get(|| async { "[]" }))
            .route("/v1/models/{id}", get(|| async { "{}" }))
            .route("/v1/completions", axum::routing::post(|| async { "ok" }))
            .route(
                "/fails",
                get(|| async { (StatusCode::SERVICE_UNAVAILABLE, "busy") }),
            )
            .route("/metrics", get(|| async { "" }))
            .route("/health", get(|| async { "" }))
            .layer(layer)
    }

    fn send(app: &Router, method: &str, path: &str) -> StatusCode {
        let request = Request::builder()
            .method(method)
            .uri(path)
            .body(Body::empty())
            .expect("request");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        runtime
            .block_on(app.clone().oneshot(request))
            .expect("infallible")
            .status()
    }

    fn setup(configure: impl FnOnce(HttpMetricsLayer) -> HttpMetricsLayer) -> (Registry, Router) {
        let mut registry = Registry::default();
        let layer = configure(HttpMetricsLayer::new(HttpMetrics::register(&mut registry)));
        (registry, app(layer))
    }

    #[test]
    fn requests_are_keyed_by_the_route_template_never_the_raw_path() {
        let (registry, app) = setup(|l| l);
        for id in ["a", "b", "c/../d", "%2e%2e"] {
            send(&app, "GET", &format!("/v1/models/{id}"));
        }
        send(&app, "GET", "/v1/models");
        let text = exposition(&registry);
        assert!(text.contains(
            r#"http_requests_total{method="GET",status="2xx",handler="/v1/models/{id}"} 3"#
        ));
        assert!(text
            .contains(r#"http_requests_total{method="GET",status="2xx",handler="/v1/models"} 1"#));
        assert!(text.contains(
            r#"http_request_duration_seconds_count{method="GET",handler="/v1/models/{id}"} 3"#
        ));
        // `c/../d` and `%2e%2e` matched no route.
        assert!(text.contains(r#"http_requests_total{method="GET",status="4xx",handler="none"} 1"#));
        assert!(text.contains("http_request_duration_highr_seconds_count 5"));
        assert!(!text.contains("handler=\"/v1/models/a\""));
    }

    #[test]
    fn unmatched_paths_wrong_methods_and_failures_get_their_status_class() {
        let (registry, app) = setup(|l| l);
        assert_eq!(send(&app, "GET", "/nowhere"), StatusCode::NOT_FOUND);
        assert_eq!(send(&app, "GET", "/elsewhere"), StatusCode::NOT_FOUND);
        assert_eq!(
            send(&app, "GET", "/v1/completions"),
            StatusCode::METHOD_NOT_ALLOWED
        );
        assert_eq!(send(&app, "GET", "/fails"), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(send(&app, "POST", "/v1/completions"), StatusCode::OK);
        let text = exposition(&registry);
        assert_has_lines(
            &text,
            &[
                r#"http_requests_total{method="GET",status="4xx",handler="none"} 2"#,
                r#"http_requests_total{method="GET",status="4xx",handler="/v1/completions"} 1"#,
                r#"http_requests_total{method="POST",status="2xx",handler="/v1/completions"} 1"#,
                r#"http_requests_total{method="GET",status="5xx",handler="/fails"} 1"#,
                "http_request_duration_highr_seconds_count 5",
            ],
        );
        // Only the status classes that occurred are exported.
        assert!(!text.contains(r#"status="1xx""#));
    }

    #[test]
    fn excluded_handlers_are_not_recorded_and_the_list_can_be_replaced() {
        let (registry, app) = setup(|l| l);
        send(&app, "GET", "/metrics");
        send(&app, "GET", "/health");
        let text = exposition(&registry);
        assert!(!text.contains("handler=\"/metrics\""));
        assert!(!text.contains("handler=\"/health\""));
        assert!(text.contains("http_request_duration_highr_seconds_count 0"));

        let (registry, app) = setup(|l| l.with_excluded_handlers(["/v1/models", "none"]));
        send(&app, "GET", "/v1/models");
        send(&app, "GET", "/nowhere");
        send(&app, "GET", "/metrics");
        let text = exposition(&registry);
        assert!(
            text.contains(r#"http_requests_total{method="GET",status="2xx",handler="/metrics"} 1"#)
        );
        assert!(text.contains("http_request_duration_highr_seconds_count 1"));
    }

    #[test]
    fn extension_methods_share_one_label() {
        let (registry, app) = setup(|l| l);
        for method in ["BREW", "PROPFIND", "X-ANYTHING"] {
            send(&app, method, "/v1/models");
        }
        send(&app, "PATCH", "/v1/models");
        let text = exposition(&registry);
        assert!(text.contains(
            r#"http_requests_total{method="OTHER",status="4xx",handler="/v1/models"} 3"#
        ));
        assert!(text.contains(
            r#"http_requests_total{method="PATCH",status="4xx",handler="/v1/models"} 1"#
        ));
        assert!(!text.contains("BREW"));
    }

    #[test]
    fn routes_past_the_bound_are_recorded_under_the_overflow_label() {
        let (registry, app) = setup(|l| l.with_max_routes(1));
        send(&app, "GET", "/v1/models");
        send(&app, "GET", "/v1/models/x");
        send(&app, "POST", "/v1/completions");
        let text = exposition(&registry);
        assert_has_lines(
            &text,
            &[
                r#"http_requests_total{method="GET",status="2xx",handler="/v1/models"} 1"#,
                r#"http_requests_total{method="GET",status="2xx",otel_metric_overflow="true"} 1"#,
                r#"http_requests_total{method="POST",status="2xx",otel_metric_overflow="true"} 1"#,
                r#"http_request_duration_seconds_count{method="POST",otel_metric_overflow="true"} 1"#,
            ],
        );
        assert!(
            !text.contains(r#"handler="otel_metric_overflow""#),
            "{text}"
        );
        // Requests no route matched keep their own label whatever the bound.
        send(&app, "GET", "/nowhere");
        assert!(exposition(&registry).contains(r#"handler="none""#));
    }

    fn nested_app(layer: HttpMetricsLayer) -> Router {
        let files = tower::service_fn(|_: Request<Body>| async {
            Ok::<_, std::convert::Infallible>(axum::response::Response::new(Body::from("file")))
        });
        Router::new()
            .route("/v1/models", get(|| async { "[]" }))
            .nest_service("/static", files)
            .nest_service("/{tenant}/files", files)
            .layer(layer)
    }

    #[test]
    fn requests_to_nested_services_are_recorded_under_the_path_they_are_nested_at() {
        let mut registry = Registry::default();
        let layer = HttpMetricsLayer::new(HttpMetrics::register(&mut registry))
            .with_nested_services(["/static", "/{tenant}/files/"]);
        let app = nested_app(layer);
        for path in ["/static", "/static/", "/static/app.js", "/static/css/a.css"] {
            assert_eq!(send(&app, "GET", path), StatusCode::OK, "{path}");
        }
        for path in ["/acme/files/x", "/other/files"] {
            assert_eq!(send(&app, "GET", path), StatusCode::OK, "{path}");
        }
        send(&app, "GET", "/staticx");
        let text = exposition(&registry);
        assert_has_lines(
            &text,
            &[
                r#"http_requests_total{method="GET",status="2xx",handler="/static"} 4"#,
                r#"http_requests_total{method="GET",status="2xx",handler="/{tenant}/files"} 2"#,
                r#"http_requests_total{method="GET",status="4xx",handler="none"} 1"#,
            ],
        );
        assert!(!text.contains(r#"status="2xx",handler="none""#), "{text}");
    }

    #[test]
    fn without_its_path_a_nested_service_is_recorded_as_matching_no_route() {
        let mut registry = Registry::default();
        let app = nested_app(HttpMetricsLayer::new(HttpMetrics::register(&mut registry)));
        send(&app, "GET", "/static/app.js");
        assert!(exposition(&registry)
            .contains(r#"http_requests_total{method="GET",status="2xx",handler="none"} 1"#));
    }

    #[test]
    fn nested_prefixes_match_whole_segments() {
        let prefix = NestedPrefix::new("/{tenant}/files/");
        assert_eq!(&*prefix.template, "/{tenant}/files");
        for path in ["/a/files", "/a/files/", "/a/files/x/y"] {
            assert!(prefix.contains(path), "{path}");
        }
        for path in ["/a/filesx", "/a", "/", "//files", "/a/other/files"] {
            assert!(!prefix.contains(path), "{path}");
        }
    }

    #[test]
    fn handles_are_resolved_once_per_route_method_and_status() {
        let (registry, app) = setup(|l| l);
        for _ in 0..100 {
            send(&app, "GET", "/v1/models/x");
        }
        let text = exposition(&registry);
        let series = text
            .lines()
            .filter(|l| l.starts_with("http_requests_total{"))
            .count();
        assert_eq!(series, 1);
        assert!(text.contains(
            r#"http_requests_total{method="GET",status="2xx",handler="/v1/models/{id}"} 100"#
        ));
    }
}

#[cfg(test)]
mod streaming_tests;
