//! Coalescing concurrent scrapes: while one encode of a (format, coding) runs, every scrape
//! that asks for the same waits for it and is answered with its body, so a hundred scrapes
//! arriving together cost one encode (client_golang 1.24's `CoalesceGather` does the same for
//! its gather step). A scrape that arrives after the encode finished starts a new one: a body
//! is never served twice, each is as fresh as the scrape that started it.
//!
//! The encode runs on a thread of its own (a blocking-pool thread under tokio), never on the
//! thread of a waiting scrape, so a scrape that gives up (its timeout passed) loses nothing:
//! the encode goes on and answers those still waiting.

#[cfg(feature = "http-layer")]
use std::future::Future;
#[cfg(feature = "http-layer")]
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex};
use std::task::Waker;
#[cfg(feature = "http-layer")]
use std::task::{Context, Poll};
use std::time::Instant;

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

    /// Blocks until the encode is done or `deadline` passes (`None` then).
    pub(crate) fn wait_until(&self, deadline: Option<Instant>) -> Option<Outcome> {
        let mut state = lock(&self.state);
        loop {
            if let Some(outcome) = &state.outcome {
                return Some(outcome.clone());
            }
            state = match deadline {
                None => self
                    .finished
                    .wait(state)
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
                Some(deadline) => {
                    let left = deadline.checked_duration_since(Instant::now())?;
                    self.finished
                        .wait_timeout(state, left)
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .0
                }
            };
        }
    }

    /// A future that resolves when the encode is done.
    #[cfg(feature = "http-layer")]
    pub(crate) fn wait(self: Arc<Self>) -> CycleWait {
        CycleWait { cycle: self }
    }
}

/// The future of [`Cycle::wait`].
#[cfg(feature = "http-layer")]
pub(crate) struct CycleWait {
    cycle: Arc<Cycle>,
}

#[cfg(feature = "http-layer")]
impl Future for CycleWait {
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

/// The encode in progress for each key, if any.
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

/// Work to run on another thread, handed to a spawner.
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

impl<const KEYS: usize> Coalescer<KEYS> {
    /// Joins the encode running for `key`, or starts one: `spawn` is given a job that runs
    /// `encode` and answers every scrape that joined. Returns the cycle to wait on.
    pub(crate) fn join(
        self: &Arc<Self>,
        key: usize,
        encode: impl FnOnce() -> Result<Vec<u8>, EncodeFailure> + Send + 'static,
        spawn: impl FnOnce(Job),
    ) -> Arc<Cycle> {
        let mut running = lock(&self.running[key]);
        if let Some(cycle) = &*running {
            return cycle.clone();
        }
        let cycle = Arc::new(Cycle::default());
        *running = Some(cycle.clone());
        drop(running);
        let coalescer = Arc::clone(self);
        let job_cycle = cycle.clone();
        spawn(Box::new(move || {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(encode))
                .unwrap_or_else(|panic| Err(EncodeFailure::Panicked(panic_message(&*panic))));
            // Later scrapes start a new encode from here on: this body is not served to them.
            let mut running = lock(&coalescer.running[key]);
            if running.as_ref().is_some_and(|c| Arc::ptr_eq(c, &job_cycle)) {
                *running = None;
            }
            drop(running);
            job_cycle.finish(Arc::new(outcome));
        }));
        cycle
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a collector panicked".to_owned())
}

/// The thread a handler's encodes run on: started with the first encode and kept, so each
/// encode builds its body in a warm heap (on a fresh thread per encode, the 64-engine vLLM
/// scrape took 17% longer). Encodes of different formats queue on it; each format's scrapes
/// share one encode anyway. It ends when the handler is dropped.
#[derive(Default)]
pub(crate) struct EncoderThread {
    jobs: Mutex<Option<std::sync::mpsc::Sender<Job>>>,
}

impl EncoderThread {
    /// Runs `job` on the encoder thread, or on a thread of its own when that cannot be started.
    pub(crate) fn run(&self, job: Job) {
        let mut jobs = lock(&self.jobs);
        if jobs.is_none() {
            *jobs = start_encoder_thread();
        }
        let job = match &*jobs {
            Some(sender) => match sender.send(job) {
                Ok(()) => return,
                Err(std::sync::mpsc::SendError(job)) => {
                    *jobs = None;
                    job
                }
            },
            None => job,
        };
        drop(jobs);
        spawn_thread(job);
    }
}

fn start_encoder_thread() -> Option<std::sync::mpsc::Sender<Job>> {
    let (sender, receiver) = std::sync::mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("metrics-encode".to_owned())
        .spawn(move || {
            // A job catches its encode's panic (see `Coalescer::join`): the loop never unwinds.
            for job in receiver {
                job();
            }
        })
        .ok()
        .map(|_| sender)
}

/// Runs `job` on a new thread, or on this one when no thread can be started.
pub(crate) fn spawn_thread(job: Job) {
    let job = Arc::new(Mutex::new(Some(job)));
    let for_thread = Arc::clone(&job);
    let started = std::thread::Builder::new()
        .name("metrics-encode".to_owned())
        .spawn(move || {
            if let Some(job) = lock(&for_thread).take() {
                job();
            }
        });
    if started.is_err() {
        if let Some(job) = lock(&job).take() {
            job();
        }
    }
}
