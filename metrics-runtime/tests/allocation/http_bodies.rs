//! The HTTP layer's body wrapper allocates nothing per frame, nor at the end of the body: a
//! response of 10,000 frames through a layer measuring bodies (sizes, requests in progress,
//! duration to the end of the body).

use std::convert::Infallible;
use std::future::Future;
use std::pin::{pin, Pin};
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use http::{Request, Response};
use http_body::{Body, Frame};
use metric_handles::http::layer::{HttpMetricsLayer, MeteredBody};
use metric_handles::http::{HttpBodyMetrics, HttpMetrics};
use metric_handles::Registry;
use tower_layer::Layer;
use tower_service::Service;

use crate::counting::allocations_during;

/// `0` more frames of 10 bytes, each ready at once; a frame of a static slice allocates nothing.
struct Frames(u32);

impl Body for Frames {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if self.0 == 0 {
            return Poll::Ready(None);
        }
        self.0 -= 1;
        Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b"0123456789")))))
    }
}

#[test]
fn metered_bodies_never_allocate_per_frame() {
    let mut registry = Registry::default();
    let http = HttpMetrics::register(&mut registry);
    let bodies = HttpBodyMetrics::register(&mut registry);
    let layer = HttpMetricsLayer::new(http.clone())
        .with_duration_to_end_of_body()
        .with_body_metrics(bodies.clone());
    let inner = tower::service_fn(|_: Request<MeteredBody<String>>| async {
        Ok::<_, Infallible>(Response::new(Frames(10_000)))
    });
    let mut service = layer.layer(inner);
    let mut cx = Context::from_waker(Waker::noop());
    let answer = pin!(service.call(Request::new(String::new())));
    let Poll::Ready(Ok(response)) = answer.poll(&mut cx) else {
        panic!("the inner service answers at once");
    };
    let mut body = response.into_body();

    let allocations = allocations_during(|| {
        while let Poll::Ready(Some(_)) = Pin::new(&mut body).poll_frame(&mut cx) {}
        drop(body);
    });
    assert_eq!(allocations, 0);
    assert_eq!(http.duration_highr.snapshot().count(), 1, "ended once");
    let text = metric_handles::ExpositionFormat::PrometheusText
        .encode(&registry)
        .expect("encodes");
    assert!(
        text.contains("http_response_size_bytes_sum{method=\"GET\",handler=\"none\"} 100000"),
        "{text}"
    );
    assert!(
        text.contains("http_requests_inprogress{method=\"GET\",handler=\"none\"} 0"),
        "{text}"
    );
}
