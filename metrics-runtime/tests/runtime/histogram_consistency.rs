//! Every scrape of a histogram sees `_sum`, `_count` and the buckets of one series from the
//! same set of observations, while observations and request-local merges race the scrapes.
//!
//! Every value recorded is 2.0 (exact in binary, and alone in the `le="2"` bucket), so a
//! scrape is consistent exactly when `_sum == 2 * _count` and every observation sits in the
//! `le="2"` bucket. vLLM's Rust frontend tests its own histogram the same way: merges of
//! 2.0-valued batches on several threads, `_sum` checked against `_count`
//! (`rust/src/llm/src/request_metrics.rs`).

use std::sync::atomic::{AtomicBool, Ordering};

use crate::support::exposition::{encode_text, parse, stress};
use metric_handles::{Histogram, Registry};

/// What one scrape read of the histogram `name`.
#[derive(Debug, PartialEq)]
struct Read {
    count: f64,
    sum: f64,
    le_1: f64,
    le_2: f64,
    inf: f64,
}

fn read(text: &str, name: &str) -> Read {
    let samples = parse(text);
    let value = |sample: &str, le: Option<&str>| -> f64 {
        samples
            .iter()
            .find(|s| s.name == sample && s.label("le") == le)
            .unwrap_or_else(|| panic!("no {sample} {le:?} in\n{text}"))
            .value
            .parse()
            .expect("a number")
    };
    let bucket = format!("{name}_bucket");
    Read {
        count: value(&format!("{name}_count"), None),
        sum: value(&format!("{name}_sum"), None),
        le_1: value(&bucket, Some("1")),
        le_2: value(&bucket, Some("2")),
        inf: value(&bucket, Some("+Inf")),
    }
}

/// Runs `record` on two threads in a loop while this thread takes `scrapes` scrapes; returns
/// the scrapes whose `_sum`, `_count` and buckets disagree, and the final read.
fn inconsistent_scrapes(
    scrapes: usize,
    record: impl Fn(&Histogram) + Sync,
) -> (Vec<Read>, Read, u64) {
    let mut registry = Registry::default();
    let histogram = Histogram::new([1.0, 2.0, 5.0]);
    registry.register("batches", "Merged batches of 2.0", histogram.clone());
    let done = AtomicBool::new(false);
    let mut bad = Vec::new();
    let rounds = std::thread::scope(|s| {
        // Stops the recorders however this thread leaves the scope (a failed parse panics).
        let _stop = StopOnDrop(&done);
        let recorders: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut rounds = 0u64;
                    while !done.load(Ordering::Relaxed) {
                        record(&histogram);
                        rounds += 1;
                    }
                    rounds
                })
            })
            .collect();
        for _ in 0..scrapes {
            let r = read(&encode_text(&registry), "batches");
            let consistent =
                r.sum == 2.0 * r.count && r.le_1 == 0.0 && r.le_2 == r.count && r.inf == r.count;
            if !consistent {
                bad.push(r);
            }
        }
        done.store(true, Ordering::Relaxed);
        recorders
            .into_iter()
            .map(|t| t.join().expect("recorder"))
            .sum::<u64>()
    });
    let last = read(&encode_text(&registry), "batches");
    (bad, last, rounds)
}

/// Sets its flag when dropped.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Merges of 2.0-valued batches of every size from 1 to 32 (each a request-local view
/// dropped at the end of its batch).
fn merge_batches(histogram: &Histogram) {
    for len in 1..=32 {
        let mut local = histogram.local_with_interval(len);
        for _ in 0..len {
            local.observe(2.0);
        }
    }
}

#[test]
fn every_scrape_during_merges_of_2_0_batches_has_sum_twice_count() {
    let scrapes = stress(500, 5_000);
    let (bad, last, rounds) = inconsistent_scrapes(scrapes, merge_batches);
    assert!(
        bad.is_empty(),
        "{} of {scrapes} scrapes mixed observations from different merges, first: {:?}",
        bad.len(),
        bad.first()
    );
    // Nothing lost: every merged observation is in the final scrape (528 per round).
    assert_eq!(last.count, rounds as f64 * 528.0);
    assert_eq!(last.sum, 2.0 * last.count);
}

#[test]
fn every_scrape_during_observes_and_merges_at_once_is_consistent() {
    let scrapes = stress(500, 5_000);
    let (bad, last, rounds) = inconsistent_scrapes(scrapes, |histogram| {
        for _ in 0..16 {
            histogram.observe(2.0);
        }
        let mut local = histogram.local_with_interval(7);
        for _ in 0..7 {
            local.observe(2.0);
        }
    });
    assert!(
        bad.is_empty(),
        "{} of {scrapes} scrapes were inconsistent, first: {:?}",
        bad.len(),
        bad.first()
    );
    assert_eq!(last.count, rounds as f64 * 23.0);
    assert_eq!(last.sum, 2.0 * last.count);
}
