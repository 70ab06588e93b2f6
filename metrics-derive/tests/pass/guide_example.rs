// The complete program of docs/guide.md, compiled and run by the pass suite so the guide
// cannot go stale. Keep the two in sync.
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::Arc;

use metric_handles::Registry;
use metric_handles::{
    ByLabel, Counter, ExpositionFormat, Family, Gauge, Histogram, LabelEnum, LabelSet,
    MetricHandles,
};

/// The labels every series of this struct carries.
#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    pub model_name: String,
    pub engine: u32,
}

/// Why a request finished: the complete list of values of the `finished_reason` label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "lowercase")]
pub enum FinishReason {
    Stop,
    Length,
    Abort,
}

/// The metrics of one engine.
#[derive(MetricHandles)]
#[metric_handles(handles = EngineHandles, labels = EngineLabels)]
pub struct EngineMetrics {
    /// Number of requests in model execution batches
    #[metric(name = "demo:num_requests_running")]
    pub running: Family<EngineLabels, Gauge>,

    /// Number of generation tokens processed
    #[metric(name = "demo:generation_tokens")]
    pub generation_tokens: Family<EngineLabels, Counter>,

    /// Time to first token
    #[metric(name = "demo:time_to_first_token", unit = "seconds",
             buckets = exponential(start = 0.001, factor = 2.0, count = 16))]
    pub ttft: Family<EngineLabels, Histogram>,

    /// Count of successfully processed requests
    #[metric(name = "demo:request_success", label = "finished_reason")]
    pub request_success: Family<EngineLabels, ByLabel<FinishReason, Counter>>,
}

fn main() {
    // 1. Register once, at start-up.
    let mut registry = Registry::default();
    let metrics = EngineMetrics::register(&mut registry);

    // 2. Resolve once per label set (per engine), and keep the handles.
    let engine0: EngineHandles = metrics.resolve(&EngineLabels {
        model_name: "llama".into(),
        engine: 0,
    });

    // 3. Record on the hot path: atomic operations only.
    engine0.running.set(3);
    engine0.generation_tokens.inc_by(128);
    engine0.ttft.observe(0.042);
    engine0.request_success.get(FinishReason::Stop).inc();

    // 4. Encode for a scrape.
    let text = metric_handles::ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    assert!(text.contains(
        r#"demo:request_success_total{model_name="llama",engine="0",finished_reason="stop"} 1"#
    ));

    // 5. Serve it (one request here, so the example terminates).
    let registry = Arc::new(registry);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let server = {
        let registry = Arc::clone(&registry);
        std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            serve_metrics(stream, &registry);
        })
    };
    let mut client = std::net::TcpStream::connect(address).unwrap();
    client
        .write_all(b"GET /metrics HTTP/1.1\r\nAccept: text/plain\r\n\r\n")
        .unwrap();
    let mut response = String::new();
    std::io::Read::read_to_string(&mut client, &mut response).unwrap();
    server.join().unwrap();
    assert!(response.contains("demo:generation_tokens_total"));
}

/// Answers one HTTP request with the registry, in the format the scraper asked for.
fn serve_metrics(stream: std::net::TcpStream, registry: &Registry) {
    let mut reader = BufReader::new(&stream);
    let mut accept = None;
    let mut line = String::new();
    while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("accept") {
                accept = Some(value.trim().to_owned());
            }
        }
        line.clear();
    }
    let format = ExpositionFormat::negotiate(accept.as_deref());
    let body = format.encode(registry).unwrap();
    let mut stream = &stream;
    write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
        format.content_type(),
        body.len(),
        body
    )
    .unwrap();
}
