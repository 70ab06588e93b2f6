use super::*;

use crate::testing::assert_finishes;

#[test]
fn engines_join_once_leave_and_rejoin() {
    let table: EngineTable<String> = EngineTable::new();
    let mut joins = 0;
    for _ in 0..3 {
        let e = table.get_or_join(3, || {
            joins += 1;
            "three".to_owned()
        });
        assert_eq!(&*e, "three");
    }
    assert_eq!(joins, 1);
    let far = table.get_or_join_arc(u32::MAX, || "far".to_owned());
    assert_eq!(*far, "far");
    assert_eq!(
        table.entries().iter().map(|(k, _)| *k).collect::<Vec<_>>(),
        [3, u32::MAX]
    );
    let mut left = Vec::new();
    assert!(table.remove(3, |e| left.push(e.clone())));
    assert!(!table.remove(3, |_| unreachable!()));
    assert_eq!(left, ["three"]);
    assert!(table.remove(u32::MAX, |_| {}));
    assert!(table.entries().is_empty());
    assert_eq!(&*table.get_or_join(3, || "again".to_owned()), "again");
}

#[test]
fn the_last_overflowed_engine_of_a_group_to_leave_runs_its_cleanup_once() {
    use OverflowGroup::{Derived, SleepState};

    let engines = OverflowedEngines::default();
    assert_eq!(engines.join(Derived, || ("a", true)), "a");
    engines.join(Derived, || ((), true));
    engines.join(Derived, || ((), false));
    engines.join(SleepState, || ((), true));
    let mut cleanups = Vec::new();
    engines.leave(|| [], |group| cleanups.push(group));
    engines.leave(|| [Derived], |group| cleanups.push(group));
    assert_eq!(cleanups, []);
    engines.leave(|| [Derived, SleepState], |group| cleanups.push(group));
    assert_eq!(cleanups, [Derived, SleepState]);
}

/// The interleaving that deadlocked: `resolve_for_engine` of an engine past the slots holds the
/// joins-and-leaves lock and checks that its engine is present, while another engine past the
/// slots joins (its join holds the table's membership lock, and waits for the joins-and-leaves
/// lock to resolve its series). The check must not wait for anything the join holds.
#[test]
fn a_resolution_past_the_slots_does_not_wait_for_a_join_past_the_slots() {
    use std::sync::mpsc::channel;

    use test_points::{on_reaching, TestPoint};

    use crate::vllm::{VllmMetrics, VllmMetricsConfig};

    let joining = ENGINE_SLOTS as u32;
    let resolved = joining + 1;
    let mut registry = crate::Registry::default();
    let metrics = VllmMetrics::register(&mut registry, VllmMetricsConfig::default());
    metrics.scheduler().add_engine(resolved);
    let in_thread = metrics.clone();
    assert_finishes(std::time::Duration::from_secs(20), move || {
        let metrics = &in_thread;
        let (resolver_holds_lock, lock_held) = channel();
        let (joiner_holds_table, join_started) = channel();
        std::thread::scope(|s| {
            s.spawn(move || {
                on_reaching(TestPoint::ResolveAboutToCheckPresence, move || {
                    resolver_holds_lock.send(()).expect("the test waits");
                    join_started
                        .recv()
                        .expect("the join reaches its resolution");
                });
                metrics.resolve_for_engine(resolved, |_, labels| labels.engine)
            });
            lock_held.recv().expect("the resolution takes the lock");
            s.spawn(move || {
                on_reaching(TestPoint::JoinAboutToResolve, move || {
                    joiner_holds_table.send(()).expect("the resolution waits");
                });
                metrics.scheduler().add_engine(joining);
            });
        });
    });
    let present: Vec<u32> = metrics
        .core()
        .engines
        .entries()
        .iter()
        .map(|(e, _)| *e)
        .collect();
    assert_eq!(present, [joining, resolved]);
}

/// The misuse the rustdoc of `resolve_for_engine` warns of: making an engine join from inside
/// the resolution takes the membership lock under the joins-and-leaves lock. Debug builds
/// refuse it at once, naming both locks, where it would otherwise wait forever.
#[cfg(debug_assertions)]
#[test]
fn a_join_inside_a_resolution_panics_naming_the_locks_instead_of_waiting_forever() {
    use std::panic::{catch_unwind, AssertUnwindSafe};

    use crate::vllm::{VllmMetrics, VllmMetricsConfig};

    let mut registry = crate::Registry::default();
    let metrics = VllmMetrics::register(&mut registry, VllmMetricsConfig::default());
    let in_thread = metrics.clone();
    assert_finishes(std::time::Duration::from_secs(20), move || {
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            in_thread.resolve_for_engine(0, |_, _| in_thread.scheduler().add_engine(1));
        }));
        let message = outcome.expect_err("refused");
        let message = message.downcast_ref::<String>().map(String::as_str);
        assert_eq!(
            message,
            Some(
                "lock order: taking the engine table's membership lock while holding the \
                 joins-and-leaves lock (see \"Lock order\" in vllm/engines)"
            )
        );
    });
    // Nothing was left locked: engines still join and leave.
    metrics.scheduler().add_engine(1);
    assert!(metrics.scheduler().remove_engine(1));
}

/// Once an engine past the slots has joined, recording into it (a scheduler step, a request)
/// takes no lock: it finishes while another thread holds both engine locks (a join or leave
/// of another engine under way).
#[test]
fn records_past_the_slots_take_no_lock_once_the_engine_has_joined() {
    use crate::vllm::request::{RequestOutput, RequestParams};
    use crate::vllm::scheduler::SchedulerStats;
    use crate::vllm::{VllmMetrics, VllmMetricsConfig};

    let engine = ENGINE_SLOTS as u32 + 44;
    let mut registry = crate::Registry::default();
    let metrics = VllmMetrics::register(&mut registry, VllmMetricsConfig::default());
    metrics.scheduler().add_engine(engine);
    let core = metrics.core();
    let _membership = core.engines.membership.lock();
    core.families.overflowed_engines.resolve(|| {
        let in_thread = metrics.clone();
        assert_finishes(std::time::Duration::from_secs(20), move || {
            let stats = SchedulerStats {
                num_running_reqs: 3,
                ..SchedulerStats::default()
            };
            in_thread.scheduler().record(engine, &stats);
            let mut request = in_thread.requests().track(engine, RequestParams::default());
            let output = RequestOutput {
                new_token_ids: vec![1, 2],
                ..RequestOutput::default()
            };
            request.observe_output(1.0, 1.0, &output);
        });
    });
}
