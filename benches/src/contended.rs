//! Timing `T` threads that record into the same series.
//!
//! criterion times one thread; contention needs several. `time_contended` is meant for
//! `Bencher::iter_custom`: every thread runs the same `iters` operations, all released at once
//! by a barrier, and the figure is the slowest thread's elapsed time. Thread start-up and
//! join happen outside the timed region. Divided by `iters` (criterion does that), the figure
//! is the wall time per operation of one thread while `T - 1` others do the same.

use std::sync::Barrier;
use std::time::{Duration, Instant};

/// The thread count of the contended benchmarks: `BENCH_THREADS`, default 2 (the machine the
/// targets were set on has 2 cores). Values below 2 are raised to 2: one thread is not
/// contention.
pub fn threads() -> usize {
    std::env::var("BENCH_THREADS")
        .ok()
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(2)
        .max(2)
}

/// Runs `work(thread, iters)` on `threads` threads at once (`thread` in `0..threads`) and
/// returns the slowest thread's time.
pub fn time_contended<F>(threads: usize, iters: u64, work: F) -> Duration
where
    F: Fn(usize, u64) + Sync,
{
    let barrier = Barrier::new(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|thread| {
                let (barrier, work) = (&barrier, &work);
                scope.spawn(move || {
                    barrier.wait();
                    let start = Instant::now();
                    work(thread, iters);
                    start.elapsed()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap_or_default())
            .max()
            .unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn every_thread_runs_every_iteration() {
        let count = AtomicU64::new(0);
        time_contended(3, 1000, |_, iters| {
            for _ in 0..iters {
                count.fetch_add(1, Ordering::Relaxed);
            }
        });
        assert_eq!(count.load(Ordering::Relaxed), 3000);
    }
}
