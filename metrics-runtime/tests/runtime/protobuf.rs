//! The Prometheus protobuf exposition (feature `protobuf`): negotiated only from the exact media
//! range Prometheus sends, and, for a registry holding every member kind of this crate beside
//! foreign prometheus-client metrics, decoded messages equal to what prometheus-client's own
//! protobuf encoder writes for the equivalent prometheus-client metrics.

use std::sync::atomic::AtomicU64;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use metric_handles::exposition::Negotiated;
use metric_handles::histogram::NativeConfig;
use metric_handles::prometheus_client::encoding::prometheus_protobuf::{
    self,
    prometheus_data_model::{Histogram as PbHistogram, LabelPair, MetricFamily},
};
use metric_handles::prometheus_client::metrics::counter::Counter as PcCounter;
use metric_handles::prometheus_client::metrics::family::Family as PcFamily;
use metric_handles::prometheus_client::metrics::gauge::Gauge as PcGauge;
use metric_handles::prometheus_client::metrics::histogram::Histogram as PcHistogram;
use metric_handles::prometheus_client::metrics::info::Info;
use metric_handles::prometheus_client::registry::{Registry as PcRegistry, Unit};
use metric_handles::{
    ByLabel, Counter, Dynamic, ExpositionFormat, Family, Gauge, Histogram, LabelEnum, LabelSet,
    MetricHandles, NoLabels, RegisterOptions, Registry,
};
use prost::Message;

const PROTOBUF: &str =
    "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited";

#[test]
fn only_the_metric_family_delimited_range_selects_protobuf() {
    let cases: &[(String, ExpositionFormat)] = &[
        (PROTOBUF.to_owned(), ExpositionFormat::PrometheusProtobuf),
        // Parameter names and the media type are case-insensitive, spaces are allowed.
        (
            "Application/Vnd.Google.Protobuf ; Proto=io.prometheus.client.MetricFamily ; Encoding=delimited".to_owned(),
            ExpositionFormat::PrometheusProtobuf,
        ),
        // Another message type, another encoding, or a missing parameter: not ours.
        (
            "application/vnd.google.protobuf;proto=io.prometheus.client.Metric;encoding=delimited"
                .to_owned(),
            ExpositionFormat::PrometheusText,
        ),
        (
            "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text"
                .to_owned(),
            ExpositionFormat::PrometheusText,
        ),
        (
            "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=compact-text"
                .to_owned(),
            ExpositionFormat::PrometheusText,
        ),
        (
            "application/vnd.google.protobuf;encoding=delimited".to_owned(),
            ExpositionFormat::PrometheusText,
        ),
        (
            "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily".to_owned(),
            ExpositionFormat::PrometheusText,
        ),
        (
            "application/vnd.google.protobuf".to_owned(),
            ExpositionFormat::PrometheusText,
        ),
        // The next preference is served when the protobuf range is not ours.
        (
            "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text;q=0.9,\
             application/openmetrics-text;q=0.5"
                .to_owned(),
            ExpositionFormat::OpenMetrics,
        ),
        // Weights decide, as for the text formats; a tie goes to the text format.
        (
            format!("{PROTOBUF};q=0.4,application/openmetrics-text;q=0.5"),
            ExpositionFormat::OpenMetrics,
        ),
        (
            format!("{PROTOBUF};q=0.5,application/openmetrics-text;q=0.5"),
            ExpositionFormat::OpenMetrics,
        ),
        (
            format!("{PROTOBUF};q=0,*/*"),
            ExpositionFormat::PrometheusText,
        ),
        // A wildcard never selects the binary format.
        (
            "application/*;q=0.9,text/plain;q=0.1".to_owned(),
            ExpositionFormat::OpenMetrics,
        ),
        ("*/*".to_owned(), ExpositionFormat::PrometheusText),
    ];
    for (accept, expected) in cases {
        assert_eq!(
            ExpositionFormat::negotiate(Some(accept)),
            *expected,
            "Accept: {accept}"
        );
    }
}

#[test]
fn protobuf_is_binary_and_encode_refuses_it() {
    let registry = Registry::default();
    assert!(!ExpositionFormat::PrometheusProtobuf.is_text());
    assert!(ExpositionFormat::OpenMetrics.is_text());
    assert!(ExpositionFormat::PrometheusProtobuf
        .encode(&registry)
        .is_err());
    let mut body = Vec::new();
    ExpositionFormat::PrometheusProtobuf
        .encode_into(&registry, &mut body)
        .unwrap();
    assert!(body.is_empty());
    assert_eq!(
        Negotiated::from_accept(Some(PROTOBUF)).content_type(),
        "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"
    );
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Engine {
    pub engine: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Client {
    pub client: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
pub enum Reason {
    #[label(rename = "stop")]
    Stop,
    #[label(rename = "length")]
    Length,
}

#[derive(Debug, MetricHandles)]
#[metric_handles(labels = Engine)]
pub struct Serving {
    /// Requests served
    #[metric(name = "pb:requests", max_label_sets = 2)]
    pub requests: Family<Engine, Counter>,
    /// Seconds spent
    #[metric(name = "pb:busy", unit = "seconds")]
    pub busy: Family<Engine, Counter<f64, AtomicU64>>,
    /// Requests running
    #[metric(name = "pb:running")]
    pub running: Family<Engine, Gauge>,
    /// Request latency
    #[metric(name = "pb:latency", unit = "seconds", buckets = [0.1, 1.0, 10.0])]
    pub latency: Family<Engine, Histogram>,
    /// Finished requests by reason
    #[metric(name = "pb:finished", label = "reason")]
    pub finished: Family<Engine, ByLabel<Reason, Counter>>,
    /// Requests by client
    #[metric(name = "pb:by_client", max_series = 2)]
    pub by_client: Family<Engine, Dynamic<Client, Counter>>,
}

/// The observations of one engine: (engine, requests, busy seconds, running, latencies,
/// finished by stop, by length, clients).
type Load = (
    &'static str,
    u64,
    f64,
    i64,
    &'static [f64],
    u64,
    u64,
    &'static [&'static str],
);

const LOADS: &[Load] = &[
    (
        "e0",
        3,
        1.5,
        2,
        &[0.05, 0.5, 5.0, 50.0],
        2,
        1,
        &["a", "b", "c"],
    ),
    ("e1", 1, 0.25, -1, &[0.1, 1.0], 0, 1, &["a"]),
    // Past `max_label_sets = 2` on `pb:requests`: this engine's requests go to its overflow.
    ("e2", 4, 0.0, 0, &[], 0, 0, &[]),
];

/// Our families, registered in a const-labelled, prefixed sub-registry, with a foreign
/// prometheus-client counter and info metric at the root.
fn ours() -> Registry {
    let mut registry = Registry::default();
    let foreign = PcCounter::<u64>::default();
    foreign.inc_by(7);
    registry.register(
        "foreign_events",
        "Events counted by another library",
        foreign,
    );
    registry.register(
        "build",
        "Build information",
        Info::new(vec![("version".to_owned(), "1.2.3".to_owned())]),
    );
    let sub = registry
        .sub_registry_with_prefix("svc")
        .sub_registry_with_label(("zone".into(), "west\r1".into()));
    let serving = Serving::register(sub);
    for (engine, requests, busy, running, latencies, stop, length, clients) in LOADS {
        let labels = Engine {
            engine: (*engine).to_owned(),
        };
        let h = serving.resolve(&labels);
        serving.requests.get_or_create(&labels).inc_by(*requests);
        h.busy.inc_by(*busy);
        h.running.set(*running);
        for latency in *latencies {
            h.latency.observe(*latency);
        }
        h.finished.get(Reason::Stop).inc_by(*stop);
        h.finished.get(Reason::Length).inc_by(*length);
        for client in *clients {
            h.by_client
                .get_or_create(&Client {
                    client: (*client).to_owned(),
                })
                .inc();
        }
    }
    registry
}

type Labels = Vec<(String, String)>;

fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// The same series, as prometheus-client's own metrics would hold them (overflow series
/// included, labelled as this crate labels them; control characters as the text formats write
/// them).
fn theirs() -> PcRegistry {
    let mut registry = PcRegistry::default();
    let foreign = PcCounter::<u64>::default();
    foreign.inc_by(7);
    registry.register(
        "foreign_events",
        "Events counted by another library",
        foreign,
    );
    registry.register(
        "build",
        "Build information",
        Info::new(vec![("version".to_owned(), "1.2.3".to_owned())]),
    );
    let sub = registry
        .sub_registry_with_prefix("svc")
        .sub_registry_with_label(("zone".into(), "west\u{240d}1".into()));
    let requests = PcFamily::<Labels, PcCounter>::default();
    let busy = PcFamily::<Labels, PcCounter<f64, AtomicU64>>::default();
    let running = PcFamily::<Labels, PcGauge>::default();
    let latency = PcFamily::<Labels, PcHistogram>::new_with_constructor(|| {
        PcHistogram::new([0.1, 1.0, 10.0])
    });
    let finished = PcFamily::<Labels, PcCounter>::default();
    let by_client = PcFamily::<Labels, PcCounter>::default();
    sub.register("pb:requests", "Requests served", requests.clone());
    sub.register_with_unit("pb:busy", "Seconds spent", Unit::Seconds, busy.clone());
    sub.register("pb:running", "Requests running", running.clone());
    sub.register_with_unit(
        "pb:latency",
        "Request latency",
        Unit::Seconds,
        latency.clone(),
    );
    sub.register(
        "pb:finished",
        "Finished requests by reason",
        finished.clone(),
    );
    sub.register("pb:by_client", "Requests by client", by_client.clone());
    for (i, (engine, n, secs, level, latencies, stop, length, clients)) in LOADS.iter().enumerate()
    {
        let engine_labels = labels(&[("engine", engine)]);
        let requests_labels = if i < 2 {
            engine_labels.clone()
        } else {
            labels(&[("otel_metric_overflow", "true")])
        };
        requests.get_or_create(&requests_labels).inc_by(*n);
        busy.get_or_create(&engine_labels).inc_by(*secs);
        running.get_or_create(&engine_labels).set(*level);
        let histogram = latency.get_or_create(&engine_labels);
        for latency in *latencies {
            histogram.observe(*latency);
        }
        for (reason, count) in [("stop", stop), ("length", length)] {
            finished
                .get_or_create(&labels(&[("engine", engine), ("reason", reason)]))
                .inc_by(*count);
        }
        for (j, client) in clients.iter().enumerate() {
            let client_labels = if j < 2 {
                labels(&[("engine", engine), ("client", client)])
            } else {
                labels(&[("engine", engine), ("otel_metric_overflow", "true")])
            };
            by_client.get_or_create(&client_labels).inc();
        }
    }
    registry
}

pub(crate) fn decode_all(mut body: &[u8]) -> Vec<MetricFamily> {
    let mut families = Vec::new();
    while !body.is_empty() {
        families.push(
            MetricFamily::decode_length_delimited(&mut body).expect("a delimited MetricFamily"),
        );
    }
    families
}

/// prometheus-client's families keep their series in a hash map: compare series in label order.
fn sorted(mut families: Vec<MetricFamily>) -> Vec<MetricFamily> {
    for family in &mut families {
        family
            .metric
            .sort_by_key(|metric| format!("{:?}", metric.label));
    }
    families
}

/// Checks that every counter and histogram series of this crate's families (those under the
/// `svc` prefix) carries a start timestamp within `[before, after]`, that no other does, and
/// clears them: prometheus-client's encoder writes none.
fn take_start_timestamps(families: &mut [MetricFamily], before: SystemTime, after: SystemTime) {
    let seconds = |time: SystemTime| time.duration_since(UNIX_EPOCH).unwrap().as_secs_f64();
    let (before, after) = (seconds(before), seconds(after));
    let mut taken = 0;
    for family in families {
        let ours = family.name.starts_with("svc");
        for metric in &mut family.metric {
            let start = match (&mut metric.counter, &mut metric.histogram) {
                (Some(counter), _) => counter.start_timestamp.take(),
                (_, Some(histogram)) => histogram.start_timestamp.take(),
                _ => None,
            };
            let expected = ours && metric.gauge.is_none();
            assert_eq!(start.is_some(), expected, "{}: {metric:?}", family.name);
            if let Some(start) = start {
                let at = start.seconds as f64 + f64::from(start.nanos) / 1e9;
                assert!(
                    (before..=after).contains(&at),
                    "{}: created at {at}, not within [{before}, {after}]",
                    family.name
                );
                taken += 1;
            }
        }
    }
    // 3 request counters, 3 busy counters, 3 histograms, 6 reason counters, 4 client counters.
    assert_eq!(taken, 19);
}

#[test]
fn every_member_kind_decodes_to_what_prometheus_client_writes_for_the_same_series() {
    // Whole seconds: a timestamp's float of seconds may round below a time just taken.
    let before = UNIX_EPOCH
        + Duration::from_secs(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_secs(),
        );
    let registry = ours();
    let mut body = Vec::new();
    ExpositionFormat::PrometheusProtobuf
        .encode_into(&registry, &mut body)
        .unwrap();
    let after = SystemTime::now() + Duration::from_secs(1);
    let mut ours = sorted(decode_all(&body));
    take_start_timestamps(&mut ours, before, after);
    let theirs = sorted(prometheus_protobuf::encode(&theirs()).unwrap());
    let names = |families: &[MetricFamily]| -> Vec<String> {
        families.iter().map(|f| f.name.clone()).collect()
    };
    assert_eq!(
        names(&ours),
        [
            "foreign_events_total",
            "build_info",
            "svc_pb:requests_total",
            "svc_pb:busy_seconds_total",
            "svc_pb:running",
            "svc_pb:latency_seconds",
            "svc_pb:finished_total",
            "svc_pb:by_client_total",
        ]
    );
    assert_eq!(names(&ours), names(&theirs));
    for (ours, theirs) in ours.iter().zip(&theirs) {
        assert_eq!(ours, theirs, "family {}", ours.name);
    }
    // Spot checks against the data itself, not only against prometheus-client.
    let latency = &ours[5];
    assert_eq!(latency.unit, "seconds");
    let e0 = latency.metric[0].histogram.as_ref().unwrap();
    assert_eq!(
        (e0.sample_count, e0.sample_sum),
        (4, 0.05 + 0.5 + 5.0 + 50.0)
    );
    let cumulative: Vec<(f64, u64)> = e0
        .bucket
        .iter()
        .map(|b| (b.upper_bound, b.cumulative_count))
        .collect();
    assert_eq!(
        cumulative,
        [(0.1, 1), (1.0, 2), (10.0, 3), (f64::INFINITY, 4)]
    );
    assert_eq!(
        latency.metric[0].label[..2],
        [pair("zone", "west\u{240d}1"), pair("engine", "e0"),]
    );
}

fn pair(name: &str, value: &str) -> LabelPair {
    LabelPair {
        name: name.to_owned(),
        value: value.to_owned(),
    }
}

#[test]
fn protobuf_carries_the_values_the_text_formats_write() {
    let registry = ours();
    let text = ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    let mut body = Vec::new();
    ExpositionFormat::PrometheusProtobuf
        .encode_into(&registry, &mut body)
        .unwrap();
    let families = decode_all(&body);
    // Each counter and gauge sample of the protobuf appears, with its labels, in the text.
    let mut checked = 0;
    for family in &families {
        for metric in &family.metric {
            let value = match (&metric.counter, &metric.gauge) {
                (Some(counter), _) => counter.value,
                (_, Some(gauge)) => gauge.value,
                _ => continue,
            };
            let labels: Vec<String> = metric
                .label
                .iter()
                .map(|l| format!("{}=\"{}\"", l.name, l.value))
                .collect();
            let line = if labels.is_empty() {
                format!("{} {value}\n", family.name)
            } else {
                format!("{}{{{}}} {value}\n", family.name, labels.join(","))
            };
            let line = line.replace(".0\n", "\n");
            let alt = line.replace('\n', ".0\n");
            assert!(
                text.contains(&line) || text.contains(&alt),
                "{line:?} not in\n{text}"
            );
            checked += 1;
        }
    }
    assert!(checked > 15, "{checked} samples checked");
}

#[test]
fn exemplars_recorded_through_handles_reach_their_protobuf_fields() {
    let mut registry = Registry::default();
    let serving = Serving::register(&mut registry);
    let labels = Engine {
        engine: "e0".to_owned(),
    };
    let h = serving.resolve(&labels);
    serving
        .requests
        .get_or_create(&labels)
        .inc_by_with_exemplar(2, &[("trace_id", "abc")])
        .unwrap();
    h.latency
        .observe_with_exemplar(0.5, &[("trace_id", "def")])
        .unwrap();
    h.finished
        .get(Reason::Stop)
        .inc_with_exemplar(&[("trace_id", "ghi")])
        .unwrap();
    let mut body = Vec::new();
    ExpositionFormat::PrometheusProtobuf
        .encode_into(&registry, &mut body)
        .unwrap();
    let families = decode_all(&body);
    let family = |name: &str| {
        families
            .iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    let requests = family("pb:requests_total").metric[0]
        .counter
        .clone()
        .unwrap();
    let exemplar = requests.exemplar.expect("the counter's exemplar");
    assert_eq!(
        (exemplar.label, exemplar.value),
        (vec![pair("trace_id", "abc")], 2.0)
    );
    assert!(exemplar.timestamp.is_some());
    let latency = family("pb:latency_seconds").metric[0]
        .histogram
        .clone()
        .unwrap();
    let exemplars: Vec<(f64, Vec<LabelPair>)> = latency
        .bucket
        .iter()
        .filter_map(|b| Some((b.upper_bound, b.exemplar.clone()?.label)))
        .collect();
    assert_eq!(exemplars, [(1.0, vec![pair("trace_id", "def")])]);
    let finished = &family("pb:finished_total").metric;
    let with_exemplar: Vec<Option<f64>> = finished
        .iter()
        .map(|m| Some(m.counter.as_ref()?.exemplar.as_ref()?.value))
        .collect();
    assert_eq!(with_exemplar, [Some(1.0), None]);
}

#[derive(Debug, MetricHandles)]
pub struct NativeLatency {
    /// Latency, native buckets beside two classic ones (configured per case)
    #[metric(name = "nt:latency", buckets = [0.1, 1.0])]
    pub latency: Family<NoLabels, Histogram>,
}

/// The histogram message of the only family our protobuf writer writes for `registry`, and
/// the one prometheus-client's encoder writes for the same `histogram`.
fn native_messages(registry: &Registry, histogram: &Histogram) -> (PbHistogram, PbHistogram) {
    let mut body = Vec::new();
    ExpositionFormat::PrometheusProtobuf
        .encode_into(registry, &mut body)
        .unwrap();
    let only = |families: Vec<MetricFamily>| {
        let family = families.into_iter().next().expect("one family");
        let metric = family.metric.into_iter().next().expect("one series");
        metric.histogram.expect("a histogram")
    };
    let mut ours = only(decode_all(&body));
    // prometheus-client's encoder gets no start timestamp from a bare handle.
    assert!(ours.start_timestamp.take().is_some(), "{ours:?}");
    let mut theirs_registry = PcRegistry::default();
    theirs_registry.register("nt:latency", "latency", histogram.clone());
    let theirs = only(prometheus_protobuf::encode(&theirs_registry).unwrap());
    (ours, theirs)
}

/// Our writer walks a native histogram's spans and deltas off its buckets as it writes them;
/// prometheus-client's encoder is handed them built. For the same histograms, over gaps of
/// every width, both signs, zero buckets, a zero-width zero bucket with nothing in it, and
/// running totals coarsened by the bucket limit, the messages decode equal. (Both read one
/// bucket walk; `native_parity` checks that walk against prometheus-client's own native
/// histogram.)
#[test]
fn native_buckets_decode_as_prometheus_client_s_encoder_writes_them() {
    // `(index, sign)` steps at schema 0 (bucket `k` is `(2^(k-1), 2^k]`): gaps of 0 to 4
    // empty buckets between the recorded ones, on both sides.
    let gappy: Vec<f64> = [0, 1, 3, 6, 10, 15, 16, 20]
        .iter()
        .flat_map(|&k: &i32| [2f64.powi(k - 1) * 1.5, -(2f64.powi(k - 3) * 1.5)])
        .chain([0.0, 0.0, 1e-9])
        .collect();
    let spread: Vec<f64> = (0..600)
        .map(|i: i32| 1.37f64.powi(i % 90 - 45) * if i % 3 == 0 { -1.0 } else { 1.0 })
        .collect();
    // Each case, and what its last message must show for the case to test what it says.
    type Shows = fn(&PbHistogram) -> bool;
    let spans_apart: Shows = |h| h.positive_span.len() > 1 && h.negative_span.len() > 1;
    let cases: [(NativeConfig, &[f64], Shows); 5] = [
        (NativeConfig::with_schema(0), &gappy, spans_apart),
        (
            NativeConfig::with_schema(3).zero_threshold(1e-6),
            &gappy,
            |h| h.zero_count == 3 && h.positive_span.len() > 1,
        ),
        (
            NativeConfig::with_schema(8).max_buckets(100_000),
            &spread,
            // 90 magnitudes a factor of 1.37 apart: ~116 buckets apart at schema 8, a span each.
            |h| h.positive_span.len() == 60 && h.negative_span.len() == 30,
        ),
        // 600 values over ~250 schema-3 buckets a side, limited to 40: the running totals
        // lower their resolution at the scrape.
        (NativeConfig::with_schema(3).max_buckets(40), &spread, |h| {
            h.schema < 3 && h.positive_delta.len() + h.negative_delta.len() <= 40
        }),
        // Nothing recorded, zero-width zero bucket: one empty positive span marks it native.
        (NativeConfig::with_schema(2).zero_threshold(0.0), &[], |h| {
            h.positive_span.len() == 1 && h.positive_span[0].length == 0
        }),
    ];
    for (config, values, shows) in cases {
        let mut registry = Registry::default();
        let options = RegisterOptions::new().native("nt:latency", Some(config));
        let metrics = NativeLatency::try_register_with(&mut registry, &options).unwrap();
        let latency = metrics.resolve(&NoLabels).latency;
        // Two scrapes with records before each: the second adds to running totals.
        let (first, second) = values.split_at(values.len() / 2);
        let mut recorded = 0;
        for batch in [first, second] {
            for &value in batch {
                latency.observe(value);
            }
            recorded += batch.len() as u64;
            let (ours, theirs) = native_messages(&registry, &latency);
            assert_eq!(ours, theirs, "{config:?}");
            assert_eq!(ours.sample_count, recorded, "{config:?}");
            if recorded == values.len() as u64 {
                assert!(shows(&ours), "{config:?}: {ours:?}");
            }
        }
    }
}
