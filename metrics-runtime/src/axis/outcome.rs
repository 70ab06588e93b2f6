//! Counting how a unit of work ended, once, even when it never says: a guard over an enum axis
//! of counters ([`ByLabel<E, Counter>`]) that counts the outcome it is given with
//! [`finish`](OutcomeGuard::finish), or, dropped unfinished (an early return, a panic, the
//! future holding it dropped by a client that went away or a timeout), the outcome named when
//! it was made.
//!
//! ```
//! use metric_handles::{ByLabel, Counter, Family, LabelEnum, MetricHandles, NoLabels, Registry};
//!
//! #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
//! #[label(rename_all = "lowercase")]
//! pub enum Outcome {
//!     Ok,
//!     Error,
//!     Cancelled,
//! }
//!
//! #[derive(MetricHandles)]
//! pub struct Jobs {
//!     /// Jobs by how they ended
//!     #[metric(name = "jobs", label = "outcome")]
//!     pub outcomes: Family<NoLabels, ByLabel<Outcome, Counter>>,
//! }
//!
//! let mut registry = Registry::default();
//! let outcomes = Jobs::register(&mut registry).outcomes.get_or_create(&NoLabels);
//!
//! let job = outcomes.outcome_guard(Outcome::Cancelled);
//! job.finish(Outcome::Ok); // counted as `ok`, once
//! drop(outcomes.outcome_guard(Outcome::Cancelled)); // never finished: counted as `cancelled`
//! assert_eq!(outcomes.get(Outcome::Ok).get(), 1);
//! assert_eq!(outcomes.get(Outcome::Cancelled).get(), 1);
//! ```
//!
//! Every outcome's series is resolved with the axis, so counting one is an array index and an
//! atomic add: no lookup, no lock, no allocation.

use std::fmt;

use crate::axis::ByLabel;
use crate::counter::Counter;
use crate::labels::LabelEnum;

/// What an [`OutcomeGuard`] counts in: one counter per outcome. Implemented by
/// [`ByLabel<E, Counter>`], by reference or as an owned clone.
pub trait OutcomeCounters {
    /// The outcomes: the enum axis' label type.
    type Outcome: LabelEnum;

    /// Counts one `outcome`.
    fn count(&self, outcome: Self::Outcome);
}

impl<E: LabelEnum> OutcomeCounters for ByLabel<E, Counter> {
    type Outcome = E;

    #[inline]
    fn count(&self, outcome: E) {
        self.get(outcome).inc();
    }
}

impl<T: OutcomeCounters + ?Sized> OutcomeCounters for &T {
    type Outcome = T::Outcome;

    #[inline]
    fn count(&self, outcome: T::Outcome) {
        (**self).count(outcome);
    }
}

impl<E: LabelEnum> ByLabel<E, Counter> {
    /// A guard that counts one outcome of this axis: the one given to
    /// [`finish`](OutcomeGuard::finish), or `on_drop` if it is dropped unfinished.
    #[inline]
    pub fn outcome_guard(&self, on_drop: E) -> OutcomeGuard<&Self> {
        OutcomeGuard::new(self, on_drop)
    }
}

/// A unit of work whose outcome will be counted exactly once: by
/// [`finish`](Self::finish), or by `Drop` as the outcome named at creation (`cancelled`, say)
/// when it ends unfinished, whichever way (early return, panic, its future dropped).
/// [`discard`](Self::discard) ends it without counting.
///
/// Obtained with [`ByLabel::outcome_guard`], or [`OutcomeGuard::new`] over any
/// [`OutcomeCounters`] (an owned `ByLabel` clone for a guard that moves into a task).
#[must_use = "the outcome given at creation is counted when the guard is dropped: bind it (`let outcome = ...`) and `finish` it"]
pub struct OutcomeGuard<T: OutcomeCounters> {
    counters: T,
    /// `None` once an outcome is counted (or discarded), so nothing is counted twice.
    on_drop: Option<T::Outcome>,
}

impl<T: OutcomeCounters> OutcomeGuard<T> {
    /// A guard that counts into `counters`: `on_drop` unless [`finish`](Self::finish) says
    /// otherwise.
    #[inline]
    pub fn new(counters: T, on_drop: T::Outcome) -> Self {
        OutcomeGuard {
            counters,
            on_drop: Some(on_drop),
        }
    }

    /// Counts `outcome` now, in place of the one given at creation.
    #[inline]
    pub fn finish(mut self, outcome: T::Outcome) {
        self.on_drop = None;
        self.counters.count(outcome);
    }

    /// Ends the guard without counting anything (work that must not count, such as an attempt
    /// to be retried).
    pub fn discard(mut self) {
        self.on_drop = None;
    }
}

impl<T: OutcomeCounters> Drop for OutcomeGuard<T> {
    #[inline]
    fn drop(&mut self) {
        if let Some(outcome) = self.on_drop.take() {
            self.counters.count(outcome);
        }
    }
}

impl<T: OutcomeCounters> fmt::Debug for OutcomeGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutcomeGuard")
            .field("on_drop", &self.on_drop)
            .finish_non_exhaustive()
    }
}
