//! The vLLM recorders' throughput alone and with a scraper encoding the registry in a tight loop
//! while a third engine leaves and re-joins: the figures show scraping does not block recording
//! (printed, never asserted), and both runs end with exact totals.
//! `METRIC_HANDLES_STRESS=long` records 25x more.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::support::exposition::{encode_text, stress};
use crate::support::vllm::*;
use metric_handles::vllm::request::RequestParams;
use metric_handles::vllm::scheduler::SchedulerStats;
use metric_handles::vllm::VllmMetrics;
use metric_handles::Registry;

const THREADS: u32 = 2;

/// Each round: one scheduler record and one request (track, 2 outputs, finish): 4 operations.
const OPS_PER_ROUND: u64 = 4;

fn rounds() -> u64 {
    stress(20_000, 500_000)
}

/// Records `rounds` rounds on each of `THREADS` threads (engine = thread index); returns the
/// operations per second over all threads.
fn record(metrics: &VllmMetrics, rounds: u64) -> f64 {
    let start = Instant::now();
    std::thread::scope(|s| {
        for engine in 0..THREADS {
            s.spawn(move || {
                let stats = SchedulerStats {
                    num_running_reqs: 1,
                    ..SchedulerStats::default()
                };
                let request = TwoTokenRequest::default();
                for round in 0..rounds {
                    metrics.scheduler().record(engine, &stats);
                    request.record(metrics, engine, round as f64);
                }
            });
        }
    });
    (u64::from(THREADS) * rounds * OPS_PER_ROUND) as f64 / start.elapsed().as_secs_f64()
}

fn assert_exact(registry: &Registry, rounds: u64) {
    let s = scrape(registry);
    for engine in 0..THREADS {
        s.assert_two_token_requests(&engine.to_string(), rounds as f64);
    }
}

#[test]
fn recorder_throughput_with_and_without_a_scraper_and_engine_churn() {
    let rounds = rounds();
    let (quiet_registry, quiet) = setup_default();
    let alone = record(&quiet, rounds);
    assert_exact(&quiet_registry, rounds);

    let (registry, busy) = setup_default();
    let done = AtomicBool::new(false);
    let (with_scraper, scrapes, churns) = std::thread::scope(|s| {
        let scraper = s.spawn(|| {
            let mut n = 0u64;
            while !done.load(Ordering::Relaxed) {
                encode_text(&registry);
                n += 1;
            }
            n
        });
        let churn = s.spawn(|| {
            let mut n = 0u64;
            while !done.load(Ordering::Relaxed) {
                busy.scheduler().add_engine(THREADS);
                drop(busy.requests().track(THREADS, RequestParams::default()));
                assert!(busy.scheduler().remove_engine(THREADS));
                n += 1;
            }
            n
        });
        let rate = record(&busy, rounds);
        done.store(true, Ordering::Relaxed);
        (
            rate,
            scraper.join().expect("scraper"),
            churn.join().expect("churn"),
        )
    });
    assert_exact(&registry, rounds);
    assert!(scrapes > 0 && churns > 0);
    eprintln!(
        "vllm recorders, {THREADS} threads x {rounds} rounds ({} ops): {:.2} M ops/s alone, \
         {:.2} M ops/s with a scraper in a tight loop ({scrapes} scrapes) and engine churn \
         ({churns} leave/re-join cycles)",
        u64::from(THREADS) * rounds * OPS_PER_ROUND,
        alone / 1e6,
        with_scraper / 1e6
    );
}
