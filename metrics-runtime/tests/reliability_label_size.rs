//! `Dynamic` bounds how large a record-time label set may be, not only how many: huge label
//! values go to the overflow series (counted, never lost), so memory and the scrape stay
//! small. Prints the figures it measured (RSS, scrape size, time per record).

use std::time::Instant;

use metric_handles::prometheus_client::registry::Registry;
use metric_handles::{
    Counter, Dynamic, Family, LabelSet, MetricHandles, NoLabels, MAX_LABEL_VALUE_LEN,
};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Tenant {
    pub tenant: String,
}

#[derive(MetricHandles)]
pub struct Gateway {
    /// Requests by tenant
    #[metric(name = "gw:requests")]
    pub requests: Family<NoLabels, Dynamic<Tenant, Counter>>,
}

fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

#[test]
fn huge_label_values_go_to_the_overflow_series_and_every_record_counts() {
    let mut registry = Registry::default();
    let metrics = Gateway::register(&mut registry);
    let requests = metrics.resolve(&NoLabels).requests;
    // 200 distinct 1 MiB tenants, the case that cost +402 MB and a 200 MB scrape.
    let tenants: Vec<Tenant> = (0..200)
        .map(|i| Tenant {
            tenant: format!("{i:04}{}", "x".repeat(1 << 20)),
        })
        .collect();
    let rss_before = rss_bytes();
    let started = Instant::now();
    for tenant in &tenants {
        requests.get_or_create(tenant).inc();
    }
    let per_record = started.elapsed().as_secs_f64() * 1e6 / tenants.len() as f64;
    let rss_after = rss_bytes();
    // A normal tenant still gets its own series, and a value at the limit is kept.
    let edge = Tenant {
        tenant: "e".repeat(MAX_LABEL_VALUE_LEN),
    };
    requests
        .get_or_create(&Tenant {
            tenant: "acme".into(),
        })
        .inc();
    requests.get_or_create(&edge).inc();
    requests.get_or_create(&edge).inc();
    let text = metric_handles::ExpositionFormat::PrometheusText
        .encode(&registry)
        .unwrap();
    println!(
        "200 distinct 1 MiB label values: RSS +{:.1} MB, scrape {:.1} KB, {per_record:.1} us per new label set",
        rss_after.saturating_sub(rss_before) as f64 / 1e6,
        text.len() as f64 / 1e3
    );
    assert!(
        text.contains("gw:requests_total{otel_metric_overflow=\"true\"} 200\n"),
        "{}",
        &text[..text.len().min(500)]
    );
    assert!(text.contains("gw:requests_total{tenant=\"acme\"} 1\n"));
    assert!(text.contains(&format!(
        "gw:requests_total{{tenant=\"{}\"}} 2\n",
        edge.tenant
    )));
    assert_eq!(requests.oversized_lookups(), 200);
    assert_eq!(requests.len(), 2);
    assert!(text.len() < 8 * 1024, "scrape of {} bytes", text.len());
}
