//! The calling thread's CPU clock: what the benchmarks of recording beside a scrape or an
//! export measure, so that on a 2-core machine the sharing of cores is not what they time.

/// Nanoseconds the calling thread has spent on a CPU (its CPU clock, at nanosecond
/// resolution: `/proc/thread-self/schedstat` advances only at scheduler ticks, too coarse for
/// criterion's shortest samples).
pub fn thread_cpu_ns() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable `timespec`; the clock id is a constant Linux defines.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    if status != 0 {
        return 0;
    }
    now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64
}
