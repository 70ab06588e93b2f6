use std::time::{Duration, Instant};

use tokio::runtime::Builder;

use super::TokioCollector;
use crate::registry::Registry;
use crate::testing::Scrape;

/// Scrapes `registry` until `done` holds of the scrape, or gives up after `patience`
/// (returning the last scrape): for figures Tokio updates when a worker parks, whose moment
/// the test does not control. Only the wait is bounded by time; nothing asserts a duration.
fn scrape_until(registry: &Registry, patience: Duration, done: impl Fn(&Scrape) -> bool) -> Scrape {
    let give_up = Instant::now() + patience;
    loop {
        let scrape = Scrape::of(registry);
        if done(&scrape) || Instant::now() > give_up {
            return scrape;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn workers_and_alive_tasks_are_the_runtimes() {
    let runtime = Builder::new_multi_thread()
        .worker_threads(3)
        .enable_time()
        .build()
        .expect("a runtime");
    let mut registry = Registry::default();
    TokioCollector::register(&mut registry, runtime.handle().clone());

    let scrape = Scrape::of(&registry);
    assert_eq!(scrape.value("tokio_workers", &[]), Some(3.0));
    assert_eq!(scrape.value("tokio_alive_tasks", &[]), Some(0.0));
    for worker in ["0", "1", "2"] {
        assert!(scrape
            .value("tokio_worker_busy_seconds_total", &[("worker", worker)])
            .is_some_and(|seconds| seconds >= 0.0));
        assert!(scrape
            .value("tokio_worker_parks_total", &[("worker", worker)])
            .is_some());
    }
    assert_eq!(
        scrape.value("tokio_worker_parks_total", &[("worker", "3")]),
        None
    );

    let sleepers: Vec<_> = (0..5)
        .map(|_| runtime.spawn(async { tokio::time::sleep(Duration::from_secs(3600)).await }))
        .collect();
    assert_eq!(
        Scrape::of(&registry).value("tokio_alive_tasks", &[]),
        Some(5.0)
    );
    for sleeper in &sleepers {
        sleeper.abort();
    }
    let after = scrape_until(&registry, Duration::from_secs(30), |s| {
        s.value("tokio_alive_tasks", &[]) == Some(0.0)
    });
    assert_eq!(after.value("tokio_alive_tasks", &[]), Some(0.0));
}

#[test]
fn busy_time_and_parks_grow_as_workers_run_and_idle() {
    let runtime = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("a runtime");
    let mut registry = Registry::default();
    TokioCollector::register(&mut registry, runtime.handle().clone());
    let before = Scrape::of(&registry);

    // A task that keeps its worker busy for a while, then lets it park again.
    runtime.block_on(async {
        tokio::spawn(async {
            let until = Instant::now() + Duration::from_millis(20);
            while Instant::now() < until {
                std::hint::spin_loop();
            }
        })
        .await
        .expect("the busy task finishes");
    });
    let total = |s: &Scrape, name| s.sum_of(name, &[]).unwrap_or(0.0);
    let after = scrape_until(&registry, Duration::from_secs(30), |s| {
        total(s, "tokio_worker_busy_seconds_total") >= 0.02
            && total(s, "tokio_worker_parks_total") > total(&before, "tokio_worker_parks_total")
    });
    assert!(
        total(&after, "tokio_worker_busy_seconds_total") >= 0.02,
        "20 ms of spinning counts as busy time: {after:?}"
    );
    assert!(
        total(&after, "tokio_worker_parks_total") > total(&before, "tokio_worker_parks_total"),
        "the worker parked after its task: {after:?}"
    );
}

#[test]
fn tasks_spawned_from_outside_wait_in_the_global_queue() {
    // A current-thread runtime runs nothing until it is driven, so tasks spawned through its
    // handle wait in the global queue.
    let runtime = Builder::new_current_thread().build().expect("a runtime");
    let mut registry = Registry::default();
    TokioCollector::register(&mut registry, runtime.handle().clone());
    let tasks: Vec<_> = (0..3).map(|_| runtime.spawn(async {})).collect();
    let scrape = Scrape::of(&registry);
    assert_eq!(scrape.value("tokio_workers", &[]), Some(1.0));
    assert_eq!(scrape.value("tokio_global_queue_depth", &[]), Some(3.0));
    runtime.block_on(async {
        for task in tasks {
            task.await.expect("the task runs");
        }
    });
    assert_eq!(
        Scrape::of(&registry).value("tokio_global_queue_depth", &[]),
        Some(0.0)
    );
}

#[test]
fn several_runtimes_are_labelled_by_name_and_a_second_registration_is_refused() {
    let io = Builder::new_current_thread().build().expect("a runtime");
    let compute = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("a runtime");
    let mut registry = Registry::default();
    registry.register_collector(Box::new(TokioCollector::named([
        ("io", io.handle().clone()),
        ("compute", compute.handle().clone()),
    ])));
    let scrape = Scrape::of(&registry);
    assert_eq!(
        scrape.value("tokio_workers", &[("runtime", "io")]),
        Some(1.0)
    );
    assert_eq!(
        scrape.value("tokio_workers", &[("runtime", "compute")]),
        Some(2.0)
    );
    let compute_worker = [("runtime", "compute"), ("worker", "1")];
    assert!(scrape
        .value("tokio_worker_parks_total", &compute_worker)
        .is_some());
    assert_eq!(
        scrape.value(
            "tokio_worker_parks_total",
            &[("runtime", "io"), ("worker", "1")]
        ),
        None,
        "a current-thread runtime has one worker"
    );

    let error = TokioCollector::try_register(&mut registry, io.handle().clone())
        .expect_err("the names are taken")
        .to_string();
    assert!(error.contains("tokio_workers"), "{error}");
}

/// The families Tokio measures only with `--cfg tokio_unstable` (`.ci/run` builds them).
#[cfg(tokio_unstable)]
#[test]
fn the_unstable_figures_are_exported_when_tokio_measures_them() {
    let runtime = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("a runtime");
    let mut registry = Registry::default();
    TokioCollector::register(&mut registry, runtime.handle().clone());
    runtime.block_on(async {
        for _ in 0..10 {
            tokio::spawn(async {}).await.expect("the task runs");
        }
        tokio::task::spawn_blocking(|| ())
            .await
            .expect("the blocking task runs");
    });
    // A worker hands its poll count to the runtime's figures in batches, when it parks or
    // at its next maintenance tick, so the last polls can arrive just after `block_on`
    // returns: scrape until they have (a few milliseconds), for at most 10 s.
    let deadline = Instant::now() + Duration::from_secs(10);
    let scrape = loop {
        let scrape = Scrape::of(&registry);
        let polls = scrape.sum_of("tokio_worker_polls_total", &[]);
        if polls.is_some_and(|polls| polls >= 10.0) || Instant::now() >= deadline {
            break scrape;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // Tokio counts the tasks of `spawn`, not the blocking pool's jobs.
    assert_eq!(scrape.value("tokio_spawned_tasks_total", &[]), Some(10.0));
    assert!(scrape
        .value("tokio_blocking_threads", &[])
        .is_some_and(|threads| threads >= 1.0));
    assert_eq!(scrape.value("tokio_blocking_queue_depth", &[]), Some(0.0));
    assert!(scrape
        .sum_of("tokio_worker_polls_total", &[])
        .is_some_and(|polls| polls >= 10.0));
    for name in [
        "tokio_idle_blocking_threads",
        "tokio_remote_schedules_total",
        "tokio_budget_forced_yields_total",
    ] {
        assert!(scrape.value(name, &[]).is_some(), "{name}");
    }
    for name in [
        "tokio_worker_local_queue_depth",
        "tokio_worker_steals_total",
        "tokio_worker_noops_total",
        "tokio_worker_overflows_total",
    ] {
        assert!(scrape.value(name, &[("worker", "1")]).is_some(), "{name}");
    }
}
