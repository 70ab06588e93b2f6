//! A sharded key-value service on axum: derived metrics, the HTTP layer, the process collector
//! and `/metrics` served by the library's handler (gzip, limits). `cargo run --example axum`
//! serves on 127.0.0.1:3000; `-- --self-scrape` scrapes itself once and exits.

use axum::{extract::Path, extract::State, routing::get, Router};
use metric_handles::http::{layer::HttpMetricsLayer, HttpMetrics};
use metric_handles::process::ProcessCollector;
use metric_handles::serve::{MetricsHandler, ScrapeMetrics};
use metric_handles::{ByLabel, Counter, Family, Gauge, LabelEnum, LabelSet, MetricHandles};
use std::{io::Read, io::Write, sync::Arc};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Shard {
    pub shard: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "lowercase")]
pub enum Op {
    Get,
    Put,
}

#[derive(Debug, MetricHandles)]
#[metric_handles(handles = ShardHandles, labels = Shard)]
pub struct KvMetrics {
    /// Keys stored in the shard
    #[metric(name = "kv_keys")]
    pub keys: Family<Shard, Gauge>,
    /// Operations served, by kind
    #[metric(name = "kv_operations", label = "op")]
    pub operations: Family<Shard, ByLabel<Op, Counter>>,
}

type Shards = Arc<Vec<ShardHandles>>; // one set of handles per shard, resolved once

async fn get_key(State(shards): State<Shards>, Path(key): Path<String>) -> String {
    shards[key.len() % 4].operations.get(Op::Get).inc(); // the store itself is left out
    key
}

async fn put_key(State(shards): State<Shards>, Path(key): Path<String>) {
    shards[key.len() % 4].operations.get(Op::Put).inc();
    shards[key.len() % 4].keys.inc();
}

#[tokio::main]
async fn main() {
    let mut registry = metric_handles::Registry::default();
    ProcessCollector::register(&mut registry); // process_* at the root, as dashboards expect
    let scrapes = ScrapeMetrics::register(&mut registry);
    let service = registry.sub_registry_with_prefix("acme"); // the service's prefix and labels
    let service = service.sub_registry_with_label(("node".into(), "a".into()));
    let (kv, http) = (KvMetrics::register(service), HttpMetrics::register(service));
    let shards = (0..4).map(|shard| kv.resolve(&Shard { shard }));
    let handler = MetricsHandler::new(Arc::new(registry)).with_metrics(&scrapes); // gzip on
    let app = Router::new()
        .route("/kv/{key}", get(get_key).put(put_key))
        .with_state(Arc::new(shards.collect()))
        .route_service("/metrics", handler.service())
        .layer(HttpMetricsLayer::new(http));
    let self_scrape = std::env::args().any(|arg| arg == "--self-scrape");
    let addr = ("127.0.0.1", if self_scrape { 0 } else { 3000 });
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let addr = listener.local_addr().unwrap();
    if !self_scrape {
        println!("serving on http://{addr} (GET/PUT /kv/{{key}}, GET /metrics)");
        return axum::serve(listener, app).await.unwrap();
    }
    tokio::spawn(async move { axum::serve(listener, app).await });
    let scrape = tokio::task::spawn_blocking(move || {
        request(addr, "PUT /kv/alpha");
        request(addr, "GET /kv/alpha");
        request(addr, "GET /metrics")
    });
    let (mut text, gzipped) = (String::new(), scrape.await.unwrap());
    let mut gzip = flate2::read::GzDecoder::new(&gzipped[..]);
    gzip.read_to_string(&mut text).expect("a gzip body");
    let families = [
        "acme_kv_keys{node",
        "acme_http_requests_total{node",
        "process_threads",
    ];
    let found = |family: &&str| text.contains(&format!("\n{family}"));
    assert!(families.iter().all(found), "a family is missing:\n{text}");
    println!("self-scrape: {} lines, gzip", text.lines().count());
}

/// One HTTP/1.0 request that accepts gzip; the body of its 200 answer.
fn request(addr: std::net::SocketAddr, line: &str) -> Vec<u8> {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    let head = format!("{line} HTTP/1.0\r\nAccept-Encoding: gzip\r\nContent-Length: 0\r\n\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let status = String::from_utf8_lossy(&raw[..end]).into_owned();
    assert!(status.starts_with("HTTP/1.0 200 OK"), "{line}: {status}");
    raw.split_off(end)
}
