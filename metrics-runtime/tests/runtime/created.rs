//! Start timestamps: each counter and histogram series knows when it was created (at
//! `resolve`, at the first lookup of a run-time label set, and anew when a removed series is
//! resolved again), and OpenMetrics text carries them as `_created` lines only when asked to.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use metric_handles::exposition::EncodeOptions;
use metric_handles::{
    ByLabel, Counter, Dynamic, ExpositionFormat, Family, Gauge, Histogram, LabelEnum, LabelSet,
    MetricHandles, Registry,
};

use crate::support::exposition::{parse, Sample};
use crate::support::external_tool::{
    available_or_skip, prometheus_client_samples, promtool_check_metrics, runs,
};

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
pub struct Started {
    /// Requests served
    #[metric(name = "st:requests")]
    pub requests: Family<Engine, Counter>,
    /// Requests running
    #[metric(name = "st:running")]
    pub running: Family<Engine, Gauge>,
    /// Request latency
    #[metric(name = "st:latency", unit = "seconds", buckets = [0.1, 1.0])]
    pub latency: Family<Engine, Histogram>,
    /// Finished requests by reason
    #[metric(name = "st:finished", label = "reason")]
    pub finished: Family<Engine, ByLabel<Reason, Counter>>,
    /// Requests by client
    #[metric(name = "st:by_client")]
    pub by_client: Family<Engine, Dynamic<Client, Counter>>,
}

fn engine(name: &str) -> Engine {
    Engine {
        engine: name.to_owned(),
    }
}

fn openmetrics(registry: &Registry, options: EncodeOptions) -> String {
    let mut body = Vec::new();
    ExpositionFormat::OpenMetrics
        .encode_into_with(registry, &mut body, options)
        .unwrap();
    String::from_utf8(body).unwrap()
}

fn with_created_lines() -> EncodeOptions {
    EncodeOptions::default().with_created_lines(true)
}

fn seconds(time: SystemTime) -> f64 {
    time.duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
}

/// The value of the `_created` sample `name` with `labels`.
fn created(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> f64 {
    let matching: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.name == name && labels.iter().all(|(k, v)| s.label(k) == Some(*v)))
        .filter(|s| s.labels.len() == labels.len())
        .collect();
    assert_eq!(matching.len(), 1, "{name} {labels:?} in {samples:?}");
    matching[0].value.parse().unwrap()
}

#[test]
fn created_lines_are_opt_in_and_follow_each_counter_and_histogram_series() {
    let mut registry = Registry::default();
    let started = Started::register(&mut registry);
    let before = seconds(SystemTime::now()) - 1e-6;
    let e0 = started.resolve(&engine("e0"));
    e0.requests.inc();
    e0.latency.observe(0.5);
    e0.by_client
        .get_or_create(&Client {
            client: "a".to_owned(),
        })
        .inc();
    let after = seconds(SystemTime::now()) + 1e-6;

    let plain = openmetrics(&registry, EncodeOptions::default());
    assert!(!plain.contains("_created"), "{plain}");
    assert_eq!(
        plain,
        ExpositionFormat::OpenMetrics.encode(&registry).unwrap()
    );

    let text = openmetrics(&registry, with_created_lines());
    let lines: Vec<&str> = text.lines().collect();
    let created_lines: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|line| line.contains("_created"))
        .collect();
    // Requests, latency, the two reasons and the one client: the gauge has none.
    assert_eq!(created_lines.len(), 5, "{text}");
    // Each follows its series' last line: a counter's `_total`, a histogram's `+Inf` bucket.
    for (i, line) in lines.iter().enumerate() {
        if line.contains("_created") {
            let previous = lines[i - 1];
            let series = line.split_once('{').unwrap().1.split_once('}').unwrap().0;
            assert!(
                previous.contains("_total{") || previous.contains("le=\"+Inf\""),
                "{previous} / {line}"
            );
            assert!(previous.contains(series), "{previous} / {line}");
        }
    }
    let samples = parse(&text);
    for (name, labels) in [
        ("st:requests_created", vec![("engine", "e0")]),
        ("st:latency_seconds_created", vec![("engine", "e0")]),
        (
            "st:finished_created",
            vec![("engine", "e0"), ("reason", "stop")],
        ),
        (
            "st:finished_created",
            vec![("engine", "e0"), ("reason", "length")],
        ),
        (
            "st:by_client_created",
            vec![("engine", "e0"), ("client", "a")],
        ),
    ] {
        let at = created(&samples, name, &labels);
        assert!(
            (before..=after).contains(&at),
            "{name}: {at} not in [{before}, {after}]"
        );
    }

    // The classic text formats never carry them.
    for format in [
        ExpositionFormat::PrometheusText,
        ExpositionFormat::PrometheusTextV1,
    ] {
        let mut body = Vec::new();
        format
            .encode_into_with(&registry, &mut body, with_created_lines())
            .unwrap();
        let classic = String::from_utf8(body).unwrap();
        assert!(!classic.contains("_created"), "{classic}");
        assert_eq!(classic, format.encode(&registry).unwrap());
    }
}

#[test]
fn a_series_resolved_after_its_removal_or_after_its_label_set_is_created_then() {
    let mut registry = Registry::default();
    let started = Started::register(&mut registry);
    let e0 = started.resolve(&engine("e0"));
    e0.requests.inc();
    // The clock moves on between the creations (no duration is asserted).
    std::thread::sleep(Duration::from_millis(5));
    let mark = seconds(SystemTime::now());
    let client = Client {
        client: "late".to_owned(),
    };
    e0.by_client.get_or_create(&client).inc();
    let samples = parse(&openmetrics(&registry, with_created_lines()));
    let first = created(&samples, "st:requests_created", &[("engine", "e0")]);
    let late = created(
        &samples,
        "st:by_client_created",
        &[("engine", "e0"), ("client", "late")],
    );
    assert!(first < mark && late >= mark, "{first} {late} {mark}");

    started.remove(&engine("e0"));
    std::thread::sleep(Duration::from_millis(5));
    let mark = seconds(SystemTime::now());
    started.resolve(&engine("e0")).requests.inc();
    let samples = parse(&openmetrics(&registry, with_created_lines()));
    let again = created(&samples, "st:requests_created", &[("engine", "e0")]);
    assert!(again >= mark && again > first, "{first} {again} {mark}");
}

#[test]
fn created_lines_parse_with_python_prometheus_client_and_promtool() {
    let mut registry = Registry::default();
    let started = Started::register(&mut registry);
    let e0 = started.resolve(&engine("e0"));
    e0.requests.inc_by(3);
    e0.latency.observe(0.05);
    e0.finished.get(Reason::Stop).inc();
    let text = openmetrics(&registry, with_created_lines());
    let test = "created_lines_parse_with_python_prometheus_client_and_promtool";
    if available_or_skip(
        runs("python3", &["-c", "import prometheus_client"]),
        test,
        "python3 with prometheus_client",
        "pip install prometheus-client",
    ) {
        let samples = prometheus_client_samples("openmetrics", &text);
        let created: Vec<&(String, f64)> = samples
            .iter()
            .filter(|(name, _)| name.ends_with("_created"))
            .collect();
        assert_eq!(created.len(), 4, "{samples:?}");
        let now = seconds(SystemTime::now());
        assert!(created
            .iter()
            .all(|(_, at)| (now - 60.0..=now).contains(at)));
    }
    if available_or_skip(
        runs("promtool", &["--version"]),
        test,
        "promtool",
        "apt-get install prometheus",
    ) {
        let problems = promtool_check_metrics(&text);
        assert!(
            problems.iter().all(|p| !p.contains("error")),
            "{problems:?}"
        );
    }
}

#[cfg(feature = "serve")]
#[test]
fn the_handler_writes_created_lines_to_openmetrics_scrapers_when_its_options_say_so() {
    use metric_handles::serve::{HandlerOptions, MetricsHandler, ScrapeRequest};
    use std::sync::Arc;

    let mut registry = Registry::default();
    let started = Started::register(&mut registry);
    started.resolve(&engine("e0")).requests.inc();
    let registry = Arc::new(registry);
    let scrape = |created_lines: bool, accept: &str| {
        let options = HandlerOptions {
            created_lines,
            compression: false,
            ..HandlerOptions::default()
        };
        let handler = MetricsHandler::with_options(Arc::clone(&registry), options);
        let response = handler.respond(&ScrapeRequest {
            accept: Some(accept),
            ..ScrapeRequest::get()
        });
        assert_eq!(response.status, 200);
        String::from_utf8(response.body().to_vec()).unwrap()
    };
    let openmetrics = "application/openmetrics-text;version=1.0.0";
    assert!(scrape(true, openmetrics).contains("st:requests_created{engine=\"e0\"} "));
    assert!(!scrape(false, openmetrics).contains("_created"));
    assert!(!scrape(true, "text/plain;version=0.0.4").contains("_created"));
}
