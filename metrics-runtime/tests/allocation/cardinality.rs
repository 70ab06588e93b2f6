//! Cardinality: a stream of distinct label values cannot grow memory without limit.
//!
//! A `Dynamic` member and a `Family` both stop creating series at their limit and route every
//! further record to one overflow series (`otel_metric_overflow="true"`). This test feeds an
//! adversarial stream of distinct label values, measures live heap bytes with a counting
//! allocator, and checks that no record was lost.

use crate::counting::live_bytes;
use crate::support::exposition::encode_text;
use metric_handles::__private::{new_family, SeriesSpec};
use metric_handles::member::FamilyMember;
use metric_handles::prometheus_client::encoding::{EncodeLabelSet, LabelSetEncoder};
use metric_handles::Registry;
use metric_handles::{Counter, Dynamic, Family, LabelSet, NoLabels};

#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct UserLabel {
    user: String,
}

impl EncodeLabelSet for UserLabel {
    fn encode(&self, encoder: &mut LabelSetEncoder) -> Result<(), std::fmt::Error> {
        [("user", self.user.as_str())].encode(encoder)
    }
}

impl LabelSet for UserLabel {
    const KEYS: &'static [&'static str] = &["user"];
}

const LIMIT: usize = 100;

#[test]
fn an_adversarial_label_stream_stays_bounded_and_loses_nothing() {
    let mut registry = Registry::default();
    let family: Family<NoLabels, Dynamic<UserLabel, Counter>> =
        new_family(SeriesSpec::new().with_max_series(LIMIT));
    registry.register("requests_by_user", "Requests by user", family.clone());
    let by_user = family.get_or_create(&NoLabels);

    let feed = |from: usize, to: usize| {
        for i in from..to {
            // A fresh String per record, as a request handler would build it, dropped after.
            by_user
                .get_or_create(&UserLabel {
                    user: format!("user-{i:08}"),
                })
                .inc();
        }
    };

    // Fill to the limit, then measure what the next 1,000 and the next 100,000 distinct
    // values cost in live heap.
    feed(0, LIMIT);
    let at_limit = live_bytes();
    feed(LIMIT, LIMIT + 1_000);
    let after_1k = live_bytes();
    feed(LIMIT + 1_000, LIMIT + 101_000);
    let after_101k = live_bytes();

    assert_eq!(by_user.len(), LIMIT);
    assert_eq!(by_user.overflowed_lookups(), 101_000);
    // The overflow series is allocated once; past that, distinct values cost nothing.
    let growth = after_101k - after_1k;
    assert!(
        growth.abs() < 1024,
        "live heap grew by {growth} bytes over 100,000 distinct label values past the limit"
    );
    eprintln!(
        "cardinality: limit {LIMIT}; live heap at limit {at_limit} B, +1k distinct {after_1k} B, \
         +101k distinct {after_101k} B"
    );

    let text = encode_text(&registry);
    let per_user = text
        .lines()
        .filter(|l| l.starts_with("requests_by_user_total{user=\"user-"))
        .count();
    assert_eq!(per_user, LIMIT);
    assert!(
        text.contains("requests_by_user_total{otel_metric_overflow=\"true\"} 101000\n"),
        "{text}"
    );
    let total: f64 = text
        .lines()
        .filter(|l| l.starts_with("requests_by_user_total"))
        .filter_map(|l| l.rsplit_once(' ')?.1.parse::<f64>().ok())
        .sum();
    assert_eq!(total, (LIMIT + 101_000) as f64, "every record is counted");
}

#[test]
fn a_family_past_its_limit_routes_new_label_sets_to_the_overflow_series() {
    let mut registry = Registry::default();
    let family: Family<UserLabel, Counter> = new_family(SeriesSpec::new().with_max_label_sets(2));
    registry.register("logins", "Logins", family.clone());
    for user in ["a", "b", "c", "d"] {
        family
            .get_or_create(&UserLabel {
                user: user.to_owned(),
            })
            .inc();
    }
    assert_eq!(family.len(), 2);
    assert_eq!(family.overflowed_lookups(), 2);
    let text = encode_text(&registry);
    let expected = "# HELP logins_total Logins.\n# TYPE logins_total counter\n\
                    logins_total{user=\"a\"} 1\nlogins_total{user=\"b\"} 1\n\
                    logins_total{otel_metric_overflow=\"true\"} 2\n";
    assert_eq!(text, expected);
    // Removing a label set frees a slot for a new one.
    assert!(family.remove(&UserLabel { user: "a".into() }));
    family.get_or_create(&UserLabel { user: "e".into() }).inc();
    assert_eq!(family.len(), 2);
    assert_eq!(<Counter as FamilyMember>::KIND.as_str(), "counter");
}
