//! A warning that repeats per bad input (an output after its request finished) must not flood
//! the log when a frontend bug sends thousands: [`WarnLimiter`] lets one through per interval
//! and counts the ones it held back, for the next warning to report.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The shortest time between two warnings of one kind.
pub(crate) const WARN_INTERVAL: Duration = Duration::from_secs(10);

#[derive(Debug)]
pub(crate) struct WarnLimiter {
    epoch: Instant,
    /// Milliseconds since `epoch` before which no warning is let through.
    next_ms: AtomicU64,
    /// Warnings held back since the last one let through.
    suppressed: AtomicU64,
}

impl Default for WarnLimiter {
    fn default() -> Self {
        WarnLimiter {
            epoch: Instant::now(),
            next_ms: AtomicU64::new(0),
            suppressed: AtomicU64::new(0),
        }
    }
}

impl WarnLimiter {
    /// `Some(held back since the last warning)` when this warning may be logged now, `None`
    /// (and counted) otherwise. Lock-free: one warning wins a race, the others are counted.
    pub(crate) fn admit(&self) -> Option<u64> {
        let now = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        let next = self.next_ms.load(Ordering::Relaxed);
        let interval = u64::try_from(WARN_INTERVAL.as_millis()).unwrap_or(u64::MAX);
        if now >= next
            && self
                .next_ms
                .compare_exchange(
                    next,
                    now.saturating_add(interval),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_ok()
        {
            Some(self.suppressed.swap(0, Ordering::Relaxed))
        } else {
            self.suppressed.fetch_add(1, Ordering::Relaxed);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_warning_per_interval_and_the_rest_counted() {
        let limiter = WarnLimiter::default();
        assert_eq!(limiter.admit(), Some(0));
        for _ in 0..1000 {
            assert_eq!(limiter.admit(), None);
        }
        // Pretend the interval passed.
        limiter.next_ms.store(0, Ordering::Relaxed);
        assert_eq!(limiter.admit(), Some(1000));
    }
}
