//! Pushes metrics to an OpenTelemetry collector over OTLP/HTTP: a counter, a gauge, a classic
//! histogram and a native one whose exemplars carry the trace ids of the requests.
//!
//! `cargo run --example otlp -- --seconds 10` pushes to `OTEL_EXPORTER_OTLP_ENDPOINT` (default
//! `http://localhost:4318`) every `OTEL_METRIC_EXPORT_INTERVAL` milliseconds (default 60000),
//! and exits after a final export on Ctrl-C or after `--seconds N`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use metric_handles::otlp::trace::opentelemetry::trace::{
    SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState,
};
use metric_handles::otlp::trace::{opentelemetry::Context, InTrace};
use metric_handles::otlp::{OtlpConfig, OtlpMetrics};
use metric_handles::{Counter, Family, Gauge, Histogram, LabelSet, MetricHandles, Registry};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Route {
    pub route: String,
}

#[derive(Debug, MetricHandles)]
#[metric_handles(handles = RouteHandles, labels = Route)]
pub struct ApiMetrics {
    /// Requests served
    #[metric(name = "api_requests")]
    pub requests: Family<Route, Counter>,
    /// Requests being served
    #[metric(name = "api_in_flight")]
    pub in_flight: Family<Route, Gauge>,
    /// Size of the answers
    #[metric(name = "api_response_size", unit = "bytes", buckets = [256.0, 4096.0, 65536.0])]
    pub size: Family<Route, Histogram>,
    /// Time to answer
    #[metric(name = "api_latency", unit = "seconds", buckets = [0.1], native)]
    pub latency: Family<Route, Histogram>,
}

/// A span id from the requests' counter, as a tracer would give (a sampled remote parent).
fn request_span(n: u64) -> SpanContext {
    let trace = (u128::from(n) << 64) | 0x5eed_u128.wrapping_mul(u128::from(n) + 1);
    SpanContext::new(
        TraceId::from_bytes(trace.to_be_bytes()),
        SpanId::from_bytes((n + 1).to_be_bytes()),
        TraceFlags::SAMPLED,
        true,
        TraceState::default(),
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let seconds: Option<u64> = match args.iter().position(|a| a == "--seconds") {
        Some(i) => Some(args.get(i + 1).ok_or("--seconds takes a number")?.parse()?),
        None => None,
    };
    let mut registry = Registry::default();
    let api = ApiMetrics::register(&mut registry);
    let exporter_metrics = OtlpMetrics::register(&mut registry);
    let config = OtlpConfig::from_env().with_metrics(&exporter_metrics);
    let (url, every) = (config.endpoint_url(), config.interval_duration());
    println!("pushing to {url} every {every:?}");
    let mut exporter = config.start(Arc::new(registry))?;

    let route = |route: &str| {
        api.resolve(&Route {
            route: route.into(),
        })
    };
    let routes = [route("/chat"), route("/embed")];
    let deadline = seconds.map(|s| Instant::now() + Duration::from_secs(s));
    let mut ticker = tokio::time::interval(Duration::from_millis(20));
    for n in 0u64.. {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => break,
            _ = ticker.tick() => {}
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let route = &routes[(n % 2) as usize];
        route.in_flight.inc();
        // The request's span is current while it is recorded: its ids become the exemplars.
        let _span = Context::current()
            .with_remote_span_context(request_span(n))
            .attach();
        route
            .latency
            .record_in_trace(0.002 * (n % 50) as f64 + 0.001);
        route.size.observe((n % 7 * 1000) as f64);
        route.requests.inc();
        route.in_flight.dec();
    }
    // The last export carries everything recorded up to here.
    exporter.shutdown()?;
    println!("final export accepted");
    Ok(())
}
