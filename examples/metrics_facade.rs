//! A service whose own metrics are derived and whose dependencies record through the `metrics`
//! facade (here a stand-in cache library, and metrics-process from crates.io): one registry,
//! one `/metrics`. `cargo run --example metrics_facade` serves on 127.0.0.1:3001;
//! `-- --self-scrape` scrapes itself once and exits.

use axum::{extract::Path, extract::State, routing::get, Router};
use metric_handles::metrics_facade::{FacadeBuilder, Matcher};
use metric_handles::serve::MetricsHandler;
use metric_handles::{Counter, Family, MetricHandles, NoLabels, Registry};
use std::io::{Read, Write};
use std::{sync::Arc, time::Duration};

/// Stands for any crate that records through the `metrics` macros.
mod cache_library {
    pub fn lookup(key: &str) -> bool {
        let hit = key.len() % 2 == 0;
        let result = if hit { "hit" } else { "miss" };
        metrics::counter!("cache_lookups_total", "result" => result).increment(1);
        metrics::histogram!("cache_lookup_seconds").record(0.000_2);
        hit
    }
}

/// The service's own metrics: declared once, recorded through cached handles.
#[derive(Debug, MetricHandles)]
#[metric_handles(handles = ApiHandles, labels = NoLabels)]
pub struct ApiMetrics {
    /// Lookups the API served
    #[metric(name = "api_lookups")]
    pub lookups: Family<NoLabels, Counter>,
}

async fn lookup(State(api): State<Arc<ApiHandles>>, Path(key): Path<String>) -> &'static str {
    api.lookups.inc();
    if cache_library::lookup(&key) {
        "hit"
    } else {
        "miss"
    }
}

#[tokio::main]
async fn main() {
    let mut registry = Registry::default();
    let api = ApiMetrics::register(&mut registry).resolve(&NoLabels);
    // Every `metrics` macro of the process now records into `registry`: once, at start-up.
    FacadeBuilder::new()
        .buckets_for(Matcher::Suffix("_seconds".into()), &[1e-4, 1e-3, 1e-2, 0.1])
        .and_then(|builder| builder.install(&mut registry))
        .expect("valid bounds, and the first recorder of the process");
    let process = metrics_process::Collector::default();
    process.describe();
    tokio::spawn(async move {
        loop {
            process.collect(); // a dependency's own loop, recording through `metrics`
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    });
    let metrics = MetricsHandler::new(Arc::new(registry)).service();
    let app = Router::new()
        .route("/lookup/{key}", get(lookup))
        .with_state(Arc::new(api))
        .route_service("/metrics", metrics);
    let self_scrape = std::env::args().any(|arg| arg == "--self-scrape");
    let addr = ("127.0.0.1", if self_scrape { 0 } else { 3001 });
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let addr = listener.local_addr().unwrap();
    if !self_scrape {
        println!("serving on http://{addr} (GET /lookup/{{key}}, GET /metrics)");
        return axum::serve(listener, app).await.unwrap();
    }
    tokio::spawn(async move { axum::serve(listener, app).await });
    let text = tokio::task::spawn_blocking(move || {
        request(addr, "GET /lookup/ab");
        request(addr, "GET /lookup/abc");
        request(addr, "GET /metrics")
    });
    let text = text.await.unwrap();
    let lines = [
        "api_lookups_total 2",
        "cache_lookups_total{result=\"hit\"} 1",
        "cache_lookup_seconds_bucket{le=\"0.001\"} 2",
        "process_cpu_seconds_total ",
    ];
    let missing: Vec<_> = lines.iter().filter(|l| !text.contains(*l)).collect();
    assert!(missing.is_empty(), "missing {missing:?} in:\n{text}");
    println!("self-scrape: {} lines, one registry", text.lines().count());
}

/// One HTTP/1.0 request; the body of its 200 answer.
fn request(addr: std::net::SocketAddr, line: &str) -> String {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    let head = format!("{line} HTTP/1.0\r\nContent-Length: 0\r\n\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    let (status, body) = raw.split_once("\r\n\r\n").unwrap();
    assert!(status.starts_with("HTTP/1.0 200 OK"), "{line}: {status}");
    body.to_owned()
}
