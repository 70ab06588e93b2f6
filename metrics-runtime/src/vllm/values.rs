//! How untrusted input values become recorded values: the bad-input rules, in one place.
//!
//! Engines report what they report. A metrics library must not panic on it, must not let one
//! bad timestamp turn a histogram's `_sum` into NaN, and must not let a counter wrap. Each rule
//! here is documented where it applies (on [`SchedulerStatsRecorder::record`] and
//! [`RequestMetricsTracker`]):
//!
//! * durations: [`diff_or_zero`] (vLLM's rule, plus finiteness) and [`elapsed_or_zero`];
//! * fractions: [`clamp_fraction`];
//! * `u64` into an `i64` gauge: [`gauge_value`];
//! * counters: [`Counter::inc_by`](crate::Counter::inc_by) itself saturates at `u64::MAX`
//!   instead of wrapping (which Prometheus would read as a reset).
//!
//! [`SchedulerStatsRecorder::record`]: super::SchedulerStatsRecorder::record
//! [`RequestMetricsTracker`]: super::RequestMetricsTracker

/// `end - start` when both are finite and `> 0` and `end >= start`, else `0`: vLLM's rule for
/// the request phase durations, where a timestamp of 0 means "event not seen". Non-finite
/// timestamps are treated as not seen too, so the result is always finite and `>= 0`.
#[inline]
pub(crate) fn diff_or_zero(end: f64, start: f64) -> f64 {
    if end.is_finite() && start.is_finite() && end > 0.0 && start > 0.0 && end >= start {
        end - start
    } else {
        0.0
    }
}

/// `end - start` when both are finite and `end >= start`, else `0`: for durations between two
/// clock readings that are always present (time to first token, inter-token latency, end-to-end
/// latency). A clock that went backwards, or a NaN/infinite reading, yields 0 rather than a
/// negative or non-finite sample; the observation itself is still counted.
#[inline]
pub(crate) fn elapsed_or_zero(end: f64, start: f64) -> f64 {
    // One subtraction and two comparisons cover every case: a NaN or infinite reading makes
    // the difference NaN or infinite (`Inf - Inf` is NaN), a clock that went backwards makes
    // it negative, and `f64::MAX - (-f64::MAX)` overflows to +Inf.
    let elapsed = end - start;
    if (0.0..f64::INFINITY).contains(&elapsed) {
        elapsed
    } else {
        0.0
    }
}

/// A fraction clamped to `0.0..=1.0`; NaN becomes 0, and so does `-0.0` (which would
/// otherwise be exposed as `-0.0`). Used for `kv_cache_usage`.
#[inline]
pub(crate) fn clamp_fraction(value: f64) -> f64 {
    if value.is_nan() {
        0.0
    } else {
        // `+ 0.0` turns `-0.0` (which `clamp` keeps) into `+0.0` and leaves every other value.
        value.clamp(0.0, 1.0) + 0.0
    }
}

/// A `u64` count as an `i64` gauge value, saturating at `i64::MAX`.
#[inline]
pub(crate) fn gauge_value(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// Durations cannot be negative: below 0 (and -Inf) records 0; NaN and +Inf pass through to
/// the histogram, which counts them in `+Inf` without touching `_sum`.
pub(crate) fn non_negative(seconds: f64) -> f64 {
    if seconds < 0.0 {
        0.0
    } else {
        seconds
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elapsed_is_the_difference_only_when_it_is_a_finite_non_negative_number() {
        let readings = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            1.5,
            1e-300,
            1e308,
            -1e308,
            f64::MAX,
            -f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1_700_000_000.25,
        ];
        for end in readings {
            for start in readings {
                let d = end - start;
                let expected =
                    if end.is_finite() && start.is_finite() && end >= start && d.is_finite() {
                        d
                    } else {
                        0.0
                    };
                let got = elapsed_or_zero(end, start);
                assert_eq!(got.to_bits(), expected.to_bits(), "{end} - {start}");
            }
        }
    }

    #[test]
    fn documented_examples_hold() {
        assert_eq!(diff_or_zero(5.0, 2.0), 3.0);
        assert_eq!(diff_or_zero(2.0, 5.0), 0.0); // out of order
        assert_eq!(diff_or_zero(5.0, 0.0), 0.0); // start never seen
        assert_eq!(diff_or_zero(f64::INFINITY, 2.0), 0.0);
        assert_eq!(diff_or_zero(f64::NAN, 2.0), 0.0);
        assert_eq!(elapsed_or_zero(1.5, 1.0), 0.5);
        assert_eq!(elapsed_or_zero(1.0, 1.5), 0.0);
        assert_eq!(elapsed_or_zero(f64::NAN, 1.0), 0.0);
        assert_eq!(clamp_fraction(0.25), 0.25);
        assert_eq!(clamp_fraction(1.5), 1.0);
        assert_eq!(clamp_fraction(-0.1), 0.0);
        assert_eq!(clamp_fraction(f64::NAN), 0.0);
        assert!(clamp_fraction(-0.0).is_sign_positive());
    }

    #[test]
    fn diff_or_zero_follows_vllm_and_rejects_non_finite() {
        assert_eq!(diff_or_zero(3.0, 3.0), 0.0);
        assert_eq!(diff_or_zero(-1.0, -3.0), 0.0);
        assert_eq!(diff_or_zero(2.0, f64::NEG_INFINITY), 0.0);
        assert_eq!(diff_or_zero(f64::INFINITY, f64::INFINITY), 0.0);
    }

    #[test]
    fn elapsed_never_returns_negative_or_non_finite() {
        assert_eq!(elapsed_or_zero(f64::MAX, -f64::MAX), 0.0);
        assert_eq!(elapsed_or_zero(1.0, f64::NEG_INFINITY), 0.0);
        assert_eq!(elapsed_or_zero(0.0, -2.0), 2.0);
    }

    #[test]
    fn gauge_values_saturate() {
        assert_eq!(gauge_value(7), 7);
        assert_eq!(gauge_value(u64::MAX), i64::MAX);
    }
}
