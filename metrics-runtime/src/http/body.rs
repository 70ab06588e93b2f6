//! The body wrapper of the HTTP layer's body metering: counts the data bytes that pass through
//! a request or response body and records what the layer left for the body's end, once, when
//! the body ends, fails, or is dropped unfinished (a client gone mid-stream, a panic).
//!
//! The wrapper is the inner body, a byte count and what to record at the end (handles cloned
//! at the response head): each frame adds its length, no allocation, no lookup.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Buf;
use http_body::{Body, Frame, SizeHint};

use crate::gauge::InFlightGuard;
use crate::{Counter, Gauge, Histogram};

/// What a metered body records when it ends.
#[derive(Default)]
pub(crate) struct BodyEnd {
    /// Observes the body's data bytes.
    pub(crate) size: Option<Histogram>,
    /// The request's place in `http_requests_inprogress`, left as the body ends.
    pub(crate) in_progress: Option<InFlightGuard<Gauge>>,
    /// The request's count and duration, when they are timed to the end of the body.
    pub(crate) request: Option<RequestRecord>,
}

impl BodyEnd {
    fn record(self, bytes: u64) {
        let BodyEnd {
            size,
            in_progress,
            request,
        } = self;
        if let Some(size) = size {
            size.observe(bytes_as_f64(bytes));
        }
        if let Some(request) = request {
            request.record();
        }
        // Last: the request counts as in progress until its records are made.
        drop(in_progress);
    }
}

/// A request's `http_requests_total` and duration handles, resolved for its status class.
pub(crate) struct RequestRecord {
    pub(crate) requests: Counter,
    pub(crate) duration: Histogram,
    pub(crate) duration_highr: Histogram,
    pub(crate) started_at: Instant,
}

impl RequestRecord {
    /// Counts the request and observes the seconds since it reached the layer.
    pub(crate) fn record(self) {
        let seconds = self.started_at.elapsed().as_secs_f64();
        self.requests.inc();
        self.duration.observe(seconds);
        self.duration_highr.observe(seconds);
    }
}

/// A byte count as an observation: exact up to 2^53 bytes (8 PiB), far past any body.
#[allow(clippy::cast_precision_loss)]
fn bytes_as_f64(bytes: u64) -> f64 {
    bytes as f64
}

/// The count of a body and what to record at its end; records on drop if the body did not end.
struct Meter {
    bytes: u64,
    /// `None` once recorded, so the end is recorded once.
    end: Option<BodyEnd>,
}

impl Meter {
    fn end(&mut self) {
        if let Some(end) = self.end.take() {
            end.record(self.bytes);
        }
    }
}

impl Drop for Meter {
    fn drop(&mut self) {
        self.end();
    }
}

pin_project_lite::pin_project! {
    /// A request or response body that the HTTP layer measures
    /// (`HttpMetricsLayer::with_body_metrics`, `with_duration_to_end_of_body`): frames pass
    /// through unchanged, their data bytes are counted, and what the layer records at the end
    /// of the body is recorded when it yields its last frame or an error, or is dropped before.
    pub struct MeteredBody<B> {
        #[pin]
        inner: B,
        meter: Meter,
    }
}

impl<B> MeteredBody<B> {
    /// `inner`, recording `end` (if any) when it ends.
    pub(crate) fn new(inner: B, end: Option<BodyEnd>) -> Self {
        MeteredBody {
            inner,
            meter: Meter { bytes: 0, end },
        }
    }

    /// The data bytes the body has yielded so far.
    pub fn bytes(&self) -> u64 {
        self.meter.bytes
    }
}

impl<B: Body> Body for MeteredBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = self.project();
        let frame = std::task::ready!(this.inner.poll_frame(cx));
        match &frame {
            Some(Ok(frame)) => {
                if let Some(data) = frame.data_ref() {
                    let len = u64::try_from(data.remaining()).unwrap_or(u64::MAX);
                    this.meter.bytes = this.meter.bytes.saturating_add(len);
                }
            }
            Some(Err(_)) | None => this.meter.end(),
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl<B: fmt::Debug> fmt::Debug for MeteredBody<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MeteredBody")
            .field("inner", &self.inner)
            .field("bytes", &self.meter.bytes)
            .finish_non_exhaustive()
    }
}
