//! The threads a handler's encodes run on: a bounded pool, started one thread at a time as
//! encodes need them and kept, so each encode builds its body in a warm heap and a warm
//! scratch buffer (on a fresh thread per encode, the 64-engine vLLM scrape took 17% longer).
//!
//! Each (format, coding) pair has at most one encode at a time (its scrapes share it), so
//! encodes of different pairs are the only ones that can compete for the pool: up to its size
//! they run at once, past it they queue in arrival order. The threads end when the handler is
//! dropped.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use crate::sync::lock;

/// Work to run on another thread, handed to the pool.
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

/// A bounded pool of kept threads; dropping it lets its threads end once the queue is empty.
pub(crate) struct EncoderPool {
    inner: Arc<Inner>,
}

struct Inner {
    state: Mutex<State>,
    work: Condvar,
    /// The most threads the pool starts.
    limit: usize,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    /// Threads started and not ended.
    threads: usize,
    /// Threads waiting for a job.
    idle: usize,
    closed: bool,
}

impl EncoderPool {
    /// A pool of at most `limit` threads (at least one); none is started yet.
    pub(crate) fn new(limit: usize) -> Self {
        EncoderPool {
            inner: Arc::new(Inner {
                state: Mutex::new(State::default()),
                work: Condvar::new(),
                limit: limit.max(1),
            }),
        }
    }

    /// Queues `job`, starting a thread for it when every thread is busy and the pool is not
    /// full. When no thread can be started and none runs, `job` runs on this thread.
    pub(crate) fn run(&self, job: Job) {
        let inner = &self.inner;
        let mut state = lock(&inner.state);
        state.queue.push_back(job);
        if state.queue.len() <= state.idle || state.threads >= inner.limit {
            drop(state);
            inner.work.notify_one();
            return;
        }
        state.threads += 1;
        drop(state);
        let for_thread = Arc::clone(inner);
        let started = std::thread::Builder::new()
            .name("metrics-encode".to_owned())
            .spawn(move || for_thread.work());
        if started.is_ok() {
            return;
        }
        let mut state = lock(&inner.state);
        state.threads -= 1;
        if state.threads > 0 {
            // A running thread takes the job when it is done with its own.
            return;
        }
        let jobs = std::mem::take(&mut state.queue);
        drop(state);
        for job in jobs {
            job();
        }
    }
}

impl Drop for EncoderPool {
    fn drop(&mut self) {
        lock(&self.inner.state).closed = true;
        self.inner.work.notify_all();
    }
}

impl Inner {
    /// A pool thread: runs queued jobs until the pool is dropped and its queue is empty.
    fn work(&self) {
        let mut state = lock(&self.state);
        loop {
            if let Some(job) = state.queue.pop_front() {
                drop(state);
                // A job catches its encode's panic (see `Coalescer::join`); this catch only
                // keeps the thread count right should anything else in it panic.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                state = lock(&self.state);
                continue;
            }
            if state.closed {
                state.threads -= 1;
                return;
            }
            state.idle += 1;
            state = self
                .work
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
            state.idle -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    #[test]
    fn jobs_past_the_limit_queue_and_threads_are_kept() {
        let pool = EncoderPool::new(2);
        let (release, gate) = mpsc::channel::<()>();
        let gate = Arc::new(Mutex::new(gate));
        let (done, finished) = mpsc::channel();
        for i in 0..3 {
            let (gate, done) = (Arc::clone(&gate), done.clone());
            pool.run(Box::new(move || {
                if i < 2 {
                    lock(&gate).recv().unwrap();
                }
                done.send((i, std::thread::current().id())).unwrap();
            }));
        }
        // Two threads, both held: the third job waits for one of them.
        assert!(finished.recv_timeout(Duration::from_millis(100)).is_err());
        assert_eq!(lock(&pool.inner.state).threads, 2);
        release.send(()).unwrap();
        release.send(()).unwrap();
        let mut ran: Vec<_> = (0..3).map(|_| finished.recv().unwrap()).collect();
        ran.sort_by_key(|(i, _)| *i);
        assert!(ran[2].1 == ran[0].1 || ran[2].1 == ran[1].1);
        assert_eq!(lock(&pool.inner.state).threads, 2);
    }
}
