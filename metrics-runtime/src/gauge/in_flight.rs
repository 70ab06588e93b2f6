//! Counting work in progress in a gauge: a guard that adds one when it is made and takes the one
//! away exactly once, when it is dropped.
//!
//! `gauge.inc()` ... `gauge.dec()` written by hand leaks one for good whenever the code between
//! them returns early, panics, or is an `async` block whose future is dropped (a client that
//! went away, a `select!` that chose another branch, a timeout). A guard's `Drop` runs in every
//! one of those cases, and only once:
//!
//! ```
//! use metric_handles::Gauge;
//! use metric_handles::gauge::InFlightGauge;
//!
//! let in_flight: Gauge = Gauge::default();
//! {
//!     let _in_flight = in_flight.track_in_flight(); // +1
//!     assert_eq!(in_flight.get(), 1);
//!     // ... the work; an early return, a panic or a cancellation ends here too ...
//! } // -1
//! assert_eq!(in_flight.get(), 0);
//!
//! // An owned clone (one reference count, no allocation) for a guard that moves into a task.
//! let guard = metric_handles::gauge::InFlightGuard::new(in_flight.clone());
//! std::thread::spawn(move || drop(guard)).join().unwrap();
//! assert_eq!(in_flight.get(), 0);
//! ```
//!
//! Making and dropping a guard is two atomic adds on the gauge; it allocates nothing.

use std::fmt;

use prometheus_client::metrics::gauge::Atomic;

use prometheus_client::metrics::gauge::Gauge;

/// A gauge an [`InFlightGuard`] counts in: any [`Gauge`] (`i64`, `u64` or `f64`), by reference
/// or as an owned clone. Import it for [`track_in_flight`](Self::track_in_flight).
pub trait InFlightGauge {
    /// Adds one.
    fn enter(&self);

    /// Takes one away.
    fn leave(&self);

    /// Adds one now and returns the guard that takes it away when dropped.
    #[inline]
    fn track_in_flight(&self) -> InFlightGuard<&Self>
    where
        Self: Sized,
    {
        InFlightGuard::new(self)
    }
}

impl<N, A: Atomic<N>> InFlightGauge for Gauge<N, A> {
    #[inline]
    fn enter(&self) {
        self.inc();
    }

    #[inline]
    fn leave(&self) {
        self.dec();
    }
}

impl<T: InFlightGauge + ?Sized> InFlightGauge for &T {
    #[inline]
    fn enter(&self) {
        (**self).enter();
    }

    #[inline]
    fn leave(&self) {
        (**self).leave();
    }
}

/// One unit of work in progress, counted in a gauge: the gauge went up by one when the guard
/// was made ([`InFlightGuard::new`], [`InFlightGauge::track_in_flight`]) and goes down by one
/// when it is dropped, whichever way the scope ends (return, `?`, panic, or the future holding
/// it dropped unfinished). It cannot be ended twice: only its `Drop` ends it.
#[must_use = "the gauge goes back down when the guard is dropped: bind it (`let _in_flight = ...`), since `let _ = ...` drops it at once"]
pub struct InFlightGuard<G: InFlightGauge> {
    gauge: G,
}

impl<G: InFlightGauge> InFlightGuard<G> {
    /// Adds one to `gauge` now; the guard takes it away when dropped.
    #[inline]
    pub fn new(gauge: G) -> Self {
        gauge.enter();
        InFlightGuard { gauge }
    }
}

impl<G: InFlightGauge> Drop for InFlightGuard<G> {
    #[inline]
    fn drop(&mut self) {
        self.gauge.leave();
    }
}

impl<G: InFlightGauge> fmt::Debug for InFlightGuard<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InFlightGuard").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU64;

    use super::*;

    #[test]
    fn each_guard_adds_one_and_takes_it_away_once() {
        let gauge: Gauge = Gauge::default();
        gauge.set(5);
        let first = gauge.track_in_flight();
        let second = InFlightGuard::new(gauge.clone());
        assert_eq!(gauge.get(), 7);
        drop(first);
        assert_eq!(gauge.get(), 6);
        drop(second);
        assert_eq!(gauge.get(), 5);
    }

    #[test]
    fn a_float_gauge_counts_whole_units() {
        let gauge = Gauge::<f64, AtomicU64>::default();
        let guard = gauge.track_in_flight();
        assert_eq!(gauge.get(), 1.0);
        drop(guard);
        assert_eq!(gauge.get(), 0.0);
    }
}
