//! Recording from several threads while another scrapes and an engine joins and leaves: every
//! total of the stable engines is exact at the end, and nothing panics or deadlocks; and a
//! saturated counter is never scraped lower while steps race the scrapes.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::support::exposition::{encode_openmetrics, encode_text, stress};
use crate::support::resets::{sample_u64, scrapes_reading_a_reset};
use crate::support::vllm::*;
use metric_handles::testing::assert_finishes;
use metric_handles::vllm::request::RequestParams;
use metric_handles::vllm::scheduler::{PrefixCacheStats, SchedulerStats};

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

#[test]
fn a_saturated_scheduler_counter_is_never_scraped_lower_while_steps_race_the_scrapes() {
    let (registry, metrics) = setup_default();
    let step = |queries| SchedulerStats {
        prefix_cache_stats: PrefixCacheStats {
            queries,
            ..PrefixCacheStats::default()
        },
        ..SchedulerStats::default()
    };
    // An absurd count saturates the counter (the documented outcome), then steps keep coming.
    metrics.scheduler().record(0, &step(u64::MAX));
    let steps = step(5);
    let seen = scrapes_reading_a_reset(
        2,
        stress(500, 5_000),
        u64::MAX,
        || metrics.scheduler().record(0, &steps),
        || {
            sample_u64(
                &encode_text(&registry),
                r#"vllm:prefix_cache_queries_total{model_name="model",engine="0"}"#,
            )
        },
    );
    seen.report("scheduler steps into a saturated vllm:prefix_cache_queries");
    assert_eq!(seen.resets, 0, "{seen:?}");
    assert_eq!(seen.lowest, u64::MAX);
}

/// Engines past the engine table's lock-free slots (256 and up), each doing what a frontend
/// does at once: one leaves and joins again, a connector resolves its series of another, and a
/// recorder records a third. All finish, and every total is exact.
#[test]
fn engines_past_the_slots_joining_resolving_and_recording_at_once_finish_with_exact_totals() {
    use metric_handles::family::FamilySpec;
    use metric_handles::Counter;
    use std::time::Duration;

    const CHURNED: u32 = 300;
    const RESOLVED: u32 = 301;
    const RECORDED: u32 = 302;
    const RESOLVERS: u64 = 2;

    // Before joins and resolutions past the slots took their locks in one order, long runs
    // (`METRIC_HANDLES_STRESS=long`) deadlocked every time; the deterministic reproduction is
    // `engines::tests::a_resolution_past_the_slots_does_not_wait_for_a_join_past_the_slots`.
    let cycles = stress(2_000u64, 20_000);
    let limit = Duration::from_secs(stress(60, 300));
    let (registry, metrics) = setup_default();
    let lookups = metrics
        .plugin_families()
        .register::<Counter>(&FamilySpec::counter("acme:kv_lookups", "KV lookups"))
        .expect("a valid, free name");
    for engine in [CHURNED, RESOLVED, RECORDED] {
        metrics.scheduler().add_engine(engine);
    }
    let in_thread = metrics.clone();
    assert_finishes(limit, move || {
        let metrics = &in_thread;
        let lookups = &lookups;
        std::thread::scope(|s| {
            s.spawn(|| {
                for _ in 0..cycles {
                    assert!(metrics.scheduler().remove_engine(CHURNED));
                    metrics.scheduler().add_engine(CHURNED);
                }
            });
            for _ in 0..RESOLVERS {
                s.spawn(|| {
                    for _ in 0..cycles {
                        metrics
                            .resolve_for_engine(RESOLVED, |_, labels| {
                                lookups.get_or_create(labels, &[]).expect("no extra labels")
                            })
                            .inc();
                    }
                });
            }
            s.spawn(|| {
                let stats = SchedulerStats {
                    prefix_cache_stats: PrefixCacheStats {
                        queries: 1,
                        ..PrefixCacheStats::default()
                    },
                    ..SchedulerStats::default()
                };
                for _ in 0..cycles {
                    metrics.scheduler().record(RECORDED, &stats);
                }
            });
        });
    });
    let s = scrape(&registry);
    let cycles = cycles as f64;
    assert_eq!(
        s.counter("acme:kv_lookups", &RESOLVED.to_string()),
        cycles * RESOLVERS as f64
    );
    assert_eq!(
        s.counter("vllm:prefix_cache_queries", &RECORDED.to_string()),
        cycles
    );
    assert_eq!(metrics.scheduler().engines(), [CHURNED, RESOLVED, RECORDED]);
}
