//! Concurrency stress: recording threads, a continuous scraper and label-set churn at once.
//!
//! Recording goes through cached handles (atomics only), scraping holds a family's read lock,
//! and churn takes the write lock to add and remove other label sets. At the end every total
//! must be exact, and every scrape taken along the way must be internally consistent.
//!
//! A counter saturated at `u64::MAX` is scraped while increments race the scrapes: no scrape
//! may read it lower than the one before (Prometheus would take it for a reset).
//!
//! The default run is short so it fits the test suite; `METRIC_HANDLES_STRESS=long` runs a
//! longer variant.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::exposition::{encode_text, stress};
use crate::support::resets::{sample_u64, scrapes_reading_a_reset};
use metric_handles::__private::{new_family, SeriesSpec};
use metric_handles::local::Local;
use metric_handles::prometheus_client::encoding::{EncodeLabelSet, LabelSetEncoder};
use metric_handles::Registry;
use metric_handles::{Counter, Family, Histogram, LabelSet};

#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct Worker {
    id: u32,
}

impl EncodeLabelSet for Worker {
    fn encode(&self, encoder: &mut LabelSetEncoder) -> Result<(), std::fmt::Error> {
        [("worker", self.id)].encode(encoder)
    }
}

impl LabelSet for Worker {
    const KEYS: &'static [&'static str] = &["worker"];
}

fn stress_scale() -> (usize, u64) {
    match std::env::var("METRIC_HANDLES_STRESS").as_deref() {
        Ok("long") => (4, 2_000_000),
        _ => (3, 100_000),
    }
}

struct Fixture {
    registry: Registry,
    tokens: Family<Worker, Counter>,
    latency: Family<Worker, Histogram>,
}

fn fixture() -> Fixture {
    let mut registry = Registry::default();
    let tokens: Family<Worker, Counter> = new_family(SeriesSpec::new());
    let latency: Family<Worker, Histogram> =
        new_family(SeriesSpec::new().with_buckets(vec![0.5, 1.0, 2.0]));
    registry.register("stress_tokens", "Tokens", tokens.clone());
    registry.register("stress_latency_seconds", "Latency", latency.clone());
    Fixture {
        registry,
        tokens,
        latency,
    }
}

/// `name{labels}` → value for every sample line of a Prometheus text exposition.
fn samples(text: &str) -> HashMap<String, f64> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            Some((series.to_owned(), value.parse().ok()?))
        })
        .collect()
}

/// Checks one scrape: every histogram's `_count` equals its `+Inf` bucket, and no counter of a
/// stable worker went down since the previous scrape.
fn check_scrape(text: &str, previous: &mut HashMap<String, f64>, stable_workers: usize) {
    let now = samples(text);
    for worker in 0..stable_workers {
        let count = now.get(&format!(
            "stress_latency_seconds_count{{worker=\"{worker}\"}}"
        ));
        let inf = now.get(&format!(
            "stress_latency_seconds_bucket{{worker=\"{worker}\",le=\"+Inf\"}}"
        ));
        assert_eq!(
            count, inf,
            "worker {worker}: _count must equal +Inf\n{text}"
        );
        let key = format!("stress_tokens_total{{worker=\"{worker}\"}}");
        let value = now.get(&key).copied().unwrap_or(0.0);
        let before = previous.insert(key.clone(), value).unwrap_or(0.0);
        assert!(value >= before, "{key} went from {before} to {value}");
    }
}

/// Records `ops` times per worker through cached handles; returns records per second.
fn record(fixture: &Fixture, workers: usize, ops: u64) -> f64 {
    let start = Instant::now();
    std::thread::scope(|s| {
        for id in 0..workers {
            let tokens = fixture.tokens.get_or_create(&Worker { id: id as u32 });
            let latency = fixture.latency.get_or_create(&Worker { id: id as u32 });
            s.spawn(move || {
                for i in 0..ops {
                    tokens.inc();
                    latency.observe((i % 3) as f64);
                }
            });
        }
    });
    (workers as u64 * ops) as f64 / start.elapsed().as_secs_f64()
}

#[test]
fn totals_are_exact_under_concurrent_scrapes_and_label_set_churn() {
    let (workers, ops) = stress_scale();
    let fixture = fixture();
    let done = AtomicBool::new(false);
    let scrapes = AtomicU64::new(0);
    let churned = AtomicU64::new(0);

    std::thread::scope(|s| {
        s.spawn(|| {
            let mut previous = HashMap::new();
            // At least a few scrapes even if the recorders finish first.
            while !done.load(Ordering::Relaxed) || scrapes.load(Ordering::Relaxed) < 10 {
                let text = encode_text(&fixture.registry);
                check_scrape(&text, &mut previous, workers);
                scrapes.fetch_add(1, Ordering::Relaxed);
            }
        });
        s.spawn(|| {
            // Engines joining and leaving: label sets that are not recorded into by the
            // workers come and go while the workers record and the scraper reads.
            let mut id = 1_000;
            while !done.load(Ordering::Relaxed) || churned.load(Ordering::Relaxed) < 10 {
                let labels = Worker { id };
                fixture.tokens.get_or_create(&labels).inc();
                fixture.latency.get_or_create(&labels).observe(1.0);
                assert!(fixture.tokens.remove(&labels));
                assert!(fixture.latency.remove(&labels));
                churned.fetch_add(1, Ordering::Relaxed);
                id += 1;
            }
        });
        record(&fixture, workers, ops);
        done.store(true, Ordering::Relaxed);
    });

    let text = encode_text(&fixture.registry);
    let samples = samples(&text);
    for worker in 0..workers {
        let tokens = samples[&format!("stress_tokens_total{{worker=\"{worker}\"}}")];
        assert_eq!(tokens, ops as f64);
        let count = samples[&format!("stress_latency_seconds_count{{worker=\"{worker}\"}}")];
        assert_eq!(count, ops as f64);
        // Observations cycle 0, 1, 2: the sum is exact in f64 at these sizes.
        let sum = samples[&format!("stress_latency_seconds_sum{{worker=\"{worker}\"}}")];
        let expected_sum = (0..ops).map(|i| (i % 3) as f64).sum::<f64>();
        assert_eq!(sum, expected_sum);
        let le_half =
            samples[&format!("stress_latency_seconds_bucket{{worker=\"{worker}\",le=\"0.5\"}}")];
        assert_eq!(le_half, ops.div_ceil(3) as f64);
    }
    // Every churned label set was removed again: only the stable workers remain.
    assert_eq!(fixture.tokens.len(), workers);
    assert_eq!(fixture.latency.len(), workers);
    eprintln!(
        "stress: {workers} recording threads x {ops} records, {} scrapes, {} label sets churned",
        scrapes.load(Ordering::Relaxed),
        churned.load(Ordering::Relaxed)
    );
}

/// Scraping never blocks recording: the record path takes no lock, so a thread encoding the
/// registry in a loop can only compete for CPU and cache lines. This prints both throughputs
/// (the figure goes into the reliability note); it asserts only that both runs completed
/// exactly, since timing assertions are flaky on a shared 2-core machine.
#[test]
fn recording_throughput_with_and_without_a_concurrent_scraper() {
    let (workers, ops) = stress_scale();
    let workers = workers.min(2);
    let quiet = fixture();
    let alone = record(&quiet, workers, ops);

    let busy = fixture();
    let done = Arc::new(AtomicBool::new(false));
    let mut scrapes = 0u64;
    let with_scraper = std::thread::scope(|s| {
        let scraper = s.spawn(|| {
            let mut n = 0u64;
            while !done.load(Ordering::Relaxed) {
                encode_text(&busy.registry);
                n += 1;
                std::thread::sleep(Duration::from_micros(50));
            }
            n
        });
        let rate = record(&busy, workers, ops);
        done.store(true, Ordering::Relaxed);
        scrapes = scraper.join().expect("scraper thread");
        rate
    });
    for f in [&quiet, &busy] {
        let text = encode_text(&f.registry);
        let samples = samples(&text);
        for worker in 0..workers {
            assert_eq!(
                samples[&format!("stress_tokens_total{{worker=\"{worker}\"}}")],
                ops as f64
            );
        }
    }
    eprintln!(
        "throughput: {:.1} M records/s alone, {:.1} M records/s with a scraper ({scrapes} scrapes)",
        alone / 1e6,
        with_scraper / 1e6
    );
}

/// Saturates a counter with an absurd increment, then runs `record` on two threads against
/// it while this thread scrapes: no scrape may read it lower than `u64::MAX`.
fn assert_never_scraped_lower(what: &str, record: impl Fn(&Counter) + Sync) {
    let mut registry = Registry::default();
    let counter = Counter::default();
    registry.register("saturated", "A saturated counter", counter.clone());
    counter.inc_by(u64::MAX);
    let seen = scrapes_reading_a_reset(
        2,
        stress(20_000, 200_000),
        u64::MAX,
        || record(&counter),
        || sample_u64(&encode_text(&registry), "saturated_total"),
    );
    seen.report(what);
    assert_eq!(seen.resets, 0, "{seen:?}");
    assert_eq!(seen.lowest, u64::MAX);
    assert_eq!(counter.get(), u64::MAX);
}

#[test]
fn a_saturated_counter_is_never_scraped_lower_while_increments_race_the_scrapes() {
    assert_never_scraped_lower("Counter::inc/inc_by into a saturated counter", |counter| {
        counter.inc();
        counter.inc_by(5);
    });
}

#[test]
fn local_counters_merging_into_a_saturated_counter_are_never_scraped_lower() {
    assert_never_scraped_lower("LocalCounter merges into a saturated counter", |counter| {
        let mut local = counter.local_with_interval(2);
        local.inc_by(7);
        local.inc();
    });
}
