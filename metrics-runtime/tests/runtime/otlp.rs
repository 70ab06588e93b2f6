//! The OTLP exporter (feature `otlp`) against a receiver on 127.0.0.1 that decodes each request
//! with opentelemetry-proto's types: every data point equals what the registry holds, a
//! collector that answers 503 for a while loses no count, an unreachable one is an error
//! counted in the exporter's own families, and Python's `opentelemetry-proto` reads the same
//! payload.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use metric_handles::family::{FamilySpec, RuntimeFamilies};
use metric_handles::otlp::{Compression, FailureReason, OtlpConfig, OtlpError, OtlpMetrics};
use metric_handles::prometheus_client::metrics::counter::Counter as PcCounter;
use metric_handles::testing::Scrape;
use metric_handles::{
    ByLabel, Counter, Family, Gauge, Histogram, Info, LabelEnum, LabelSet, MetricHandles, Registry,
    StateSet,
};
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, KeyValue};
use opentelemetry_proto::tonic::metrics::v1::{
    metric::Data, number_data_point, AggregationTemporality, Metric,
};
use prost::Message;

use crate::support::external_tool::{available_or_skip, python, runs};

// ---------------------------------------------------------------------------------------------
// The receiver: HTTP/1.1 with keep-alive, one thread per connection, answers from a script.

/// One request as the receiver read it.
#[derive(Clone, Debug)]
struct Received {
    status: u16,
    headers: Vec<(String, String)>,
    /// The body as sent (gzipped when the exporter compresses).
    raw: Vec<u8>,
    /// The decompressed protobuf.
    body: Vec<u8>,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn request(&self) -> ExportMetricsServiceRequest {
        ExportMetricsServiceRequest::decode(self.body.as_slice()).expect("an OTLP request")
    }
}

#[derive(Default)]
struct Shared {
    received: Mutex<Vec<Received>>,
    /// Statuses to answer first, in order (with `Retry-After: 0` for 429 and 503); then 200.
    script: Mutex<VecDeque<u16>>,
    /// While set, every request is answered 503.
    outage: AtomicBool,
}

struct Receiver {
    url: String,
    shared: Arc<Shared>,
}

impl Receiver {
    fn start() -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let url = format!("http://{}/v1/metrics", listener.local_addr().expect("addr"));
        let shared = Arc::new(Shared::default());
        let accept = Arc::clone(&shared);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = Arc::clone(&accept);
                std::thread::spawn(move || serve(stream, &shared));
            }
        });
        Receiver { url, shared }
    }

    fn received(&self) -> Vec<Received> {
        self.shared.received.lock().expect("lock").clone()
    }

    fn last_accepted(&self) -> Received {
        self.received()
            .into_iter()
            .rev()
            .find(|r| r.status == 200)
            .expect("an accepted request")
    }
}

/// Reads requests from one connection until it closes.
fn serve(stream: TcpStream, shared: &Shared) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut writer = stream;
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        assert!(
            request_line.starts_with("POST /v1/metrics HTTP/1.1"),
            "{request_line:?}"
        );
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).expect("a header line");
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').expect("name: value");
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
        let length: usize = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            .map(|(_, v)| v.parse().expect("a length"))
            .expect("Content-Length");
        let mut raw = vec![0; length];
        reader.read_exact(&mut raw).expect("the body");
        let gzipped = headers
            .iter()
            .any(|(k, v)| k.eq_ignore_ascii_case("content-encoding") && v == "gzip");
        let body = if gzipped {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(raw.as_slice())
                .read_to_end(&mut out)
                .expect("gzip");
            out
        } else {
            raw.clone()
        };
        let status = if shared.outage.load(Ordering::SeqCst) {
            503
        } else {
            shared
                .script
                .lock()
                .expect("lock")
                .pop_front()
                .unwrap_or(200)
        };
        shared.received.lock().expect("lock").push(Received {
            status,
            headers,
            raw,
            body,
        });
        let answer = match status {
            200 => {
                // An empty ExportMetricsServiceResponse: no partial success.
                "HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n".to_owned()
            }
            429 | 503 => format!(
                "HTTP/1.1 {status} Unavailable\r\nRetry-After: 0\r\nContent-Length: 0\r\n\r\n"
            ),
            _ => format!("HTTP/1.1 {status} Refused\r\nContent-Length: 0\r\n\r\n"),
        };
        if writer.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The workload: every kind of family, recorded through cached handles.

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Engine {
    pub engine: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "lowercase")]
pub enum Finish {
    Stop,
    Length,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "lowercase")]
pub enum Health {
    Up,
    Draining,
}

#[derive(Debug, MetricHandles)]
#[metric_handles(handles = EngineHandles, labels = Engine)]
pub struct EngineMetrics {
    /// Finished requests
    #[metric(name = "otlp_test:request_success", label = "finished_reason")]
    pub success: Family<Engine, ByLabel<Finish, Counter>>,
    /// Requests running
    #[metric(name = "otlp_test:running")]
    pub running: Family<Engine, Gauge>,
    /// Time to first token
    #[metric(name = "otlp_test:ttft", unit = "seconds", buckets = [0.01, 0.1, 1.0])]
    pub ttft: Family<Engine, Histogram>,
    /// Inter-token latency
    #[metric(name = "otlp_test:itl", unit = "seconds", buckets = [0.1], native)]
    pub itl: Family<Engine, Histogram>,
    /// Build of the engine
    #[metric(name = "otlp_test:build")]
    pub build: Family<Engine, Info>,
    /// Health of the engine
    #[metric(name = "otlp_test_health")]
    pub health: Family<Engine, StateSet<Health>>,
}

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN: &str = "00f067aa0ba902b7";

struct Workload {
    registry: Arc<Registry>,
    engines: Vec<EngineHandles>,
    foreign: PcCounter,
    plugin: Counter,
    exporter_metrics: OtlpMetrics,
}

fn workload() -> Workload {
    let mut registry = Registry::default();
    let metrics = EngineMetrics::register(&mut registry);
    let foreign = PcCounter::default();
    registry.register(
        "otlp_test_foreign",
        "A prometheus-client counter",
        foreign.clone(),
    );
    let plugins = RuntimeFamilies::<Engine>::register_in(&mut registry);
    let fetches = plugins
        .register::<Counter>(&FamilySpec::counter("otlp_test:fetches", "Blocks fetched"))
        .expect("a valid spec");
    let plugin = fetches
        .get_or_create(&Engine { engine: "0".into() }, &[])
        .expect("no extra keys");
    let exporter_metrics = OtlpMetrics::register(&mut registry);
    let engines: Vec<_> = (0..2)
        .map(|e| {
            metrics.resolve(&Engine {
                engine: e.to_string(),
            })
        })
        .collect();
    for (e, h) in engines.iter().enumerate() {
        h.success.get(Finish::Stop).inc_by(10 + e as u64);
        h.success.get(Finish::Length).inc_by(3);
        h.running.set(5 - e as i64);
        for (i, v) in [0.005, 0.05, 0.05, 0.5, 7.0].into_iter().enumerate() {
            if i == 3 {
                h.ttft
                    .observe_with_exemplar(v, &[("trace_id", TRACE), ("span_id", SPAN)])
                    .expect("a valid exemplar");
            } else {
                h.ttft.observe(v);
            }
        }
        for v in [0.0, 0.001, 0.002, 0.02, 0.02, 0.3, -0.4, 40.0] {
            h.itl.observe(v);
        }
        h.itl
            .observe_with_exemplar(0.021, &[("trace_id", TRACE), ("span_id", SPAN)])
            .expect("a valid exemplar");
        h.health
            .set(if e == 0 { Health::Up } else { Health::Draining });
    }
    foreign.inc_by(42);
    plugin.inc_by(7);
    Workload {
        registry: Arc::new(registry),
        engines,
        foreign,
        plugin,
        exporter_metrics,
    }
}

fn exporter_config(receiver: &Receiver, w: &Workload) -> OtlpConfig {
    OtlpConfig::from_vars(|_| None)
        .endpoint(receiver.url.clone())
        .service_name("otlp-test")
        .header("x-tenant", "blue")
        .interval(Duration::from_secs(3600))
        .timeout(Duration::from_secs(5))
        .with_metrics(&w.exporter_metrics)
}

// ---------------------------------------------------------------------------------------------
// Reading a request.

fn metrics(request: &ExportMetricsServiceRequest) -> Vec<&Metric> {
    request
        .resource_metrics
        .iter()
        .flat_map(|r| &r.scope_metrics)
        .flat_map(|s| &s.metrics)
        .collect()
}

fn metric<'r>(request: &'r ExportMetricsServiceRequest, name: &str) -> &'r Metric {
    let found: Vec<_> = metrics(request)
        .into_iter()
        .filter(|m| m.name == name)
        .collect();
    assert_eq!(found.len(), 1, "one metric {name}");
    found[0]
}

fn string(kv: &KeyValue) -> &str {
    match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
        Some(any_value::Value::StringValue(s)) => s,
        other => panic!("{} is not a string: {other:?}", kv.key),
    }
}

fn attrs(kvs: &[KeyValue]) -> Vec<(String, String)> {
    let mut out: Vec<_> = kvs
        .iter()
        .map(|kv| (kv.key.clone(), string(kv).to_owned()))
        .collect();
    out.sort();
    out
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut out: Vec<_> = list
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    out.sort();
    out
}

fn value(point: &opentelemetry_proto::tonic::metrics::v1::NumberDataPoint) -> f64 {
    match point.value {
        Some(number_data_point::Value::AsDouble(v)) => v,
        Some(number_data_point::Value::AsInt(v)) => v as f64,
        None => panic!("a point without a value"),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A number point: its sorted attributes, value and start time.
type NumberPoint = (Vec<(String, String)>, f64, u64);

/// Every number point of a sum or gauge, by its sorted attributes.
fn number_points(m: &Metric) -> Vec<NumberPoint> {
    let points = match m.data.as_ref().expect("data") {
        Data::Sum(s) => &s.data_points,
        Data::Gauge(g) => &g.data_points,
        other => panic!("{} is not a number metric: {other:?}", m.name),
    };
    let mut out: Vec<_> = points
        .iter()
        .map(|p| (attrs(&p.attributes), value(p), p.start_time_unix_nano))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn sum_shape(m: &Metric) -> (bool, i32) {
    match m.data.as_ref().expect("data") {
        Data::Sum(s) => (s.is_monotonic, s.aggregation_temporality),
        other => panic!("{} is not a sum: {other:?}", m.name),
    }
}

const CUMULATIVE: i32 = AggregationTemporality::Cumulative as i32;

// ---------------------------------------------------------------------------------------------

#[test]
fn every_data_point_the_receiver_decodes_equals_what_the_registry_holds() {
    let receiver = Receiver::start();
    let w = workload();
    let mut exporter = exporter_config(&receiver, &w)
        .compression(Compression::Gzip)
        .start(Arc::clone(&w.registry))
        .expect("the exporter starts");
    exporter.force_flush().expect("the collector accepts");

    let sent = receiver.last_accepted();
    assert_eq!(sent.header("content-type"), Some("application/x-protobuf"));
    assert_eq!(sent.header("content-encoding"), Some("gzip"));
    assert_eq!(sent.header("x-tenant"), Some("blue"));
    assert!(sent.raw.len() < sent.body.len(), "gzip shrinks the body");
    let request = sent.request();
    let resource = request.resource_metrics[0]
        .resource
        .as_ref()
        .expect("a resource");
    assert!(attrs(&resource.attributes).contains(&("service.name".into(), "otlp-test".into())));
    let scope = request.resource_metrics[0].scope_metrics[0]
        .scope
        .as_ref()
        .expect("a scope");
    assert_eq!(scope.name, "metric-handles");

    // Counters: monotonic cumulative sums under the Prometheus name, with their start time.
    let success = metric(&request, "otlp_test:request_success_total");
    assert_eq!(sum_shape(success), (true, CUMULATIVE));
    assert_eq!(success.description, "Finished requests.");
    let mut expected = Vec::new();
    for (e, h) in w.engines.iter().enumerate() {
        for reason in [Finish::Stop, Finish::Length] {
            let label = if reason == Finish::Stop {
                "stop"
            } else {
                "length"
            };
            let engine = e.to_string();
            expected.push((
                pairs(&[("engine", &engine), ("finished_reason", label)]),
                h.success.get(reason).get() as f64,
            ));
        }
    }
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    let points = number_points(success);
    let got: Vec<_> = points.iter().map(|(a, v, _)| (a.clone(), *v)).collect();
    assert_eq!(got, expected);
    assert!(points.iter().all(|(_, _, start)| *start > 0), "start times");

    // Gauges.
    let running = number_points(metric(&request, "otlp_test:running"));
    let got: Vec<_> = running.iter().map(|(a, v, _)| (a.clone(), *v)).collect();
    assert_eq!(
        got,
        vec![
            (pairs(&[("engine", "0")]), w.engines[0].running.get() as f64),
            (pairs(&[("engine", "1")]), w.engines[1].running.get() as f64),
        ]
    );

    // A classic histogram: per-bucket counts, no +Inf bound, the exemplar's ids as bytes.
    let ttft = metric(&request, "otlp_test:ttft_seconds");
    assert_eq!(ttft.unit, "s");
    let Some(Data::Histogram(histogram)) = &ttft.data else {
        panic!("{ttft:?} is not a histogram");
    };
    assert_eq!(histogram.aggregation_temporality, CUMULATIVE);
    assert_eq!(histogram.data_points.len(), 2);
    for point in &histogram.data_points {
        let engine = attrs(&point.attributes)[0].1.clone();
        let snapshot = w.engines[engine.parse::<usize>().expect("engine")]
            .ttft
            .snapshot();
        assert_eq!(point.explicit_bounds, snapshot.bounds());
        assert_eq!(point.bucket_counts, snapshot.bucket_counts());
        assert_eq!(point.count, snapshot.count());
        assert_eq!(point.sum, Some(snapshot.sum()));
        assert!(
            point.start_time_unix_nano > 0 && point.start_time_unix_nano <= point.time_unix_nano
        );
        assert_eq!(
            point.exemplars.len(),
            1,
            "the exemplar of the (0.1, 1] bucket"
        );
        let exemplar = &point.exemplars[0];
        assert_eq!(
            (hex(&exemplar.trace_id), hex(&exemplar.span_id)),
            (TRACE.into(), SPAN.into())
        );
        assert!(exemplar.filtered_attributes.is_empty());
        assert!(exemplar.time_unix_nano > 0);
    }

    // A native histogram: an exponential histogram of the same scale, Prometheus's bucket `i`
    // at OTLP index `i - 1`, the zero bucket, the negative side, the recent exemplars.
    let itl = metric(&request, "otlp_test:itl_seconds");
    let Some(Data::ExponentialHistogram(exponential)) = &itl.data else {
        panic!("{itl:?} is not an exponential histogram");
    };
    assert_eq!(exponential.aggregation_temporality, CUMULATIVE);
    for point in &exponential.data_points {
        let engine = attrs(&point.attributes)[0].1.clone();
        let snapshot = w.engines[engine.parse::<usize>().expect("engine")]
            .itl
            .snapshot();
        let native = snapshot.native().expect("native buckets");
        assert_eq!(point.scale, i32::from(native.schema()));
        assert_eq!(point.zero_count, native.zero_count());
        assert_eq!(point.zero_threshold, native.zero_threshold());
        assert_eq!(point.count, snapshot.count());
        assert_eq!(point.sum, Some(snapshot.sum()));
        for (side, sparse) in [
            (point.positive.as_ref(), native.positive()),
            (point.negative.as_ref(), native.negative()),
        ] {
            let side = side.expect("buckets on both sides");
            let mut dense: Vec<(i32, u64)> = side
                .bucket_counts
                .iter()
                .enumerate()
                .filter(|(_, c)| **c > 0)
                .map(|(i, c)| (side.offset + i as i32 + 1, *c))
                .collect();
            dense.sort();
            let mut expected = sparse.to_vec();
            expected.retain(|(_, c)| *c > 0);
            expected.sort();
            assert_eq!(dense, expected);
        }
        let total: u64 = point.zero_count
            + point
                .positive
                .as_ref()
                .map_or(0, |b| b.bucket_counts.iter().sum())
            + point
                .negative
                .as_ref()
                .map_or(0, |b| b.bucket_counts.iter().sum());
        assert_eq!(total, point.count, "the buckets hold every observation");
        assert!(
            point.exemplars.iter().any(|e| hex(&e.trace_id) == TRACE
                && e.value
                    == Some(
                        opentelemetry_proto::tonic::metrics::v1::exemplar::Value::AsDouble(0.021)
                    )),
            "{:?}",
            point.exemplars
        );
    }

    // Info and state sets: non-monotonic cumulative sums, as the specification maps them.
    let build = metric(&request, "otlp_test:build_info");
    assert_eq!(sum_shape(build), (false, CUMULATIVE));
    assert_eq!(
        number_points(build)
            .into_iter()
            .map(|(a, v, _)| (a, v))
            .collect::<Vec<_>>(),
        vec![
            (pairs(&[("engine", "0")]), 1.0),
            (pairs(&[("engine", "1")]), 1.0),
        ]
    );
    let health = metric(&request, "otlp_test_health");
    assert_eq!(sum_shape(health), (false, CUMULATIVE));
    let states: Vec<_> = number_points(health)
        .into_iter()
        .map(|(a, v, _)| (a, v))
        .collect();
    assert!(states.contains(&(
        pairs(&[("engine", "1"), ("otlp_test_health", "draining")]),
        1.0
    )));
    assert!(states.contains(&(pairs(&[("engine", "1"), ("otlp_test_health", "up")]), 0.0)));
    assert_eq!(states.len(), 4);

    // A foreign prometheus-client counter and a run-time family.
    let foreign = metric(&request, "otlp_test_foreign_total");
    assert_eq!(sum_shape(foreign), (true, CUMULATIVE));
    assert_eq!(number_points(foreign)[0].1, w.foreign.get() as f64);
    let fetches = metric(&request, "otlp_test:fetches_total");
    assert_eq!(number_points(fetches)[0].1, w.plugin.get() as f64);

    // Every metric of the registry is there: the families of a Prometheus scrape, by name.
    let scraped = Scrape::of(&w.registry);
    for name in [
        "otlp_test:request_success_total",
        "otlp_test:running",
        "otlp_test_foreign_total",
    ] {
        assert!(
            scraped.sum_of(name, &[]) > Some(0.0),
            "{name} in the scrape"
        );
    }

    // The exporter's own families count the export and its points.
    let points: u64 = metrics(&request)
        .iter()
        .map(|m| match m.data.as_ref().expect("data") {
            Data::Sum(s) => s.data_points.len(),
            Data::Gauge(g) => g.data_points.len(),
            Data::Histogram(h) => h.data_points.len(),
            Data::ExponentialHistogram(h) => h.data_points.len(),
            Data::Summary(s) => s.data_points.len(),
        } as u64)
        .sum();
    let own = Scrape::of(&w.registry);
    assert_eq!(
        own.value("metric_handles_otlp_exports_total", &[]),
        Some(1.0)
    );
    assert_eq!(
        own.value("metric_handles_otlp_data_points_total", &[]),
        Some(points as f64)
    );
    assert!(own.value("metric_handles_otlp_last_success_timestamp_seconds", &[]) > Some(1.7e9));

    // A second export: the same start times, a later time, counts that only grew.
    w.engines[0].success.get(Finish::Stop).inc();
    exporter.shutdown().expect("the last export is accepted");
    let again = receiver.last_accepted().request();
    let before = number_points(success);
    let after = number_points(metric(&again, "otlp_test:request_success_total"));
    for ((a0, v0, s0), (a1, v1, s1)) in before.iter().zip(&after) {
        assert_eq!((a0, s0), (a1, s1), "same series, same start time");
        assert!(v1 >= v0);
    }
    assert_eq!(
        after[0].1 + after[1].1 + after[2].1 + after[3].1,
        before.iter().map(|p| p.1).sum::<f64>() + 1.0
    );
    assert!(matches!(exporter.force_flush(), Err(OtlpError::Stopped)));
}

#[test]
fn a_collector_answering_503_then_200_gets_every_count_and_the_queue_holds_one_snapshot() {
    let receiver = Receiver::start();
    let w = workload();
    receiver.shared.outage.store(true, Ordering::SeqCst);
    let exporter = exporter_config(&receiver, &w)
        .interval(Duration::from_millis(50))
        .start(Arc::clone(&w.registry))
        .expect("the exporter starts");

    // Record through the outage: 1.5 s of increments while every export is refused.
    let recorded = AtomicU64::new(0);
    let counter = w.engines[1].success.get(Finish::Length);
    let mut largest_queue = 0;
    let outage_end = Instant::now() + Duration::from_millis(1500);
    while Instant::now() < outage_end {
        counter.inc();
        recorded.fetch_add(1, Ordering::Relaxed);
        largest_queue = largest_queue.max(exporter.queued_bytes());
        std::thread::sleep(Duration::from_micros(200));
    }
    // The size of one request as the outage ends (the same resource, the exporter's own
    // failure counts included): a snapshot taken earlier is no larger, but for digits.
    let one_request = {
        let config = exporter_config(&receiver, &w);
        let mut encoder = metric_handles::otlp::OtlpEncoder::new(&config);
        let mut body = Vec::new();
        encoder
            .encode_into(&w.registry, &mut body)
            .expect("encodes");
        body.len()
    };
    let refused = receiver.received().len();
    assert!(
        refused >= 10,
        "the exporter kept trying: {refused} requests"
    );
    assert!(receiver.received().iter().all(|r| r.status == 503));
    // One snapshot at a time, however long the outage (about 30 exports refused): never more
    // than one request's size.
    assert!(
        largest_queue > 0 && largest_queue <= one_request + 32,
        "{largest_queue} vs {one_request}"
    );
    let own = Scrape::of(&w.registry);
    let unavailable = own
        .value(
            "metric_handles_otlp_export_failures_total",
            &[("reason", "unavailable")],
        )
        .expect("failures by reason");
    assert!(
        unavailable >= refused as f64 - 1.0,
        "{unavailable} of {refused}"
    );
    assert!(own.value("metric_handles_otlp_superseded_snapshots_total", &[]) > Some(0.0));
    assert_eq!(
        own.value("metric_handles_otlp_exports_total", &[]),
        Some(0.0)
    );

    // The collector comes back: the next export carries every increment.
    receiver.shared.outage.store(false, Ordering::SeqCst);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !receiver.received().iter().any(|r| r.status == 200) {
        assert!(
            Instant::now() < deadline,
            "no export got through after the outage"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let first = receiver.last_accepted().request();
    let got = number_points(metric(&first, "otlp_test:request_success_total"));
    let length_1 = got
        .iter()
        .find(|(a, _, _)| *a == pairs(&[("engine", "1"), ("finished_reason", "length")]))
        .expect("the series");
    assert_eq!(
        length_1.1,
        3.0 + recorded.load(Ordering::Relaxed) as f64,
        "the first accepted export holds every increment made during the outage"
    );
    assert_eq!(exporter.queued_bytes(), 0);
    drop(exporter);
}

#[test]
fn an_unreachable_collector_is_an_error_counted_by_reason_and_recording_goes_on() {
    // A port nothing listens on: bind one, then close it.
    let closed = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/v1/metrics", closed.local_addr().expect("addr"));
    drop(closed);
    let w = workload();
    let exporter = OtlpConfig::from_vars(|_| None)
        .endpoint(url)
        .timeout(Duration::from_millis(300))
        .interval(Duration::from_secs(3600))
        .with_metrics(&w.exporter_metrics)
        .start(Arc::clone(&w.registry))
        .expect("starts: the collector may come later");
    let started = Instant::now();
    let error = exporter.force_flush().expect_err("nothing listens");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        matches!(
            error,
            OtlpError::Export {
                reason: FailureReason::Unreachable,
                ..
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("cannot connect"), "{error}");
    w.engines[0].success.get(Finish::Stop).inc();
    assert_eq!(w.engines[0].success.get(Finish::Stop).get(), 11);
    let own = Scrape::of(&w.registry);
    assert!(
        own.value(
            "metric_handles_otlp_export_failures_total",
            &[("reason", "unreachable")]
        ) >= Some(1.0)
    );
}

#[test]
fn a_collector_that_refuses_the_payload_is_not_retried_and_https_is_refused_at_start() {
    let receiver = Receiver::start();
    receiver.shared.script.lock().expect("lock").push_back(400);
    let w = workload();
    let exporter = exporter_config(&receiver, &w)
        .start(Arc::clone(&w.registry))
        .expect("starts");
    let error = exporter.force_flush().expect_err("400");
    assert!(
        matches!(
            error,
            OtlpError::Export {
                reason: FailureReason::Rejected,
                ..
            }
        ),
        "{error}"
    );
    assert_eq!(receiver.received().len(), 1, "a 400 is not retried");
    exporter.force_flush().expect("the next export is accepted");
    // 429 with Retry-After: 0 is retried within the same flush.
    receiver.shared.script.lock().expect("lock").push_back(429);
    exporter.force_flush().expect("accepted after one retry");
    let statuses: Vec<u16> = receiver.received().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [400, 200, 429, 200]);
    let own = Scrape::of(&w.registry);
    assert_eq!(
        own.value(
            "metric_handles_otlp_export_failures_total",
            &[("reason", "rejected")]
        ),
        Some(1.0)
    );
    assert_eq!(
        own.value(
            "metric_handles_otlp_export_failures_total",
            &[("reason", "throttled")]
        ),
        Some(1.0)
    );

    let https = OtlpConfig::default().endpoint("https://collector:4318/v1/metrics");
    let error = https
        .start(Arc::new(Registry::default()))
        .expect_err("no TLS");
    assert!(matches!(error, OtlpError::Https(_)), "{error}");
    let bad_header = OtlpConfig::default().header("bad header", "x");
    assert!(matches!(
        bad_header.start(Arc::new(Registry::default())),
        Err(OtlpError::Header(_))
    ));
}

/// Reads an `ExportMetricsServiceRequest` on stdin with the `opentelemetry-proto` package and
/// prints one line per data point: `name kind attributes value-or-count`.
const PYTHON_DECODE: &str = r#"
import sys
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
request = metrics_service_pb2.ExportMetricsServiceRequest()
request.ParseFromString(sys.stdin.buffer.read())
for rm in request.resource_metrics:
    for sm in rm.scope_metrics:
        for m in sm.metrics:
            kind = m.WhichOneof("data")
            for p in getattr(m, kind).data_points:
                attrs = ",".join(sorted(f"{a.key}={a.value.string_value}" for a in p.attributes))
                if kind in ("sum", "gauge"):
                    v = p.as_double
                else:
                    v = float(p.count)
                print(f"{m.name} {kind} {attrs} {v!r}")
"#;

#[test]
fn pythons_opentelemetry_proto_reads_the_payload_as_the_rust_types_do() {
    if !available_or_skip(
        runs(
            "python3",
            &[
                "-c",
                "import opentelemetry.proto.collector.metrics.v1.metrics_service_pb2",
            ],
        ),
        "pythons_opentelemetry_proto_reads_the_payload_as_the_rust_types_do",
        "python3 with opentelemetry-proto",
        "PyPI packages opentelemetry-proto and protobuf>=5",
    ) {
        return;
    }
    let receiver = Receiver::start();
    let w = workload();
    let exporter = exporter_config(&receiver, &w)
        .start(Arc::clone(&w.registry))
        .expect("starts");
    exporter.force_flush().expect("accepted");
    let sent = receiver.last_accepted();
    let stdout = python(&[PYTHON_DECODE], &sent.body)
        .unwrap_or_else(|stderr| panic!("opentelemetry-proto rejected the payload: {stderr}"));
    let mut python: Vec<String> = stdout.lines().map(str::to_owned).collect();
    python.sort();
    let mut rust = Vec::new();
    for m in metrics(&sent.request()) {
        let line = |kind: &str, a: &[KeyValue], v: f64| {
            let a: Vec<String> = attrs(a)
                .into_iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            // Python's repr of a float: `3.0`, `0.5`, `1700000000.25`.
            let v = if v.fract() == 0.0 && v.abs() < 1e16 {
                format!("{v:.1}")
            } else {
                format!("{v:?}")
            };
            format!("{} {kind} {} {v}", m.name, a.join(","))
        };
        match m.data.as_ref().expect("data") {
            Data::Sum(s) => rust.extend(
                s.data_points
                    .iter()
                    .map(|p| line("sum", &p.attributes, value(p))),
            ),
            Data::Gauge(g) => rust.extend(
                g.data_points
                    .iter()
                    .map(|p| line("gauge", &p.attributes, value(p))),
            ),
            Data::Histogram(h) => rust.extend(
                h.data_points
                    .iter()
                    .map(|p| line("histogram", &p.attributes, p.count as f64)),
            ),
            Data::ExponentialHistogram(h) => rust.extend(
                h.data_points
                    .iter()
                    .map(|p| line("exponential_histogram", &p.attributes, p.count as f64)),
            ),
            Data::Summary(s) => rust.extend(
                s.data_points
                    .iter()
                    .map(|p| line("summary", &p.attributes, p.count as f64)),
            ),
        }
    }
    rust.sort();
    assert!(python.len() > 20, "{python:?}");
    assert_eq!(python, rust);
}
