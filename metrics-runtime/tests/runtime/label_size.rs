//! `Dynamic` and plug-in families bound how large a record-time label set may be, not only
//! how many: huge label values go to the overflow series (counted, never lost), so memory and
//! the scrape stay small, and values are measured as the scrape writes them. Prints the
//! figures it measured (RSS, scrape size, time per record).

use std::time::Instant;

use crate::support::exposition::encode_text;
use metric_handles::family::{FamilySpec, RuntimeFamilies, RuntimeFamily};
use metric_handles::limits::MAX_LABEL_VALUE_LEN;
use metric_handles::Registry;
use metric_handles::{Counter, Dynamic, Family, LabelSet, MetricHandles, NoLabels};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Tenant {
    pub tenant: String,
}

#[derive(Debug, MetricHandles)]
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

/// Timing rounds; the fastest is reported, the one least disturbed by a busy machine.
const ROUNDS: usize = 5;

/// Microseconds per item of `f` over `items`, the fastest of [`ROUNDS`] rounds.
fn fastest_us_per<T, R>(items: &[T], mut f: impl FnMut(&T) -> R) -> f64 {
    (0..ROUNDS)
        .map(|_| {
            let started = Instant::now();
            for item in items {
                f(item);
            }
            started.elapsed().as_secs_f64() * 1e6 / items.len() as f64
        })
        .fold(f64::INFINITY, f64::min)
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
    // Rejection alone: while the map is empty, a lookup does not even hash its key.
    let empty = Gateway::register(&mut Registry::default())
        .resolve(&NoLabels)
        .requests;
    let per_rejection = fastest_us_per(&tenants, |t| empty.get_or_create(t).inc());
    assert_eq!(empty.len(), 0);
    // A normal tenant gets its own series (and with it, every lookup below hashes its key).
    requests
        .get_or_create(&Tenant {
            tenant: "acme".into(),
        })
        .inc();
    let rss_before = rss_bytes();
    for tenant in &tenants {
        requests.get_or_create(tenant).inc();
    }
    let rss_after = rss_bytes();
    // What rejecting an oversized set costs, against a plain `get` of the same keys (the hash
    // every lookup pays anyway) measured in the same run.
    let per_oversized = fastest_us_per(&tenants, |t| requests.get_or_create(t).inc());
    let per_get = fastest_us_per(&tenants, |t| assert!(requests.get(t).is_none()));
    // A value at the limit is kept.
    let edge = Tenant {
        tenant: "e".repeat(MAX_LABEL_VALUE_LEN),
    };
    requests.get_or_create(&edge).inc();
    requests.get_or_create(&edge).inc();
    // Values over the limit but small enough to be encoded and measured as written.
    let mid: Vec<Tenant> = (0..200)
        .map(|i| Tenant {
            tenant: format!("{i:04}{}", "m".repeat(8 << 10)),
        })
        .collect();
    let per_mid = fastest_us_per(&mid, |t| requests.get_or_create(t).inc());
    let per_mid_get = fastest_us_per(&mid, |t| assert!(requests.get(t).is_none()));
    let text = encode_text(&registry);
    println!(
        "200 distinct 1 MiB label values: RSS +{:.1} MB, scrape {:.1} KB; rejecting one alone \
         {:.0} ns; per oversized lookup \
         {per_oversized:.1} us vs {per_get:.1} us for a plain get (x{:.2}); 8 KiB values: \
         {per_mid:.1} us vs {per_mid_get:.1} us (x{:.2})",
        rss_after.saturating_sub(rss_before) as f64 / 1e6,
        text.len() as f64 / 1e3,
        per_rejection * 1e3,
        per_oversized / per_get,
        per_mid / per_mid_get,
    );
    let oversized = (tenants.len() * (1 + ROUNDS) + mid.len() * ROUNDS) as u64;
    assert!(
        text.contains(&format!(
            "gw:requests_total{{otel_metric_overflow=\"true\"}} {oversized}\n"
        )),
        "{}",
        &text[..text.len().min(500)]
    );
    assert!(text.contains("gw:requests_total{tenant=\"acme\"} 1\n"));
    assert!(text.contains(&format!(
        "gw:requests_total{{tenant=\"{}\"}} 2\n",
        edge.tenant
    )));
    assert_eq!(requests.oversized_lookups(), oversized);
    assert_eq!(requests.len(), 2);
    assert!(text.len() < 8 * 1024, "scrape of {} bytes", text.len());
}

/// A plug-in family keyed by one extra label, registered in a fresh registry.
fn plugin_family() -> (Registry, RuntimeFamily<NoLabels, Counter>) {
    let mut registry = Registry::default();
    let families = RuntimeFamilies::<NoLabels>::register_in(&mut registry);
    let family = families
        .register::<Counter>(&FamilySpec::counter("acme:fetches", "Fetches").label_keys(["tier"]))
        .expect("a valid spec");
    (registry, family)
}

#[test]
fn huge_plugin_label_values_go_to_the_overflow_series_and_every_record_counts() {
    let (registry, fetches) = plugin_family();
    // 200 distinct 1 MiB values, the case that cost +202 MiB and a 200 MiB scrape.
    let values: Vec<String> = (0..200)
        .map(|i| format!("{i:04}{}", "x".repeat(1 << 20)))
        .collect();
    fetches
        .get_or_create(&NoLabels, &["host"])
        .expect("one value")
        .inc();
    let rss_before = rss_bytes();
    for value in &values {
        fetches
            .get_or_create(&NoLabels, &[value])
            .expect("one value")
            .inc();
    }
    let rss_after = rss_bytes();
    let per_rejection = fastest_us_per(&values, |v| {
        fetches
            .get_or_create(&NoLabels, &[v])
            .expect("one value")
            .inc()
    });
    // A value at the limit is kept.
    let edge = "e".repeat(MAX_LABEL_VALUE_LEN);
    for _ in 0..2 {
        fetches
            .get_or_create(&NoLabels, &[&edge])
            .expect("one value")
            .inc();
    }
    let text = encode_text(&registry);
    println!(
        "plug-in family, 200 distinct 1 MiB label values: RSS +{:.1} MB, scrape {:.1} KB; \
         {per_rejection:.2} us per rejected lookup",
        rss_after.saturating_sub(rss_before) as f64 / 1e6,
        text.len() as f64 / 1e3,
    );
    let oversized = (values.len() * (1 + ROUNDS)) as u64;
    assert!(
        text.contains(&format!(
            "acme:fetches_total{{otel_metric_overflow=\"true\"}} {oversized}\n"
        )),
        "{}",
        &text[..text.len().min(500)]
    );
    assert!(
        text.contains("acme:fetches_total{tier=\"host\"} 1\n"),
        "{text}"
    );
    assert!(text.contains(&format!("acme:fetches_total{{tier=\"{edge}\"}} 2\n")));
    assert_eq!(fetches.oversized_lookups(), oversized);
    assert_eq!(fetches.overflowed_lookups(), oversized);
    assert_eq!(fetches.len(), 2);
    assert!(text.len() < 8 * 1024, "scrape of {} bytes", text.len());
    // Well under the 200 MiB the values would take (what RSS adds is allocator noise).
    assert!(rss_after.saturating_sub(rss_before) < 16 << 20);
}

/// Every value of label `key` in `text`, as written (escapes and control pictures included).
/// The values here have no escaped quote, so a value ends at the next `"`.
fn written_values<'a>(text: &'a str, key: &str) -> Vec<&'a str> {
    let start = format!("{key}=\"");
    text.match_indices(&start)
        .map(|(at, _)| {
            let value = &text[at + start.len()..];
            &value[..value.find('"').expect("a closing quote")]
        })
        .collect()
}

/// Values around the value limit, as written after control characters become 3-byte
/// control pictures: the first two are kept, the last two are over the limit.
fn values_around_the_written_limit() -> [String; 4] {
    [
        "\r".repeat(MAX_LABEL_VALUE_LEN / 3), // 1,023 bytes as written
        "v".repeat(MAX_LABEL_VALUE_LEN),      // 1,024
        "\r".repeat(MAX_LABEL_VALUE_LEN / 3 + 1), // 1,026
        "w".repeat(MAX_LABEL_VALUE_LEN - 1) + "\u{1}", // 1,026
    ]
}

/// Checks one family's scrape after each of [`values_around_the_written_limit`] was recorded.
fn assert_kept_values_fit_as_written(text: &str, key: &str) {
    let written = written_values(text, key);
    assert_eq!(written.len(), 2, "{text}");
    for value in written {
        assert!(
            value.len() <= MAX_LABEL_VALUE_LEN,
            "a kept value is written as {} bytes",
            value.len()
        );
    }
}

#[test]
fn label_values_are_measured_as_written_after_control_characters_become_pictures() {
    let mut registry = Registry::default();
    let requests = Gateway::register(&mut registry).resolve(&NoLabels).requests;
    for value in values_around_the_written_limit() {
        requests.get_or_create(&Tenant { tenant: value }).inc();
    }
    assert_eq!(requests.len(), 2);
    assert_eq!(requests.oversized_lookups(), 2);
    assert_kept_values_fit_as_written(&encode_text(&registry), "tenant");

    let (registry, fetches) = plugin_family();
    for value in values_around_the_written_limit() {
        fetches
            .get_or_create(&NoLabels, &[&value])
            .expect("one value")
            .inc();
    }
    assert_eq!(fetches.len(), 2);
    assert_eq!(fetches.oversized_lookups(), 2);
    assert_kept_values_fit_as_written(&encode_text(&registry), "tier");
}
