//! The periodic log line and the records of ignored or adjusted input (outputs and finishes
//! after the finish, an empty or truncated model name) are emitted through `tracing`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::vllm::*;
use metric_handles::vllm::request::{FinishReason, RequestParams};
use metric_handles::vllm::scheduler::SchedulerStats;
use metric_handles::vllm::StatsLogger;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// Runs `body` with a subscriber collecting every event; returns what `body` returned and the
/// `(level, message)` of each event, in order.
fn collecting_events<T>(body: impl FnOnce() -> T) -> (T, Vec<(Level, String)>) {
    let collect = Collect::default();
    let events = Arc::clone(&collect.0);
    let value = tracing::subscriber::with_default(collect, body);
    let events = std::mem::take(&mut *events.lock().expect("not poisoned"));
    (value, events)
}

/// Collects `(level, message)` of every event.
#[derive(Clone, Default)]
struct Collect(Arc<Mutex<Vec<(Level, String)>>>);

struct Message(String);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

impl Subscriber for Collect {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut message = Message(String::new());
        event.record(&mut message);
        self.0
            .lock()
            .expect("not poisoned")
            .push((*event.metadata().level(), message.0));
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

#[test]
fn the_log_line_and_ignored_outputs_are_logged() {
    let (line, events) = collecting_events(|| {
        let (_registry, metrics) = setup_default();
        metrics.scheduler().record(
            1,
            &SchedulerStats {
                num_running_reqs: 2,
                ..SchedulerStats::default()
            },
        );
        let mut logger = StatsLogger::new(&metrics, Duration::from_secs(10));
        let line = logger.log(Instant::now());

        let mut t = metrics.requests().track(1, RequestParams::default());
        t.observe_output(1.0, 1.0, &finishing(tokens(1), FinishReason::Stop));
        t.observe_output(2.0, 2.0, &tokens(1));
        line
    });
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0], (Level::INFO, line.to_string()));
    assert!(events[0].1.contains("Running: 2 reqs"), "{events:?}");
    assert_eq!(events[1].0, Level::WARN);
    assert!(
        events[1].1.contains("after the request finished"),
        "{events:?}"
    );
}

#[test]
fn a_second_finish_and_a_bad_model_name_are_logged() {
    let ((), events) = collecting_events(|| {
        let long = "m".repeat(metric_handles::vllm::MAX_MODEL_NAME_LEN + 1);
        for model_name in [String::new(), long] {
            let _ = setup(metric_handles::vllm::VllmMetricsConfig {
                model_name,
                ..Default::default()
            });
        }
        let (_registry, metrics) = setup_default();
        let mut t = metrics.requests().track(0, RequestParams::default());
        t.finish(FinishReason::Stop, 1.0);
        t.abort(2.0);
    });
    let levels: Vec<Level> = events.iter().map(|(level, _)| *level).collect();
    assert_eq!(
        levels,
        [Level::WARN, Level::WARN, Level::DEBUG],
        "{events:?}"
    );
    assert!(events[0].1.contains("empty model name"), "{events:?}");
    assert!(events[1].1.contains("truncated"), "{events:?}");
    assert!(events[2].1.contains("finished again"), "{events:?}");
}

#[test]
fn a_flood_of_ignored_outputs_logs_one_warning_and_counts_them_all() {
    let (ignored, events) = collecting_events(|| {
        let (_registry, metrics) = setup_default();
        let mut t = metrics.requests().track(0, RequestParams::default());
        t.observe_output(1.0, 1.0, &finishing(tokens(1), FinishReason::Stop));
        for i in 0..10_000 {
            t.observe_output(2.0 + f64::from(i), 2.0, &tokens(1));
        }
        metrics.requests().ignored_outputs()
    });
    assert_eq!(ignored, 10_000);
    let warnings = events.iter().filter(|(l, _)| *l == Level::WARN).count();
    assert_eq!(warnings, 1, "{} events", events.len());
}
