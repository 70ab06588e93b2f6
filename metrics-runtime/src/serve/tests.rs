use std::fmt;
use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;

use super::*;
use crate::{Counter, NoLabels, Registry};

/// A collector whose encode can be held at a gate, counting the encodes that passed it.
#[derive(Debug, Default)]
struct Gate {
    armed: AtomicBool,
    open: Mutex<bool>,
    opened: Condvar,
    encodes: AtomicUsize,
    /// What the encode does once past the gate.
    mode: Mutex<GateMode>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq)]
enum GateMode {
    #[default]
    Write,
    Fail,
    Panic,
}

impl Gate {
    fn open(&self) {
        *lock(&self.open) = true;
        self.opened.notify_all();
    }

    fn close(&self) {
        *lock(&self.open) = false;
        self.armed.store(true, Ordering::SeqCst);
    }
}

use crate::sync::lock;

#[derive(Debug)]
struct GateCollector(Arc<Gate>);

impl Collector for GateCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), fmt::Error> {
        let gate = &self.0;
        if gate.armed.load(Ordering::SeqCst) {
            gate.encodes.fetch_add(1, Ordering::SeqCst);
            let mut open = lock(&gate.open);
            while !*open {
                open = gate.opened.wait(open).unwrap();
            }
            drop(open);
            match *lock(&gate.mode) {
                GateMode::Write => {}
                GateMode::Fail => return Err(fmt::Error),
                GateMode::Panic => panic!("the gate collector panicked"),
            }
        }
        let metric = encoder.encode_descriptor(
            "gate_passes",
            "Encodes past the gate",
            None,
            ConstCounter::new(1u64).metric_type(),
        )?;
        ConstCounter::new(1u64).encode(metric)
    }
}

struct Fixture {
    handler: MetricsHandler,
    gate: Arc<Gate>,
    requests: Counter,
    scrapes: ScrapeHandles,
}

fn fixture(options: HandlerOptions) -> Fixture {
    let mut registry = Registry::default();
    let requests = Counter::<u64>::default();
    registry.register("kv_requests", "Requests served", requests.clone());
    let gate = Arc::new(Gate::default());
    registry.register_collector(Box::new(GateCollector(gate.clone())));
    let metrics = ScrapeMetrics::register(&mut registry);
    let handler = MetricsHandler::with_options(Arc::new(registry), options).with_metrics(&metrics);
    gate.open();
    Fixture {
        handler,
        gate,
        requests,
        scrapes: metrics.resolve(&NoLabels),
    }
}

fn get(accept_encoding: Option<&str>) -> ScrapeRequest<'_> {
    ScrapeRequest {
        accept_encoding,
        ..ScrapeRequest::get()
    }
}

fn gunzip(body: &[u8]) -> String {
    let mut text = String::new();
    flate2::read::GzDecoder::new(body)
        .read_to_string(&mut text)
        .expect("a gzip body");
    text
}

#[test]
fn each_accept_encoding_case_is_answered_as_rfc_9110_says() {
    let f = fixture(HandlerOptions::default());
    f.requests.inc_by(7);
    for (accept_encoding, status, encoding) in [
        (Some("gzip"), 200, Some("gzip")),
        (Some("gzip;q=0"), 200, None),
        (Some("identity;q=0"), 406, None),
        (Some("*"), 200, Some("gzip")),
        (None, 200, None),
    ] {
        let response = f.handler.respond(&get(accept_encoding));
        let case = format!("Accept-Encoding: {accept_encoding:?}");
        assert_eq!(response.status, status, "{case}");
        assert_eq!(response.header("content-encoding"), encoding, "{case}");
        assert_eq!(response.header("vary"), Some(VARY), "{case}");
        assert_eq!(
            response.header("content-length"),
            Some(response.body().len().to_string().as_str()),
            "{case}"
        );
        let text = match (status, encoding) {
            (406, _) => {
                let reason = String::from_utf8_lossy(response.body()).into_owned();
                assert!(reason.contains("accepts none of the codings"), "{reason}");
                continue;
            }
            (_, Some(_)) => gunzip(response.body()),
            (_, None) => String::from_utf8(response.body().to_vec()).unwrap(),
        };
        assert!(text.contains("kv_requests_total 7\n"), "{case}: {text}");
    }
    assert_eq!(f.scrapes.requests.get(ScrapeStatus::Ok).get(), 4);
    assert_eq!(f.scrapes.requests.get(ScrapeStatus::NotAcceptable).get(), 1);
}

#[test]
fn the_negotiated_format_and_its_content_type_are_answered() {
    let f = fixture(HandlerOptions::default());
    let prometheus_3 = "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,\
                        application/openmetrics-text;version=0.0.1;q=0.5,\
                        text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,\
                        text/plain;version=0.0.4;q=0.3,*/*;q=0.2";
    let response = f.handler.respond(&ScrapeRequest {
        accept: Some(prometheus_3),
        accept_encoding: Some("gzip"),
        scrape_timeout: Some("10"),
        ..ScrapeRequest::get()
    });
    assert_eq!(
        response.header("content-type"),
        Some("application/openmetrics-text; version=1.0.0; charset=utf-8; escaping=allow-utf-8")
    );
    assert!(gunzip(response.body()).ends_with("# EOF\n"));
}

/// Prometheus 2.42 with `--enable-feature=native-histograms` (`scrapeAcceptHeaderWithProtobuf`
/// of its `scrape/scrape.go`).
#[cfg(feature = "protobuf")]
const PROMETHEUS_2_NATIVE_HISTOGRAMS: &str =
    "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,\
     application/openmetrics-text;version=1.0.0;q=0.8,\
     application/openmetrics-text;version=0.0.1;q=0.75,\
     text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

/// The families of a protobuf body, each a varint-delimited `MetricFamily`.
#[cfg(feature = "protobuf")]
fn decode_families(
    mut body: &[u8],
) -> Vec<prometheus_client::encoding::prometheus_protobuf::prometheus_data_model::MetricFamily> {
    use prometheus_client::encoding::prometheus_protobuf::prometheus_data_model::MetricFamily;
    use prost::Message;
    let mut families = Vec::new();
    while !body.is_empty() {
        families.push(MetricFamily::decode_length_delimited(&mut body).expect("a MetricFamily"));
    }
    families
}

#[cfg(feature = "protobuf")]
#[test]
fn protobuf_is_served_gzipped_or_not_with_client_golangs_content_type() {
    let f = fixture(HandlerOptions::default());
    f.requests.inc_by(5);
    for accept_encoding in [Some("gzip"), None] {
        let response = f.handler.respond(&ScrapeRequest {
            accept: Some(PROMETHEUS_2_NATIVE_HISTOGRAMS),
            accept_encoding,
            ..ScrapeRequest::get()
        });
        assert_eq!(response.status, 200);
        assert_eq!(
            response.header("content-type"),
            Some(
                "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; \
                 encoding=delimited"
            )
        );
        assert_eq!(response.header("content-encoding"), accept_encoding);
        let body = match accept_encoding {
            Some(_) => {
                let mut plain = Vec::new();
                flate2::read::GzDecoder::new(response.body())
                    .read_to_end(&mut plain)
                    .expect("a gzip body");
                plain
            }
            None => response.body().to_vec(),
        };
        let families = decode_families(&body);
        let requests = families
            .iter()
            .find(|family| family.name == "kv_requests_total")
            .expect("the counter's family");
        assert_eq!(
            requests.metric[0].counter.as_ref().map(|c| c.value),
            Some(5.0)
        );
    }
    // The text formats are still served to those who ask for them, from their own encode.
    let text = f.handler.respond(&get(None));
    assert!(String::from_utf8_lossy(text.body()).contains("kv_requests_total 5\n"));
}

#[test]
fn head_gets_the_headers_of_a_get_and_other_methods_405() {
    // Without its own families, whose counts would change between the two.
    let mut registry = Registry::default();
    registry.register("kv_requests", "Requests served", Counter::<u64>::default());
    let handler = MetricsHandler::new(Arc::new(registry));
    let get = handler.respond(&get(Some("gzip")));
    let head = handler.respond(&ScrapeRequest {
        method: "HEAD",
        accept_encoding: Some("gzip"),
        ..ScrapeRequest::get()
    });
    assert_eq!(head.status, 200);
    assert!(head.body().is_empty());
    for name in ["content-type", "content-encoding", "vary"] {
        assert_eq!(head.header(name), get.header(name), "{name}");
    }
    assert_eq!(
        head.header("content-length")
            .unwrap()
            .parse::<usize>()
            .unwrap(),
        get.body().len()
    );
    let post = handler.respond(&ScrapeRequest {
        method: "POST",
        ..ScrapeRequest::get()
    });
    assert_eq!(post.status, 405);
    assert_eq!(post.header("allow"), Some("GET, HEAD"));
}

/// Waits (at most 10 s) until `condition` holds.
fn eventually(what: &str, condition: impl Fn() -> bool) {
    let start = Instant::now();
    while !condition() {
        assert!(start.elapsed() < Duration::from_secs(10), "{what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_hundred_concurrent_scrapes_cost_one_encode() {
    let f = fixture(HandlerOptions::default());
    f.gate.close();
    let scrapes: Vec<_> = (0..100)
        .map(|_| {
            let handler = f.handler.clone();
            std::thread::spawn(move || handler.respond(&get(Some("gzip"))))
        })
        .collect();
    eventually("100 scrapes in flight", || f.scrapes.in_flight.get() == 100);
    f.gate.open();
    let bodies: Vec<String> = scrapes
        .into_iter()
        .map(|scrape| {
            let response = scrape.join().unwrap();
            assert_eq!(response.status, 200);
            gunzip(response.body())
        })
        .collect();
    assert_eq!(f.gate.encodes.load(Ordering::SeqCst), 1);
    assert!(bodies.iter().all(|body| *body == bodies[0]));
    // A scrape after the encode finished gets a fresh one.
    f.handler.respond(&get(Some("gzip")));
    assert_eq!(f.gate.encodes.load(Ordering::SeqCst), 2);
    // Another coding is another encode.
    f.handler.respond(&get(None));
    assert_eq!(f.gate.encodes.load(Ordering::SeqCst), 3);
    assert_eq!(f.scrapes.in_flight.get(), 0);
}

#[test]
fn a_scrape_over_its_timeout_is_503_and_nothing_is_lost() {
    let f = fixture(HandlerOptions {
        timeout_offset: Duration::ZERO,
        ..HandlerOptions::default()
    });
    f.requests.inc_by(5);
    f.gate.close();
    let patient = {
        let handler = f.handler.clone();
        std::thread::spawn(move || handler.respond(&get(None)))
    };
    eventually("the first scrape in flight", || {
        f.scrapes.in_flight.get() == 1
    });
    let hurried = f.handler.respond(&ScrapeRequest {
        scrape_timeout: Some("0.05"),
        ..ScrapeRequest::get()
    });
    assert_eq!(hurried.status, 503);
    assert!(String::from_utf8_lossy(hurried.body()).contains("within 0.050 s"));
    f.requests.inc_by(2);
    f.gate.open();
    // The scrape that waited is answered by the same encode, the next one sees every count.
    assert_eq!(patient.join().unwrap().status, 200);
    let next = f.handler.respond(&get(None));
    let text = String::from_utf8(next.body().to_vec()).unwrap();
    assert!(text.contains("kv_requests_total 7\n"), "{text}");
    assert_eq!(
        f.scrapes
            .requests
            .get(ScrapeStatus::ServiceUnavailable)
            .get(),
        1
    );
}

#[test]
fn scrapes_past_the_in_flight_limit_are_503_at_once() {
    let f = fixture(HandlerOptions {
        max_in_flight: Some(1),
        ..HandlerOptions::default()
    });
    f.gate.close();
    let first = {
        let handler = f.handler.clone();
        std::thread::spawn(move || handler.respond(&get(None)))
    };
    eventually("the first scrape in flight", || {
        f.scrapes.in_flight.get() == 1
    });
    let second = f.handler.respond(&get(None));
    assert_eq!(second.status, 503);
    assert!(
        String::from_utf8_lossy(second.body()).contains("limit of concurrent scrapes reached (1)")
    );
    f.gate.open();
    assert_eq!(first.join().unwrap().status, 200);
    assert_eq!(f.handler.respond(&get(None)).status, 200);
}

#[test]
fn an_encode_error_or_panic_is_500_with_the_reason() {
    for (mode, cause, reason) in [
        (
            GateMode::Fail,
            ScrapeErrorCause::Encoding,
            "returned an error",
        ),
        (
            GateMode::Panic,
            ScrapeErrorCause::Panic,
            "the gate collector panicked",
        ),
    ] {
        let f = fixture(HandlerOptions::default());
        *lock(&f.gate.mode) = mode;
        f.gate.armed.store(true, Ordering::SeqCst);
        let response = f.handler.respond(&get(Some("gzip")));
        assert_eq!(response.status, 500, "{mode:?}");
        assert_eq!(response.header("content-encoding"), None);
        let body = String::from_utf8_lossy(response.body()).into_owned();
        assert!(body.contains(reason), "{mode:?}: {body}");
        assert_eq!(f.scrapes.errors.get(cause).get(), 1);
        assert_eq!(
            f.scrapes
                .requests
                .get(ScrapeStatus::InternalServerError)
                .get(),
            1
        );
    }
}

#[test]
fn the_handler_exports_its_own_families() {
    let f = fixture(HandlerOptions::default());
    f.handler.respond(&get(None));
    let text = String::from_utf8(f.handler.respond(&get(None)).body().to_vec()).unwrap();
    for line in [
        "# TYPE metric_handles_metric_handler_requests_total counter",
        r#"metric_handles_metric_handler_requests_total{code="200"} 1"#,
        r#"metric_handles_metric_handler_requests_total{code="503"} 0"#,
        "metric_handles_metric_handler_requests_in_flight 1",
        r#"metric_handles_metric_handler_errors_total{cause="encoding"} 0"#,
    ] {
        assert!(text.lines().any(|l| l == line), "{line} in\n{text}");
    }
}

#[test]
fn timeouts_take_the_header_less_the_offset_within_the_limit() {
    let handler = |timeout| {
        MetricsHandler::with_options(
            Arc::new(Registry::default()),
            HandlerOptions {
                timeout,
                ..HandlerOptions::default()
            },
        )
    };
    let unlimited = handler(None);
    assert_eq!(unlimited.timeout(None), None);
    assert_eq!(
        unlimited.timeout(Some("10")),
        Some(Duration::from_millis(9750))
    );
    // Never below half the header's value.
    assert_eq!(
        unlimited.timeout(Some("0.3")),
        Some(Duration::from_millis(150))
    );
    for bad in ["", "abc", "-1", "0", "NaN", "inf"] {
        assert_eq!(unlimited.timeout(Some(bad)), None, "{bad:?}");
    }
    let limited = handler(Some(Duration::from_secs(2)));
    assert_eq!(limited.timeout(Some("10")), Some(Duration::from_secs(2)));
    assert_eq!(limited.timeout(None), Some(Duration::from_secs(2)));
}

/// A collector that sleeps at every scrape, as one waiting on a file or a socket does (it uses
/// no CPU meanwhile), counting its calls (the encode at registration, which reads its names,
/// is neither slept nor counted).
#[derive(Debug)]
struct Sleepy {
    sleep: Duration,
    registered: Arc<AtomicBool>,
    calls: Arc<AtomicUsize>,
}

impl Collector for Sleepy {
    fn encode(&self, _: DescriptorEncoder) -> Result<(), fmt::Error> {
        if self.registered.load(Ordering::SeqCst) {
            self.calls.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(self.sleep);
        }
        Ok(())
    }
}

/// The `Accept` and `Accept-Encoding` of scrapes that each need an encode of their own.
const DIFFERENT_ENCODES: [(Option<&str>, Option<&str>); 6] = [
    (None, None),
    (None, Some("gzip")),
    (Some("application/openmetrics-text;version=1.0.0"), None),
    (
        Some("application/openmetrics-text;version=1.0.0"),
        Some("gzip"),
    ),
    (Some("text/plain;version=1.0.0"), None),
    (Some("text/plain;version=1.0.0"), Some("gzip")),
];

#[test]
fn concurrent_scrapes_of_different_formats_do_not_wait_on_each_other() {
    // As many formats at once as the default pool has threads (the cores, here at most 6):
    // each encode sleeps 500 ms in its collector, each scrape waits at most 900 ms. Run one
    // after another, the second would end at 1 s and get 503; at once, all end near 500 ms.
    let formats = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(DIFFERENT_ENCODES.len());
    let (registered, calls) = (Arc::new(AtomicBool::new(false)), Arc::default());
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Sleepy {
        sleep: Duration::from_millis(500),
        registered: registered.clone(),
        calls: Arc::clone(&calls),
    }));
    registered.store(true, Ordering::SeqCst);
    let handler = MetricsHandler::with_options(
        Arc::new(registry),
        HandlerOptions {
            timeout: Some(Duration::from_millis(900)),
            ..HandlerOptions::default()
        },
    );
    let started = Instant::now();
    let scrapes: Vec<_> = DIFFERENT_ENCODES[..formats]
        .iter()
        .map(|&(accept, accept_encoding)| {
            let handler = handler.clone();
            std::thread::spawn(move || {
                handler
                    .respond(&ScrapeRequest {
                        accept,
                        accept_encoding,
                        ..ScrapeRequest::get()
                    })
                    .status
            })
        })
        .collect();
    let statuses: Vec<u16> = scrapes.into_iter().map(|s| s.join().unwrap()).collect();
    assert_eq!(statuses, vec![200; formats], "{formats} formats at once");
    assert_eq!(calls.load(Ordering::SeqCst), formats);
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_queued_encode_whose_scrapes_all_timed_out_is_not_run() {
    let f = fixture(HandlerOptions {
        encode_threads: 1,
        timeout_offset: Duration::ZERO,
        ..HandlerOptions::default()
    });
    f.gate.close();
    let request = |accept, accept_encoding, scrape_timeout| ScrapeRequest {
        accept,
        accept_encoding,
        scrape_timeout: Some(scrape_timeout),
        ..ScrapeRequest::get()
    };
    // The one encode thread is held by an encode of text.
    let held = {
        let handler = f.handler.clone();
        std::thread::spawn(move || handler.respond(&request(None, None, "10")).status)
    };
    eventually("the first encode at the gate", || {
        f.gate.encodes.load(Ordering::SeqCst) == 1
    });
    // A gzip scrape queues its encode behind it and gives up.
    let hurried = f.handler.respond(&request(None, Some("gzip"), "0.05"));
    assert_eq!(hurried.status, 503);
    f.gate.open();
    assert_eq!(held.join().unwrap(), 200);
    // An encode queued after the abandoned one runs after it (one thread, in order): by its
    // answer, the abandoned one was run or skipped.
    let openmetrics = Some("application/openmetrics-text;version=1.0.0");
    let after = f.handler.respond(&request(openmetrics, None, "10"));
    assert_eq!(after.status, 200);
    assert_eq!(
        f.gate.encodes.load(Ordering::SeqCst),
        2,
        "the abandoned encode ran"
    );
    // The gzip format is encoded again for the next scrape that asks for it.
    assert_eq!(
        f.handler.respond(&request(None, Some("gzip"), "10")).status,
        200
    );
    assert_eq!(f.gate.encodes.load(Ordering::SeqCst), 3);
}

/// The same handler as a tower service, on a multi-threaded tokio runtime.
#[cfg(feature = "http-layer")]
mod service {
    use axum::body::Body;
    use http::Request;
    use tower::ServiceExt;

    use super::*;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_time()
            .build()
            .unwrap()
    }

    fn request(method: &str, headers: &[(&str, &str)]) -> Request<Body> {
        let mut builder = Request::builder().method(method).uri("/metrics");
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(Body::empty()).unwrap()
    }

    async fn body(response: http::Response<Body>) -> Vec<u8> {
        axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap()
            .to_vec()
    }

    #[test]
    fn the_service_answers_as_the_function_does() {
        let f = fixture(HandlerOptions::default());
        f.requests.inc_by(3);
        runtime().block_on(async {
            let app: axum::Router =
                axum::Router::new().route_service("/metrics", f.handler.service());
            let response = app
                .clone()
                .oneshot(request(
                    "GET",
                    &[
                        ("accept", "text/plain;version=1.0.0"),
                        ("accept-encoding", "gzip"),
                    ],
                ))
                .await
                .unwrap();
            assert_eq!(response.status(), 200);
            let headers = response.headers().clone();
            assert_eq!(headers["content-encoding"], "gzip");
            assert_eq!(headers["vary"], VARY);
            assert_eq!(
                headers["content-type"],
                "text/plain; version=1.0.0; charset=utf-8; escaping=underscores"
            );
            let text = gunzip(&body(response).await);
            assert!(text.contains("kv_requests_total 3\n"), "{text}");
            let refused = app
                .oneshot(request("GET", &[("accept-encoding", "identity;q=0")]))
                .await
                .unwrap();
            assert_eq!(refused.status(), 406);
        });
    }

    #[cfg(feature = "protobuf")]
    #[test]
    fn the_service_serves_protobuf_to_prometheus_with_native_histograms() {
        let f = fixture(HandlerOptions::default());
        f.requests.inc_by(2);
        runtime().block_on(async {
            let app: axum::Router =
                axum::Router::new().route_service("/metrics", f.handler.service());
            let response = app
                .oneshot(request(
                    "GET",
                    &[("accept", PROMETHEUS_2_NATIVE_HISTOGRAMS)],
                ))
                .await
                .unwrap();
            assert_eq!(response.status(), 200);
            assert_eq!(
                response.headers()["content-type"],
                "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; \
                 encoding=delimited"
            );
            let families = decode_families(&body(response).await);
            assert!(families
                .iter()
                .any(|family| family.name == "kv_requests_total"
                    && family.metric[0].counter.as_ref().map(|c| c.value) == Some(2.0)));
        });
    }

    #[test]
    fn the_handler_itself_is_the_routes_service() {
        let f = fixture(HandlerOptions::default());
        f.requests.inc_by(4);
        runtime().block_on(async {
            let app: axum::Router =
                axum::Router::new().route_service("/metrics", f.handler.clone());
            let response = app
                .oneshot(request("GET", &[("accept-encoding", "gzip")]))
                .await
                .unwrap();
            assert_eq!(response.status(), 200);
            assert_eq!(response.headers()["content-encoding"], "gzip");
            let text = gunzip(&body(response).await);
            assert!(text.contains("kv_requests_total 4\n"), "{text}");
        });
        assert_eq!(f.scrapes.requests.get(ScrapeStatus::Ok).get(), 1);
    }

    #[test]
    fn a_queued_encode_whose_async_scrapes_all_went_away_is_not_run() {
        let f = fixture(HandlerOptions {
            encode_threads: 1,
            timeout_offset: Duration::ZERO,
            ..HandlerOptions::default()
        });
        f.gate.close();
        let runtime = runtime();
        let held = runtime.spawn(f.handler.service().oneshot(request("GET", &[])));
        eventually("the first encode at the gate", || {
            f.gate.encodes.load(Ordering::SeqCst) == 1
        });
        // One gzip scrape times out; another is dropped (its client went away).
        let gzip = || {
            request(
                "GET",
                &[("accept-encoding", "gzip"), (SCRAPE_TIMEOUT_HEADER, "0.05")],
            )
        };
        let dropped = runtime.spawn(
            f.handler
                .service()
                .oneshot(request("GET", &[("accept-encoding", "gzip")])),
        );
        eventually("both gzip-less and dropped scrapes in flight", || {
            f.scrapes.in_flight.get() == 2
        });
        let hurried = runtime.block_on(f.handler.service().oneshot(gzip()));
        assert_eq!(hurried.unwrap().status(), 503);
        dropped.abort();
        assert!(runtime.block_on(dropped).unwrap_err().is_cancelled());
        f.gate.open();
        assert_eq!(runtime.block_on(held).unwrap().unwrap().status(), 200);
        let openmetrics = request(
            "GET",
            &[("accept", "application/openmetrics-text;version=1.0.0")],
        );
        let after = runtime.block_on(f.handler.service().oneshot(openmetrics));
        assert_eq!(after.unwrap().status(), 200);
        assert_eq!(
            f.gate.encodes.load(Ordering::SeqCst),
            2,
            "the abandoned encode ran"
        );
    }

    #[test]
    fn concurrent_async_scrapes_share_one_encode_and_a_late_one_times_out_alone() {
        let f = fixture(HandlerOptions {
            timeout_offset: Duration::ZERO,
            ..HandlerOptions::default()
        });
        f.gate.close();
        let runtime = runtime();
        let scrapes: Vec<_> = (0..100)
            .map(|_| {
                let service = f.handler.service();
                runtime.spawn(async move {
                    let response = service
                        .oneshot(request("GET", &[("accept-encoding", "gzip")]))
                        .await
                        .unwrap();
                    (response.status(), body(response).await)
                })
            })
            .collect();
        eventually("100 scrapes in flight", || f.scrapes.in_flight.get() == 100);
        // Two worker threads, both free: waiting scrapes hold none of them.
        let hurried = runtime.block_on(f.handler.service().oneshot(request(
            "GET",
            &[("accept-encoding", "gzip"), (SCRAPE_TIMEOUT_HEADER, "0.05")],
        )));
        assert_eq!(hurried.unwrap().status(), 503);
        f.gate.open();
        let bodies: Vec<_> = scrapes
            .into_iter()
            .map(|scrape| runtime.block_on(scrape).unwrap())
            .collect();
        assert!(bodies.iter().all(|(status, _)| *status == 200));
        assert!(bodies.iter().all(|(_, body)| *body == bodies[0].1));
        assert_eq!(f.gate.encodes.load(Ordering::SeqCst), 1);
        assert_eq!(f.scrapes.in_flight.get(), 0);
    }
}
