//! Timing a span of code into a histogram: a guard that observes the elapsed seconds exactly
//! once, when it is dropped or stopped.
//!
//! ```
//! use metric_handles::Histogram;
//!
//! let step = Histogram::new([0.001, 0.01, 0.1]);
//! {
//!     let _timer = step.start_timer();
//!     // ... the work being timed ...
//! } // dropped: the elapsed seconds are observed
//! assert_eq!(step.snapshot().count(), 1);
//!
//! // Stopped early: observed now, and the elapsed seconds returned.
//! let timer = step.start_timer();
//! let seconds = timer.observe_duration();
//! assert!(seconds >= 0.0);
//! assert_eq!(step.snapshot().count(), 2);
//!
//! // A span that must not count (a failed attempt, say) is discarded, explicitly.
//! step.start_timer().discard();
//! assert_eq!(step.snapshot().count(), 2);
//!
//! // On a request-local view, the observation waits in its buffer like any other.
//! let mut local = step.local();
//! local.start_timer().observe_duration();
//! assert_eq!(local.pending(), 1);
//! ```
//!
//! The clock is [`Instant`], which is monotonic: a wall-clock step (NTP, a manual change) can
//! neither make a duration negative nor inflate it. A timer holds a borrow of what it observes
//! into and its start instant; starting and stopping one allocates nothing, and the observation
//! is the target's own `observe` (lock-free on a shared [`Histogram`], plain arithmetic on a
//! [`LocalHistogram`]).

use std::fmt;
use std::time::Instant;

use crate::histogram::Histogram;
use crate::local::LocalHistogram;

/// What a [`Timer`] observes into: a shared [`Histogram`] (by reference, or an owned clone that
/// can move into a task) or a request-local [`LocalHistogram`] view.
pub trait TimerTarget {
    /// Records one duration, in seconds.
    fn observe_seconds(&mut self, seconds: f64);
}

impl TimerTarget for &Histogram {
    #[inline]
    fn observe_seconds(&mut self, seconds: f64) {
        self.observe(seconds);
    }
}

impl TimerTarget for Histogram {
    #[inline]
    fn observe_seconds(&mut self, seconds: f64) {
        self.observe(seconds);
    }
}

impl TimerTarget for &mut LocalHistogram {
    #[inline]
    fn observe_seconds(&mut self, seconds: f64) {
        self.observe(seconds);
    }
}

/// A running timer: observes the seconds since it started into its target once, when dropped
/// or when [`observe_duration`](Self::observe_duration) stops it. [`discard`](Self::discard)
/// stops it without observing.
///
/// Obtained with [`Histogram::start_timer`], [`LocalHistogram::start_timer`] or
/// [`Timer::start`] (any [`TimerTarget`], such as an owned [`Histogram`] clone).
#[must_use = "a timer observes when it is dropped: bind it (`let _timer = ...`), since `let _ = ...` drops it at once"]
pub struct Timer<T: TimerTarget> {
    /// `None` once the timer has observed or been discarded, so it never observes twice.
    target: Option<T>,
    start: Instant,
}

impl<T: TimerTarget> Timer<T> {
    /// Starts a timer that will observe into `target`.
    #[inline]
    pub fn start(target: T) -> Self {
        Timer {
            target: Some(target),
            start: Instant::now(),
        }
    }

    /// The seconds elapsed since the timer started, without stopping it.
    pub fn elapsed_seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// Stops the timer and observes the elapsed seconds now; returns them.
    #[inline]
    pub fn observe_duration(mut self) -> f64 {
        let seconds = self.elapsed_seconds();
        if let Some(mut target) = self.target.take() {
            target.observe_seconds(seconds);
        }
        seconds
    }

    /// Stops the timer without observing anything; returns the elapsed seconds (for a log
    /// line, say).
    pub fn discard(mut self) -> f64 {
        self.target = None;
        self.elapsed_seconds()
    }
}

impl<T: TimerTarget> Drop for Timer<T> {
    #[inline]
    fn drop(&mut self) {
        if let Some(mut target) = self.target.take() {
            target.observe_seconds(self.start.elapsed().as_secs_f64());
        }
    }
}

impl<T: TimerTarget> fmt::Debug for Timer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timer")
            .field("elapsed_seconds", &self.elapsed_seconds())
            .field("running", &self.target.is_some())
            .finish()
    }
}

impl Histogram {
    /// Starts a [`Timer`] that observes the elapsed seconds into this histogram when it is
    /// dropped or stopped.
    #[inline]
    pub fn start_timer(&self) -> Timer<&Histogram> {
        Timer::start(self)
    }
}

impl LocalHistogram {
    /// Starts a [`Timer`] that observes the elapsed seconds into this view (its buffer, merged
    /// as the view's other records are) when it is dropped or stopped.
    #[inline]
    pub fn start_timer(&mut self) -> Timer<&mut LocalHistogram> {
        Timer::start(self)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::Timer;
    use crate::histogram::Histogram;

    #[test]
    fn a_timer_observes_once_whichever_way_it_ends() {
        let histogram = Histogram::new([0.5, 5.0]);
        drop(histogram.start_timer());
        histogram.start_timer().observe_duration();
        assert_eq!(histogram.snapshot().count(), 2, "drop, then stop: one each");
        histogram.start_timer().discard();
        assert_eq!(
            histogram.snapshot().count(),
            2,
            "a discarded timer observes nothing"
        );
    }

    #[test]
    fn the_observation_is_the_elapsed_time_on_a_monotonic_clock() {
        let histogram = Histogram::new([0.005, 10.0]);
        let timer = histogram.start_timer();
        std::thread::sleep(Duration::from_millis(20));
        let seconds = timer.observe_duration();
        // Sleep lasts at least as long as asked; how much longer depends on the machine, so
        // only the lower bound is asserted.
        assert!(seconds >= 0.02, "{seconds}");
        let snapshot = histogram.snapshot();
        assert_eq!(snapshot.bucket_counts(), &[0, 1, 0]);
        assert_eq!(snapshot.sum(), seconds);
    }

    #[test]
    fn an_owned_clone_times_a_span_that_moves_to_another_thread() {
        let histogram = Histogram::new([1.0]);
        let timer = Timer::start(histogram.clone());
        std::thread::spawn(move || drop(timer))
            .join()
            .expect("the timing thread finishes");
        assert_eq!(histogram.snapshot().count(), 1);
    }

    #[test]
    fn a_local_views_timer_observes_into_its_buffer() {
        let histogram = Histogram::new([1.0]);
        let mut local = histogram.local();
        drop(local.start_timer());
        local.start_timer().discard();
        assert_eq!(local.pending(), 1);
        assert_eq!(histogram.snapshot().count(), 0, "not merged yet");
        drop(local);
        assert_eq!(histogram.snapshot().count(), 1);
    }
}
