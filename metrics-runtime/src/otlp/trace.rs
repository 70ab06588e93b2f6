//! Exemplars from the current trace (feature `otlp-trace`): the trace and span ids of the
//! OpenTelemetry span an observation was made in, attached in one call.
//!
//! An exemplar is kept only for a span that is valid and sampled (OpenTelemetry's trace-based
//! exemplar filter, its default): an unsampled trace is never stored, so an exemplar that
//! pointed at it would lead nowhere. The ids are the lowercase hex the W3C trace context
//! writes, under the labels `trace_id` and `span_id` that the OpenTelemetry specification
//! reads back (the OTLP exporter sends them as the exemplar's ids, the text formats as labels:
//! 32 + 16 hex digits and the two names, 61 characters of the 128 an exemplar may hold).
//!
//! The current context is OpenTelemetry's (`opentelemetry::Context::current()`, what
//! `Context::attach` and the SDK's `Tracer::in_span` set). With `tracing` and
//! `tracing-opentelemetry`, the span's context is `tracing::Span::current().context()`
//! (`OpenTelemetrySpanExt`): pass it to [`TraceExemplar::from_context`] and record with
//! `observe_with_exemplar`.
//!
//! ```
//! use metric_handles::Histogram;
//! use metric_handles::otlp::trace::InTrace;
//! use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState};
//! use opentelemetry::Context;
//!
//! let latency = Histogram::new([0.1, 1.0]);
//! latency.record_in_trace(0.3); // no span: recorded, no exemplar
//! let span = SpanContext::new(
//!     TraceId::from_bytes([0x4b; 16]),
//!     SpanId::from_bytes([0x0f; 8]),
//!     TraceFlags::SAMPLED,
//!     false,
//!     TraceState::default(),
//! );
//! let _guard = Context::current().with_remote_span_context(span).attach();
//! latency.record_in_trace(0.4); // the exemplar of the (0.1, 1] bucket
//! assert_eq!(latency.snapshot().count(), 2);
//! ```

/// The opentelemetry API crate this module reads spans from, so a user names the same version.
pub use opentelemetry;

use opentelemetry::trace::{SpanContext, TraceContextExt};
use opentelemetry::Context;

use crate::exemplar::{EncodedLabels, ExemplarError, ExemplarLabels};
use crate::{Counter, Histogram};

/// The `trace_id` and `span_id` exemplar labels of one sampled span, as hex on the stack (no
/// allocation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceExemplar {
    trace_id: [u8; 32],
    span_id: [u8; 16],
}

impl TraceExemplar {
    /// The labels of the span current on this thread, if it is valid and sampled.
    pub fn current() -> Option<Self> {
        Context::map_current(TraceExemplar::from_context)
    }

    /// The labels of `context`'s span, if it is valid and sampled.
    pub fn from_context(context: &Context) -> Option<Self> {
        TraceExemplar::from_span_context(context.span().span_context())
    }

    /// The labels of `span`, if it is valid and sampled.
    pub fn from_span_context(span: &SpanContext) -> Option<Self> {
        if !span.is_valid() || !span.is_sampled() {
            return None;
        }
        let mut exemplar = TraceExemplar {
            trace_id: [0; 32],
            span_id: [0; 16],
        };
        hex_into(&span.trace_id().to_bytes(), &mut exemplar.trace_id);
        hex_into(&span.span_id().to_bytes(), &mut exemplar.span_id);
        Some(exemplar)
    }

    /// The trace id, 32 lowercase hex digits.
    pub fn trace_id(&self) -> &str {
        // Hex digits are ASCII.
        std::str::from_utf8(&self.trace_id).unwrap_or_default()
    }

    /// The span id, 16 lowercase hex digits.
    pub fn span_id(&self) -> &str {
        std::str::from_utf8(&self.span_id).unwrap_or_default()
    }
}

impl ExemplarLabels for TraceExemplar {
    fn encode_exemplar_labels(&self, out: &mut EncodedLabels) -> Result<(), ExemplarError> {
        out.push("trace_id", self.trace_id())?;
        out.push("span_id", self.span_id())
    }
}

fn hex_into(bytes: &[u8], out: &mut [u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for (byte, pair) in bytes.iter().zip(out.chunks_exact_mut(2)) {
        pair[0] = DIGITS[usize::from(byte >> 4)];
        pair[1] = DIGITS[usize::from(byte & 0x0f)];
    }
}

/// Recording with the current span as the exemplar, in one call: one read of the current
/// context (a thread-local), and the exemplar written only for a sampled span.
pub trait InTrace {
    /// What this metric kind records: `f64` observed by a histogram, `u64` added to a counter.
    type Value;

    /// Records `value` (a histogram observes it, a counter adds it), with the current span as
    /// its exemplar when one is sampled. The value is recorded whatever happens to the
    /// exemplar, as with `observe_with_exemplar`.
    fn record_in_trace(&self, value: Self::Value);
}

impl InTrace for Histogram {
    type Value = f64;

    #[inline]
    fn record_in_trace(&self, value: f64) {
        match TraceExemplar::current() {
            // The exemplar's only possible errors are a write in progress on the same slot
            // (counted in `dropped_exemplars`); the ids always meet the rules.
            Some(exemplar) => {
                let _ = self.observe_with_exemplar(value, &exemplar);
            }
            None => self.observe(value),
        }
    }
}

impl InTrace for Counter {
    type Value = u64;

    /// Adds `value`.
    #[inline]
    fn record_in_trace(&self, value: u64) {
        match TraceExemplar::current() {
            Some(exemplar) => {
                let _ = self.inc_by_with_exemplar(value, &exemplar);
            }
            None => {
                self.inc_by(value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::trace::{SpanId, TraceFlags, TraceId, TraceState};

    fn span(flags: TraceFlags) -> SpanContext {
        SpanContext::new(
            TraceId::from_bytes([
                0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e,
                0x47, 0x36,
            ]),
            SpanId::from_bytes([0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7]),
            flags,
            false,
            TraceState::default(),
        )
    }

    #[test]
    fn a_sampled_span_gives_w3c_hex_ids_and_an_unsampled_or_invalid_one_none() {
        let e = TraceExemplar::from_span_context(&span(TraceFlags::SAMPLED)).expect("sampled");
        assert_eq!(e.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(e.span_id(), "00f067aa0ba902b7");
        assert_eq!(
            TraceExemplar::from_span_context(&span(TraceFlags::default())),
            None
        );
        assert_eq!(
            TraceExemplar::from_span_context(&SpanContext::empty_context()),
            None
        );
        assert_eq!(TraceExemplar::current(), None, "no span is current here");
    }

    #[test]
    fn the_current_span_becomes_the_exemplar_of_the_bucket_and_of_the_counter() {
        let histogram = Histogram::new([1.0]);
        let counter = Counter::default();
        histogram.record_in_trace(0.5);
        counter.record_in_trace(2);
        assert!(!histogram.has_exemplars());
        {
            let _guard = Context::current()
                .with_remote_span_context(span(TraceFlags::SAMPLED))
                .attach();
            histogram.record_in_trace(0.5);
            counter.record_in_trace(3);
        }
        histogram.record_in_trace(2.0); // after the span: no exemplar for +Inf
        assert_eq!((histogram.snapshot().count(), counter.get()), (3, 5));
        let mut buffer = crate::exemplar::ExemplarBuffer::default();
        let first = histogram
            .bucket_exemplar(0, &mut buffer)
            .expect("an exemplar");
        let labels: Vec<_> = first.labels().collect();
        assert_eq!(
            labels,
            [
                ("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"),
                ("span_id", "00f067aa0ba902b7")
            ]
        );
        assert!(histogram.bucket_exemplar(1, &mut buffer).is_none());
    }
}
