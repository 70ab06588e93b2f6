//! Coalescing concurrent scrapes: while one encode of a (format, coding) runs, every scrape
//! that asks for the same waits for it and is answered with its body, so a hundred scrapes
//! arriving together cost one encode (client_golang 1.24's `CoalesceGather` does the same for
//! its gather step). A scrape that arrives after the encode finished starts a new one: a body
//! is never served twice, each is as fresh as the scrape that started it.
//!
//! The encode runs on one of the handler's pool threads (`pool.rs`), never on the thread of a
//! waiting scrape, so a scrape that gives up (its timeout passed) loses nothing: the encode
//! goes on and answers those still waiting. Each scrape holds a [`Waiter`] while it waits; an
//! encode that is still queued when the last of its waiters has gone is skipped (an encode
//! that has started runs to its end: a collector cannot be stopped halfway).

#[cfg(feature = "http-layer")]
use std::future::Future;
#[cfg(feature = "http-layer")]
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::task::Waker;
#[cfg(feature = "http-layer")]
use std::task::{Context, Poll};
use std::time::Instant;

use super::pool::Job;
use crate::sync::lock;

/// What one encode produced: the body, or why there is none.
pub(crate) type Outcome = Arc<Result<Vec<u8>, EncodeFailure>>;

/// Why an encode produced no body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum EncodeFailure {
    /// The registry's encoder (a collector, a metric) returned an error.
    Encoding(String),
    /// A collector or metric panicked while being encoded.
    Panicked(String),
}

/// One encode and the scrapes waiting for it.
#[derive(Default)]
pub(crate) struct Cycle {
    state: Mutex<CycleState>,
    finished: Condvar,
    /// The [`Waiter`]s alive: raised under the coalescer's slot lock, so an encode that reads
    /// zero there knows no scrape can join it any more.
    waiters: AtomicUsize,
}

#[derive(Default)]
struct CycleState {
    outcome: Option<Outcome>,
    wakers: Vec<Waker>,
}

impl Cycle {
    fn finish(&self, outcome: Outcome) {
        let wakers = {
            let mut state = lock(&self.state);
            state.outcome = Some(outcome);
            std::mem::take(&mut state.wakers)
        };
        self.finished.notify_all();
        for waker in wakers {
            waker.wake();
        }
    }
}

/// A scrape's share of an encode: while any is alive the encode is wanted. Dropping it (the
/// scrape answered, timed out, or its future dropped) gives the scrape's claim up.
pub(crate) struct Waiter {
    cycle: Arc<Cycle>,
}

impl Waiter {
    /// Blocks until the encode is done or `deadline` passes (`None` then).
    pub(crate) fn wait_until(&self, deadline: Option<Instant>) -> Option<Outcome> {
        let mut state = lock(&self.cycle.state);
        loop {
            if let Some(outcome) = &state.outcome {
                return Some(outcome.clone());
            }
            state = match deadline {
                None => self
                    .cycle
                    .finished
                    .wait(state)
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
                Some(deadline) => {
                    let left = deadline.checked_duration_since(Instant::now())?;
                    self.cycle
                        .finished
                        .wait_timeout(state, left)
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .0
                }
            };
        }
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        self.cycle.waiters.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A future that resolves when the encode is done: a [`Waiter`] polled.
#[cfg(feature = "http-layer")]
impl Future for Waiter {
    type Output = Outcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        let mut state = lock(&self.cycle.state);
        if let Some(outcome) = &state.outcome {
            return Poll::Ready(outcome.clone());
        }
        if !state.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            state.wakers.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

/// The encode in progress (queued or running) for each key, if any.
pub(crate) struct Coalescer<const KEYS: usize> {
    running: [Mutex<Option<Arc<Cycle>>>; KEYS],
}

impl<const KEYS: usize> Default for Coalescer<KEYS> {
    fn default() -> Self {
        Coalescer {
            running: std::array::from_fn(|_| Mutex::new(None)),
        }
    }
}

impl<const KEYS: usize> Coalescer<KEYS> {
    /// Joins the encode queued or running for `key`, or starts one: `spawn` is given a job
    /// that runs `encode` and answers every scrape that joined, or, when every scrape has
    /// given up before it starts, does nothing. Returns this scrape's claim on the encode.
    pub(crate) fn join(
        self: &Arc<Self>,
        key: usize,
        encode: impl FnOnce() -> Result<Vec<u8>, EncodeFailure> + Send + 'static,
        spawn: impl FnOnce(Job),
    ) -> Waiter {
        let mut running = lock(&self.running[key]);
        if let Some(cycle) = &*running {
            cycle.waiters.fetch_add(1, Ordering::AcqRel);
            return Waiter {
                cycle: cycle.clone(),
            };
        }
        let cycle = Arc::new(Cycle {
            waiters: AtomicUsize::new(1),
            ..Cycle::default()
        });
        *running = Some(cycle.clone());
        drop(running);
        let coalescer = Arc::clone(self);
        let job_cycle = cycle.clone();
        spawn(Box::new(move || {
            if coalescer.abandoned(key, &job_cycle) {
                return;
            }
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(encode))
                .unwrap_or_else(|panic| Err(EncodeFailure::Panicked(panic_message(&*panic))));
            // Later scrapes start a new encode from here on: this body is not served to them.
            coalescer.release(key, &job_cycle);
            job_cycle.finish(Arc::new(outcome));
        }));
        Waiter { cycle }
    }

    /// Whether every scrape waiting for `cycle` has gone; if so, frees `key` for the next
    /// scrape, which starts an encode of its own.
    fn abandoned(&self, key: usize, cycle: &Arc<Cycle>) -> bool {
        let mut running = lock(&self.running[key]);
        // Joins raise the count under this lock: zero here stays zero.
        if cycle.waiters.load(Ordering::Acquire) > 0 {
            return false;
        }
        if running.as_ref().is_some_and(|c| Arc::ptr_eq(c, cycle)) {
            *running = None;
        }
        true
    }

    /// Frees `key` if `cycle` still holds it.
    fn release(&self, key: usize, cycle: &Arc<Cycle>) {
        let mut running = lock(&self.running[key]);
        if running.as_ref().is_some_and(|c| Arc::ptr_eq(c, cycle)) {
            *running = None;
        }
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a collector panicked".to_owned())
}
