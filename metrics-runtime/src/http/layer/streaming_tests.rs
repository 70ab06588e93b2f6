//! The layer's body metering, against streamed bodies: when a request is timed, the bytes of
//! each body, and requests in progress however they end (finished, dropped mid-stream,
//! cancelled before the head, panicking).

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::routing::{get, post};
use axum::Router;
use bytes::Bytes;
use http_body::{Body as _, Frame};
use tower::ServiceExt;

use super::*;
use crate::Registry;

/// A body that yields `frames` one at a time, each after `pause`, and panics at the end if
/// told to (a stream whose producer fails).
struct Paced {
    frames: VecDeque<Bytes>,
    pause: Duration,
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
    panics: bool,
}

impl Paced {
    fn new(frames: usize, frame_len: usize, pause: Duration) -> Self {
        Paced {
            frames: (0..frames)
                .map(|_| Bytes::from(vec![b'x'; frame_len]))
                .collect(),
            pause,
            sleep: None,
            panics: false,
        }
    }
}

impl http_body::Body for Paced {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let pause = self.pause;
        let sleep = self
            .sleep
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(pause)));
        std::task::ready!(sleep.as_mut().poll(cx));
        self.sleep = None;
        match self.frames.pop_front() {
            Some(frame) => Poll::Ready(Some(Ok(Frame::data(frame)))),
            None if self.panics => panic!("the stream's producer failed"),
            None => Poll::Ready(None),
        }
    }
}

const PAUSE: Duration = Duration::from_millis(50);

/// `/stream`: 4 frames of 10 bytes, 50 ms apart (the last frame at 200 ms); `/upload` reads
/// the request body and answers its length; `/ignore` reads nothing; `/hang` never answers;
/// `/fail` streams one frame then panics; `/metrics` is excluded.
fn routes() -> Router {
    Router::new()
        .route(
            "/stream",
            get(|| async { Body::new(Paced::new(4, 10, PAUSE)) }),
        )
        .route(
            "/upload",
            post(|body: Bytes| async move { body.len().to_string() }),
        )
        .route("/ignore", post(|| async { "ignored" }))
        .route("/hang", get(std::future::pending::<&'static str>))
        .route(
            "/fail",
            get(|| async {
                let mut body = Paced::new(1, 10, Duration::ZERO);
                body.panics = true;
                Body::new(body)
            }),
        )
        .route("/metrics", get(|| async { "" }))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime")
}

fn request(method: &str, path: &str, body: impl Into<Body>) -> Request<Body> {
    Request::builder()
        .method(method)
        .uri(path)
        .body(body.into())
        .expect("request")
}

/// Sends `request`, then reads its whole body; returns the body's bytes.
async fn fetch(app: &Router, request: Request<Body>) -> Bytes {
    let response = app.clone().oneshot(request).await.expect("infallible");
    axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("the body")
}

async fn next_frame(body: &mut Body) -> Option<Frame<Bytes>> {
    std::future::poll_fn(|cx| Pin::new(&mut *body).poll_frame(cx))
        .await
        .map(|frame| frame.expect("no error"))
}

struct Setup {
    http: HttpMetrics,
    bodies: HttpBodyMetrics,
    app: Router,
}

fn metered(end_of_body: bool) -> Setup {
    let mut registry = Registry::default();
    let http = HttpMetrics::register(&mut registry);
    let bodies = HttpBodyMetrics::register(&mut registry);
    let mut layer = HttpMetricsLayer::new(http.clone()).with_body_metrics(bodies.clone());
    if end_of_body {
        layer = layer.with_duration_to_end_of_body();
    }
    Setup {
        http,
        bodies,
        app: routes().layer(layer),
    }
}

fn labels(method: &str, route: &str) -> HttpHandlerLabels {
    HttpHandlerLabels {
        method: method.into(),
        handler: Handler::Route(route.into()),
    }
}

impl Setup {
    fn in_progress(&self, method: &str, route: &str) -> i64 {
        self.bodies
            .in_progress
            .get(&labels(method, route))
            .map_or(0, |gauge| gauge.get())
    }

    /// (count, sum) of `family` for one route.
    fn observed(family: &crate::Family<HttpHandlerLabels, Histogram>, route: &str) -> (u64, f64) {
        let method = if route == "/upload" || route == "/ignore" {
            "POST"
        } else {
            "GET"
        };
        family
            .get(&labels(method, route))
            .map_or((0, 0.0), |h| (h.snapshot().count(), h.snapshot().sum()))
    }

    fn requests(&self, route: &str, status: StatusClass) -> u64 {
        self.http
            .requests
            .get(&HttpRequestLabels {
                method: "GET".into(),
                status,
                handler: Handler::Route(route.into()),
            })
            .map_or(0, |c| c.get())
    }
}

#[test]
fn a_stream_is_timed_to_its_head_by_default_and_to_its_end_when_asked() {
    let mut registry = Registry::default();
    let head_http = HttpMetrics::register(&mut registry);
    let head_app = routes().layer(HttpMetricsLayer::new(head_http.clone()));
    let end = metered(true);

    let (head_streamed, end_streamed) = runtime().block_on(async {
        let timed = |app: Router| async move {
            let started = Instant::now();
            let body = fetch(&app, request("GET", "/stream", Body::empty())).await;
            assert_eq!(body.len(), 40);
            started.elapsed().as_secs_f64()
        };
        // At once, so that the test takes one stream's time.
        let head = tokio::spawn(timed(head_app));
        let end = tokio::spawn(timed(end.app.clone()));
        (head.await.expect("runs"), end.await.expect("runs"))
    });

    let head = head_http.duration_highr.snapshot();
    assert_eq!(head.count(), 1);
    // The body's 200 ms of pauses all come after the head, whatever the machine's load.
    assert!(
        head.sum() + 0.2 <= head_streamed,
        "the default is the time to the head: {} of a {head_streamed} s stream",
        head.sum()
    );

    let whole = end.http.duration_highr.snapshot();
    assert_eq!(whole.count(), 1);
    assert!(
        whole.sum() >= 0.2 && whole.sum() <= end_streamed,
        "the whole stream: {} of {end_streamed} s",
        whole.sum()
    );
    let (count, sum) = Setup::observed(&end.http.duration, "/stream");
    assert_eq!((count, sum), (1, whole.sum()));
    assert_eq!(end.requests("/stream", StatusClass::Success), 1);
}

#[test]
fn body_sizes_are_the_bytes_read_and_sent() {
    let s = metered(false);
    let upload = vec![b'u'; 3000];
    runtime().block_on(async {
        assert_eq!(
            fetch(&s.app, request("POST", "/upload", upload)).await,
            "3000"
        );
        assert_eq!(
            fetch(&s.app, request("POST", "/ignore", "unread")).await,
            "ignored"
        );
        assert_eq!(
            fetch(&s.app, request("GET", "/stream", Body::empty()))
                .await
                .len(),
            40
        );
        fetch(&s.app, request("GET", "/metrics", "x")).await;
    });
    let request_size = &s.bodies.request_size;
    let response_size = &s.bodies.response_size;
    assert_eq!(Setup::observed(request_size, "/upload"), (1, 3000.0));
    assert_eq!(Setup::observed(response_size, "/upload"), (1, 4.0));
    assert_eq!(
        Setup::observed(request_size, "/ignore"),
        (1, 0.0),
        "a body never read counts 0 bytes"
    );
    assert_eq!(Setup::observed(response_size, "/ignore"), (1, 7.0));
    assert_eq!(Setup::observed(request_size, "/stream"), (1, 0.0));
    assert_eq!(Setup::observed(response_size, "/stream"), (1, 40.0));
    assert_eq!(
        Setup::observed(response_size, "/metrics"),
        (0, 0.0),
        "excluded"
    );
    assert_eq!(s.bodies.response_size.len(), 3);
}

#[test]
fn a_request_is_in_progress_until_its_body_ends_or_is_dropped() {
    let s = metered(true);
    runtime().block_on(async {
        // Read to the end.
        let response = s
            .app
            .clone()
            .oneshot(request("GET", "/stream", Body::empty()));
        let mut body = response.await.expect("infallible").into_body();
        assert_eq!(s.in_progress("GET", "/stream"), 1, "after the head");
        while next_frame(&mut body).await.is_some() {}
        assert_eq!(s.in_progress("GET", "/stream"), 0, "at the end of the body");
        drop(body);
        assert_eq!(s.in_progress("GET", "/stream"), 0, "left once");

        // The client goes away after one frame.
        let response = s
            .app
            .clone()
            .oneshot(request("GET", "/stream", Body::empty()));
        let mut body = response.await.expect("infallible").into_body();
        assert!(next_frame(&mut body).await.is_some());
        assert_eq!(s.in_progress("GET", "/stream"), 1);
        drop(body);
        assert_eq!(s.in_progress("GET", "/stream"), 0);
    });
    // Both counted once, the second with the 10 bytes it sent.
    assert_eq!(s.requests("/stream", StatusClass::Success), 2);
    assert_eq!(
        Setup::observed(&s.bodies.response_size, "/stream"),
        (2, 50.0)
    );
    let (count, _) = Setup::observed(&s.http.duration, "/stream");
    assert_eq!(count, 2);
}

#[test]
fn a_request_cancelled_before_its_head_leaves_the_in_progress_gauge_and_is_not_counted() {
    let s = metered(true);
    runtime().block_on(async {
        let hang = s
            .app
            .clone()
            .oneshot(request("GET", "/hang", Body::empty()));
        let timed_out = tokio::time::timeout(Duration::from_millis(10), hang).await;
        assert!(timed_out.is_err());
    });
    assert_eq!(s.in_progress("GET", "/hang"), 0);
    assert!(
        s.bodies.in_progress.get(&labels("GET", "/hang")).is_some(),
        "it was in progress"
    );
    assert_eq!(s.requests("/hang", StatusClass::Success), 0);
    assert_eq!(s.http.duration_highr.snapshot().count(), 0);
}

#[test]
fn a_body_that_panics_still_leaves_the_in_progress_gauge_once_and_is_counted_once() {
    let s = metered(true);
    let runtime = runtime();
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        runtime.block_on(fetch(&s.app, request("GET", "/fail", Body::empty())))
    }));
    assert!(panicked.is_err());
    assert_eq!(s.in_progress("GET", "/fail"), 0);
    assert_eq!(s.requests("/fail", StatusClass::Success), 1);
    assert_eq!(Setup::observed(&s.bodies.response_size, "/fail"), (1, 10.0));
}
