//! Idle-series expiry: which series of a map were not recorded for the map's idle timeout,
//! decided at scrape time at no cost to the record path.
//!
//! A record through a handle is the handle's own atomic operation and nothing else: it
//! neither reads a clock nor sets a flag. Instead, each sweep (at a scrape, or on an explicit
//! `expire_idle` call) reads every series' *activity*, a fingerprint of its values
//! ([`FamilyMember::activity`](crate::member::FamilyMember::activity): a counter's value, a
//! histogram's count), and compares it with the one the previous sweep read. A series whose
//! fingerprint changed was recorded, and is kept (or brought back); one whose fingerprint
//! stayed the same for the idle timeout is marked *dormant*: it leaves the exposition but
//! keeps its place and its values in the map. A lookup of its label set, or a record through
//! a handle somebody kept (seen by the next sweep as a changed fingerprint), brings it back
//! with every count it ever had.
//!
//! A dormant series gives its slot up only when a new label set needs it (the map is at its
//! limit): then the one quiet for longest is dropped, after a last check of its fingerprint
//! under the map's write lock. A record through a handle kept across *that* is not seen again
//! (the handle records into a series nobody exports); the documentation says so.
//!
//! The state of one series is two words, written by sweeps and lookups, never by records:
//! the fingerprint the last sweep read, and a word with the time (milliseconds on a
//! process-wide clock) the series was last seen active, a `TOUCHED` bit (looked up since the
//! last sweep), a `DORMANT` bit and a `PINNED` bit (exempt from expiry: set under the map's
//! write lock, which no sweep holds, so a sweep never races it). A map without an idle
//! timeout keeps no state at all for its series. A lookup sets `TOUCHED` (one
//! read-modify-write per series per sweep at most: once set, lookups only load the word); a
//! sweep marks a series dormant with a compare-and-swap from a word without `TOUCHED`, so a
//! lookup and a sweep racing each other always leave the series exported: either the sweep
//! saw the touch, or the touch clears the mark.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Looked up since the last sweep: the next sweep counts the series as active.
const TOUCHED: u64 = 1;
/// Out of the exposition until a lookup or a record brings it back.
const DORMANT: u64 = 2;
/// Declared in use by its owner: never expired nor evicted, until it is removed.
const PINNED: u64 = 4;
/// The bits below the time in a state word.
const FLAG_BITS: u32 = 3;

/// Milliseconds since the first call in this process: the clock of every sweep (one read per
/// sweep, never one per record).
pub(crate) fn now_ms() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    let elapsed = START.get_or_init(Instant::now).elapsed();
    u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX >> FLAG_BITS)
}

/// The idle timeout of a map in the milliseconds of [`now_ms`]; at least 1.
pub(crate) fn timeout_ms(timeout: Duration) -> u64 {
    u64::try_from(timeout.as_millis())
        .unwrap_or(u64::MAX)
        .max(1)
}

/// A map's idle timeout, how it reads a series' activity, and its counts.
pub(crate) struct Expiry<M> {
    pub(crate) timeout_ms: u64,
    pub(crate) activity: fn(&M) -> Option<u64>,
    /// Held by the sweep under way: a second scrape at the same moment skips its sweep
    /// rather than repeat it.
    pub(crate) sweeping: Mutex<()>,
    /// How many series sweeps marked dormant, and how many dormant ones gave their slot up.
    expired: AtomicU64,
    evicted: AtomicU64,
    /// How many series are dormant now, about (a lookup racing a sweep may leave it one off
    /// for a sweep): a full map with none answers a new label set under the read lock, as a
    /// map without expiry does, so an overflow storm never takes the write lock.
    dormant: AtomicU64,
}

impl<M> Expiry<M> {
    /// Expiry after `timeout`, reading activity with `activity`.
    pub(crate) fn new(timeout: Duration, activity: fn(&M) -> Option<u64>) -> Self {
        Expiry {
            timeout_ms: timeout_ms(timeout),
            activity,
            sweeping: Mutex::new(()),
            expired: AtomicU64::new(0),
            evicted: AtomicU64::new(0),
            dormant: AtomicU64::new(0),
        }
    }

    /// A sweep marked `expired` series dormant and brought `revived` ones back.
    pub(crate) fn swept(&self, expired: u64, revived: u64) {
        self.expired.fetch_add(expired, Ordering::Relaxed);
        self.dormant.fetch_add(expired, Ordering::Relaxed);
        self.less_dormant(revived);
    }

    /// A dormant series gave its slot up.
    pub(crate) fn evicted_one(&self) {
        self.evicted.fetch_add(1, Ordering::Relaxed);
        self.less_dormant(1);
    }

    /// Whether some series may be dormant.
    pub(crate) fn has_dormant(&self) -> bool {
        self.dormant.load(Ordering::Relaxed) > 0
    }

    /// How many series went dormant, and how many dormant ones gave their slot up.
    pub(crate) fn counts(&self) -> (u64, u64) {
        (
            self.expired.load(Ordering::Relaxed),
            self.evicted.load(Ordering::Relaxed),
        )
    }

    /// `n` fewer dormant series (brought back or removed), never below zero.
    pub(crate) fn less_dormant(&self, n: u64) {
        if n > 0 {
            let _ = self
                .dormant
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |d| {
                    Some(d.saturating_sub(n))
                });
        }
    }
}

/// The expiry state of one series.
pub(crate) struct IdleState {
    /// The activity fingerprint the last sweep read.
    fingerprint: AtomicU64,
    /// `last active (ms) << FLAG_BITS | PINNED | DORMANT | TOUCHED`.
    state: AtomicU64,
}

/// What a sweep did to one series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Swept {
    /// Recorded or looked up since the last sweep.
    Active,
    /// Dormant, and recorded or looked up since: brought back by this sweep.
    Revived,
    /// Quiet, but not for the idle timeout yet (or already dormant).
    Quiet,
    /// Quiet for the idle timeout: marked dormant by this sweep.
    Expired,
}

impl IdleState {
    /// The state of a series just created: touched, so the first sweep takes it as active.
    pub(crate) fn new() -> Self {
        IdleState {
            fingerprint: AtomicU64::new(0),
            state: AtomicU64::new(TOUCHED),
        }
    }

    /// The state of a series created pinned (see [`pin`](Self::pin)).
    pub(crate) fn pinned() -> Self {
        IdleState {
            fingerprint: AtomicU64::new(0),
            state: AtomicU64::new(TOUCHED | PINNED),
        }
    }

    /// Exempts the series from expiry. Called under the map's write lock, so no sweep runs
    /// meanwhile; the caller brings a dormant series back first ([`touch`](Self::touch)).
    pub(crate) fn pin(&self) {
        self.state.fetch_or(PINNED, Ordering::Relaxed);
    }

    /// Whether the series is exempt from expiry.
    #[inline]
    pub(crate) fn is_pinned(&self) -> bool {
        self.state.load(Ordering::Relaxed) & PINNED != 0
    }

    /// Whether the series is out of the exposition.
    #[inline]
    pub(crate) fn is_dormant(&self) -> bool {
        self.state.load(Ordering::Acquire) & DORMANT != 0
    }

    /// Records a lookup: the series is active, and exported again if it was dormant (then
    /// returns `true`). Only a load once the series was touched since the last sweep.
    #[inline]
    pub(crate) fn touch(&self) -> bool {
        let mut state = self.state.load(Ordering::Relaxed);
        while state & (TOUCHED | DORMANT) != TOUCHED {
            let touched = (state | TOUCHED) & !DORMANT;
            match self.state.compare_exchange_weak(
                state,
                touched,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => return state & DORMANT != 0,
                Err(current) => state = current,
            }
        }
        false
    }

    /// One sweep of this series at `now` (ms) with the series' current `activity`: active if
    /// the fingerprint changed or the series was looked up, dormant once quiet for `timeout`.
    pub(crate) fn sweep(&self, activity: u64, now: u64, timeout: u64) -> Swept {
        let state = self.state.load(Ordering::Acquire);
        if state & TOUCHED != 0 || activity != self.fingerprint.load(Ordering::Relaxed) {
            self.fingerprint.store(activity, Ordering::Relaxed);
            // Clears TOUCHED and DORMANT. A touch racing this store is not lost in any way
            // that matters: the series is active as of `now` either way. PINNED only changes
            // under the map's write lock, which a sweep excludes: it is kept as loaded.
            let before = self
                .state
                .swap((now << FLAG_BITS) | (state & PINNED), Ordering::AcqRel);
            return if before & DORMANT != 0 {
                Swept::Revived
            } else {
                Swept::Active
            };
        }
        let quiet_since = state >> FLAG_BITS;
        if state & DORMANT != 0 || now.saturating_sub(quiet_since) < timeout {
            return Swept::Quiet;
        }
        // From a word without TOUCHED: a lookup since the load above makes this fail, and a
        // lookup after it clears the mark again.
        match self.state.compare_exchange(
            state,
            state | DORMANT,
            Ordering::AcqRel,
            Ordering::Relaxed,
        ) {
            Ok(_) => Swept::Expired,
            Err(_) => Swept::Quiet,
        }
    }

    /// Whether the series may give its slot up to a new label set: dormant, not looked up
    /// since, and not recorded since the sweep that marked it (its fingerprint is `activity`).
    /// Called under the map's write lock, which no lookup holds.
    pub(crate) fn evictable(&self, activity: Option<u64>) -> bool {
        let state = self.state.load(Ordering::Acquire);
        state & (DORMANT | TOUCHED) == DORMANT
            && activity == Some(self.fingerprint.load(Ordering::Relaxed))
    }

    /// When the series was last seen active (ms), to evict the one quiet for longest first.
    pub(crate) fn quiet_since(&self) -> u64 {
        self.state.load(Ordering::Relaxed) >> FLAG_BITS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_expires_only_after_the_timeout_without_a_change() {
        let idle = IdleState::new();
        assert_eq!(idle.sweep(5, 100, 50), Swept::Active);
        assert_eq!(idle.sweep(5, 149, 50), Swept::Quiet);
        assert!(!idle.is_dormant());
        assert_eq!(idle.sweep(5, 150, 50), Swept::Expired);
        assert!(idle.is_dormant());
        assert_eq!(idle.sweep(5, 500, 50), Swept::Quiet);
        // A record through a kept handle changes the fingerprint: back.
        assert_eq!(idle.sweep(6, 501, 50), Swept::Revived);
        assert!(!idle.is_dormant());
    }

    #[test]
    fn a_lookup_keeps_a_series_and_brings_a_dormant_one_back() {
        let idle = IdleState::new();
        idle.sweep(1, 0, 10);
        idle.touch();
        assert_eq!(idle.sweep(1, 100, 10), Swept::Active);
        assert_eq!(idle.sweep(1, 200, 10), Swept::Expired);
        assert!(!idle.evictable(Some(2)), "recorded since the mark");
        assert!(idle.evictable(Some(1)));
        idle.touch();
        assert!(!idle.is_dormant());
        assert!(!idle.evictable(Some(1)));
    }
}
