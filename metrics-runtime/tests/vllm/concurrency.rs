//! Recording from several threads while another scrapes and an engine joins and leaves: every
//! total of the stable engines is exact at the end, and nothing panics or deadlocks.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::support::exposition::encode_openmetrics;
use crate::support::vllm::*;
use metric_handles::vllm::{PrefixCacheStats, RequestParams, SchedulerStats};

const THREADS: u32 = 4;
const ROUNDS: u64 = 10_000;

#[test]
fn concurrent_recording_scraping_and_engine_churn_lose_nothing() {
    let (registry, metrics) = setup_default();
    let done = AtomicBool::new(false);
    let scrapes = std::thread::scope(|s| {
        let recorders: Vec<_> = (0..THREADS)
            .map(|engine| {
                let metrics = metrics.clone();
                s.spawn(move || {
                    let stats = SchedulerStats {
                        num_running_reqs: 1,
                        prefix_cache_stats: PrefixCacheStats {
                            queries: 3,
                            hits: 1,
                            ..PrefixCacheStats::default()
                        },
                        ..SchedulerStats::default()
                    };
                    let request = TwoTokenRequest::default();
                    for round in 0..ROUNDS {
                        // Every thread records into every stable engine.
                        for target in 0..THREADS {
                            metrics.scheduler().record(target, &stats);
                        }
                        request.record(&metrics, engine, round as f64);
                    }
                })
            })
            .collect();
        let churn = s.spawn(|| {
            let mut cycles = 0u32;
            // At least once, however fast the recorders are.
            loop {
                metrics.scheduler().record(99, &SchedulerStats::default());
                let mut t = metrics.requests().track(99, RequestParams::default());
                t.observe_output(1.0, 1.0, &tokens(1));
                metrics.scheduler().remove_engine(99);
                drop(t); // finishes into the detached handles
                cycles += 1;
                if done.load(Ordering::Relaxed) {
                    break cycles;
                }
            }
        });
        let scraper = s.spawn(|| {
            let mut n = 0u32;
            loop {
                let text = encode_openmetrics(&registry);
                assert!(text.ends_with("# EOF\n"));
                n += 1;
                if done.load(Ordering::Relaxed) {
                    break n;
                }
            }
        });
        for r in recorders {
            r.join().expect("recorder thread");
        }
        done.store(true, Ordering::Relaxed);
        assert!(churn.join().expect("churn thread") > 0);
        scraper.join().expect("scraper thread")
    });
    println!(
        "{scrapes} scrapes during {} records",
        u64::from(THREADS) * ROUNDS * 7
    );

    let s = scrape(&registry);
    let per_engine = f64::from(THREADS) * ROUNDS as f64;
    for engine in 0..THREADS {
        let e = engine.to_string();
        assert_eq!(s.counter("vllm:prefix_cache_queries", &e), 3.0 * per_engine);
        assert_eq!(s.counter("vllm:prefix_cache_hits", &e), per_engine);
        s.assert_two_token_requests(&e, ROUNDS as f64);
    }
    assert!(
        !s.text.contains("engine=\"99\""),
        "engine 99 was removed last"
    );
    assert_eq!(metrics.scheduler().engines(), [0, 1, 2, 3]);
}
