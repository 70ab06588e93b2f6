//! End to end with a real Prometheus: a registry whose counter and histogram carry exemplars is
//! served as OpenMetrics, Prometheus (2.x, `--enable-feature=exemplar-storage`) scrapes it,
//! and its `/api/v1/query_exemplars` must return each exemplar with the labels, value and
//! timestamp it was recorded with.
//!
//! Needs `prometheus` (Debian package `prometheus`). Without it the test says SKIPPED and
//! passes, unless `METRIC_HANDLES_REQUIRE_TOOLS=1` (set by `.ci/run`).

mod support;

use std::time::{Duration, UNIX_EPOCH};

use metric_handles::{Counter, Family, Histogram, LabelSet, MetricHandles, Registry};
use support::demo::{url_encode, TempDir};
use support::exposition_server::{ExpositionServer, OPENMETRICS_PATH};
use support::prometheus::{api_data, start_prometheus_with, tools_or_skip, wait_for, ScrapeJob};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Route {
    pub route: String,
}

#[derive(Debug, MetricHandles)]
#[metric_handles(labels = Route)]
pub struct ApiMetrics {
    /// Requests served
    #[metric(name = "exm_requests")]
    pub requests: Family<Route, Counter>,
    /// Request latency
    #[metric(name = "exm_latency", unit = "seconds", buckets = [0.1, 1.0])]
    pub latency: Family<Route, Histogram>,
}

/// The exemplars Prometheus returns for `selector`, as `(series labels, exemplar labels,
/// value, timestamp)`; `None` until it has any.
fn exemplars(
    prometheus: std::net::SocketAddr,
    selector: &str,
) -> Option<Vec<(serde_json::Value, serde_json::Value, f64, f64)>> {
    let path = format!(
        "/api/v1/query_exemplars?query={}&start=1600000000&end=2000000000",
        url_encode(selector)
    );
    let data = api_data(prometheus, &path)?;
    let mut found = Vec::new();
    for series in data.as_array()? {
        for exemplar in series["exemplars"].as_array()? {
            found.push((
                series["seriesLabels"].clone(),
                exemplar["labels"].clone(),
                exemplar["value"].as_str()?.parse().ok()?,
                exemplar["timestamp"].as_f64()?,
            ));
        }
    }
    (!found.is_empty()).then_some(found)
}

#[test]
fn prometheus_stores_the_exemplars_of_an_openmetrics_scrape() {
    if !tools_or_skip("prometheus_stores_the_exemplars_of_an_openmetrics_scrape") {
        return;
    }
    let mut registry = Registry::default();
    let metrics = ApiMetrics::register(&mut registry);
    let chat = metrics.resolve(&Route {
        route: "chat".into(),
    });
    // Recent timestamps: Prometheus drops exemplars far out of its time window.
    let now = std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after the epoch")
        .as_secs();
    let at = UNIX_EPOCH + Duration::from_millis(1000 * now + 250);
    chat.requests
        .inc_by_with_exemplar_at(3, &[("trace_id", "4bf92f3577b34da6")], at)
        .expect("a valid exemplar");
    chat.latency
        .observe_with_exemplar_at(0.42, &[("trace_id", "a3ce929d0e0e4736")], at)
        .expect("a valid exemplar");
    let server = ExpositionServer::start(registry);

    let dir = TempDir::new("prometheus-exemplars");
    let (_prometheus, web) = start_prometheus_with(
        &dir.0,
        &[ScrapeJob {
            name: "exemplars",
            target: server.addr(),
            metrics_path: OPENMETRICS_PATH,
        }],
        &["--enable-feature=exemplar-storage"],
    );

    let timestamp = now as f64 + 0.25;
    let counter = wait_for("the counter's exemplar", Duration::from_secs(60), || {
        exemplars(web, "exm_requests_total")
    });
    assert_eq!(counter.len(), 1, "{counter:?}");
    let (series, labels, value, stored_at) = &counter[0];
    assert_eq!(series["route"], "chat", "{counter:?}");
    assert_eq!(labels["trace_id"], "4bf92f3577b34da6", "{counter:?}");
    assert_eq!((*value, *stored_at), (3.0, timestamp), "{counter:?}");

    let buckets = wait_for("the bucket's exemplar", Duration::from_secs(60), || {
        exemplars(web, "exm_latency_seconds_bucket")
    });
    assert_eq!(buckets.len(), 1, "{buckets:?}");
    let (series, labels, value, stored_at) = &buckets[0];
    assert_eq!(series["le"], "1.0", "{buckets:?}");
    assert_eq!(labels["trace_id"], "a3ce929d0e0e4736", "{buckets:?}");
    assert_eq!((*value, *stored_at), (0.42, timestamp), "{buckets:?}");
}
