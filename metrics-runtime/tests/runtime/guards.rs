//! The in-flight and outcome guards end exactly once, whichever way the work they guard ends:
//! finished, dropped unfinished mid-`await` (the future cancelled), or unwound by a panic.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use metric_handles::axis::OutcomeGuard;
use metric_handles::gauge::{InFlightGauge, InFlightGuard};
use metric_handles::{
    ByLabel, Counter, ExpositionFormat, Family, Gauge, LabelEnum, MetricHandles, NoLabels, Registry,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "lowercase")]
pub enum Outcome {
    Ok,
    Error,
    Cancelled,
}

#[derive(Debug, MetricHandles)]
#[metric_handles(handles = RequestHandles)]
pub struct RequestMetrics {
    /// Requests being served
    #[metric(name = "requests_in_flight")]
    pub in_flight: Family<NoLabels, Gauge>,
    /// Requests by how they ended
    #[metric(name = "requests", label = "outcome")]
    pub outcomes: Family<NoLabels, ByLabel<Outcome, Counter>>,
}

fn handles() -> (Registry, RequestHandles) {
    let mut registry = Registry::default();
    let handles = RequestMetrics::register(&mut registry).resolve(&NoLabels);
    // A start value other than zero, so that "back where it was" is not "back to the default".
    handles.in_flight.set(3);
    (registry, handles)
}

/// The count of every outcome, in declaration order.
fn outcomes(handles: &RequestHandles) -> Vec<u64> {
    handles.outcomes.iter().map(|(_, c)| c.get()).collect()
}

/// A request as a server writes it: in flight while it runs, its outcome counted once.
async fn serve(handles: &RequestHandles, step: impl Future<Output = Result<(), ()>>) {
    let _in_flight = handles.in_flight.track_in_flight();
    let outcome = handles.outcomes.outcome_guard(Outcome::Cancelled);
    match step.await {
        Ok(()) => outcome.finish(Outcome::Ok),
        Err(()) => outcome.finish(Outcome::Error),
    }
}

/// A step that is pending on its first poll (the request is mid-`await`), ready on the next.
struct PendingOnce(bool);

impl Future for PendingOnce {
    type Output = Result<(), ()>;

    fn poll(mut self: std::pin::Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Self::Output> {
        if std::mem::replace(&mut self.0, true) {
            Poll::Ready(Ok(()))
        } else {
            Poll::Pending
        }
    }
}

#[test]
fn a_request_future_dropped_mid_await_restores_the_gauge_and_counts_the_default_once() {
    let (registry, handles) = handles();
    {
        let mut request = pin!(serve(&handles, PendingOnce(false)));
        let mut cx = Context::from_waker(Waker::noop());
        assert!(request.as_mut().poll(&mut cx).is_pending());
        assert_eq!(handles.in_flight.get(), 4, "in flight while it awaits");
        assert_eq!(outcomes(&handles), [0, 0, 0], "nothing counted yet");
    } // the client went away: the future is dropped unfinished
    assert_eq!(handles.in_flight.get(), 3);
    assert_eq!(outcomes(&handles), [0, 0, 1]);
    let text = ExpositionFormat::PrometheusText
        .encode(&registry)
        .expect("encodes");
    assert!(text.contains("requests_in_flight 3\n"), "{text}");
    assert!(
        text.contains("requests_total{outcome=\"cancelled\"} 1\n"),
        "{text}"
    );
}

#[test]
fn a_panic_inside_restores_the_gauge_and_counts_the_default_once() {
    let (_registry, handles) = handles();
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        let _in_flight = InFlightGuard::new(&handles.in_flight);
        let _outcome = OutcomeGuard::new(&handles.outcomes, Outcome::Error);
        assert_eq!(handles.in_flight.get(), 4);
        panic!("the handler failed");
    }));
    assert!(panicked.is_err());
    assert_eq!(handles.in_flight.get(), 3);
    assert_eq!(outcomes(&handles), [0, 1, 0]);
}

#[test]
fn finish_counts_the_given_outcome_once_and_discard_counts_none() {
    let (_registry, handles) = handles();
    let mut cx = Context::from_waker(Waker::noop());
    let mut request = pin!(serve(&handles, PendingOnce(false)));
    assert!(request.as_mut().poll(&mut cx).is_pending());
    assert!(request.as_mut().poll(&mut cx).is_ready());
    assert_eq!(handles.in_flight.get(), 3);
    assert_eq!(outcomes(&handles), [1, 0, 0], "ok once, never cancelled");

    let failed = pin!(serve(&handles, std::future::ready(Err(()))));
    assert!(failed.poll(&mut cx).is_ready());
    assert_eq!(outcomes(&handles), [1, 1, 0]);

    handles.outcomes.outcome_guard(Outcome::Cancelled).discard();
    assert_eq!(outcomes(&handles), [1, 1, 0]);
}

#[test]
fn owned_guards_move_to_another_thread() {
    let (_registry, handles) = handles();
    let in_flight = InFlightGuard::new(handles.in_flight.clone());
    let outcome = OutcomeGuard::new(handles.outcomes.clone(), Outcome::Cancelled);
    assert_eq!(handles.in_flight.get(), 4);
    std::thread::spawn(move || {
        outcome.finish(Outcome::Ok);
        drop(in_flight);
    })
    .join()
    .expect("the task finishes");
    assert_eq!(handles.in_flight.get(), 3);
    assert_eq!(outcomes(&handles), [1, 0, 0]);
}
