//! [`Created`]: when a series was created, the start timestamp a scraper reads to tell a
//! counter's reset from its first value.
//!
//! As client_golang's counters and histograms (`createdTs` in `prometheus/counter.go` and
//! `histogram.go`), the time is taken once, when the series is created: at `resolve` (or the
//! first lookup of a run-time label set), and again when a removed series is resolved anew.
//! The series maps keep it beside each series, so recording never touches it. Every series
//! pre-resolved with a label set (an enum axis's, the pre-resolved positions, a grid's cells)
//! shares that label set's time.

use std::time::{SystemTime, UNIX_EPOCH};

/// A series' creation time: nanoseconds since the Unix epoch (0 for a clock set before it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Created(u64);

impl Created {
    /// Now, by the system clock.
    pub(crate) fn now() -> Self {
        Created::at(SystemTime::now())
    }

    /// `time` as a creation time (saturating at the epoch and in the year 2554).
    pub(crate) fn at(time: SystemTime) -> Self {
        let nanos = time.duration_since(UNIX_EPOCH).map_or(0, |since| {
            u64::try_from(since.as_nanos()).unwrap_or(u64::MAX)
        });
        Created(nanos)
    }

    /// Whole seconds and the nanoseconds past them: a protobuf `Timestamp`.
    pub(crate) fn seconds_and_nanos(self) -> (u64, u32) {
        const NANOS_PER_SECOND: u64 = 1_000_000_000;
        // The remainder is below 10^9, so it fits in a u32.
        (
            self.0 / NANOS_PER_SECOND,
            (self.0 % NANOS_PER_SECOND) as u32,
        )
    }

    /// Seconds since the epoch as a float, what a `_created` sample holds (client_golang's
    /// `expfmt/openmetrics_create.go`). The whole seconds and the fraction are converted
    /// apart, so a time on a round fraction of a second stays round (dividing the nanoseconds
    /// by 10^9 at once, as client_golang does, turns `.25` into `.2499998`).
    pub(crate) fn as_seconds_f64(self) -> f64 {
        let (seconds, nanos) = self.seconds_and_nanos();
        seconds as f64 + f64::from(nanos) / 1e9
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_time_splits_into_seconds_and_nanoseconds_and_a_float_of_seconds() {
        let created = Created::at(UNIX_EPOCH + Duration::new(1_764_771_234, 500_000_001));
        assert_eq!(created.seconds_and_nanos(), (1_764_771_234, 500_000_001));
        let quarter = Created::at(UNIX_EPOCH + Duration::new(1_764_771_234, 250_000_000));
        assert_eq!(quarter.as_seconds_f64(), 1_764_771_234.25);
        assert_eq!(
            Created::at(UNIX_EPOCH - Duration::from_secs(1)),
            Created::default()
        );
    }
}
