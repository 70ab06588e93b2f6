//! An exemplar's timestamp: a `SystemTime` as integer nanoseconds since the Unix epoch.
//!
//! std's `SystemTime::duration_since` is not inlined into this crate (it is neither generic
//! nor `#[inline]`) and returns a `Result` of two `Duration`s through memory: about a quarter
//! of an exemplar write on the benchmark machine. A `SystemTime`'s `Hash` impl is generic, so
//! it *is* compiled here, and on Unix it hands its hasher the seconds and nanoseconds since
//! the epoch, in that order ([`FieldCapture`] collects them). That is how std happens to
//! store the time, not a promise, so it is used only once probes have shown that it gives
//! what `duration_since` gives ([`fields_readable`]); anywhere else (another platform, a std
//! that hashes otherwise) every timestamp goes through `duration_since`. Both give the same
//! nanoseconds for every time the fields path accepts (the tests compare them).

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `time` (now when `None`) as nanoseconds since the Unix epoch (negative before it),
/// saturating at the `i64` range (the years 1677 and 2262). Integer arithmetic only: turning
/// the time into `f64` seconds here (a conversion and a division) cost a third of an
/// exemplar write; a scrape does it instead.
#[inline]
pub(crate) fn epoch_nanos(time: Option<SystemTime>) -> i64 {
    let time = time.unwrap_or_else(SystemTime::now);
    if fields_readable() {
        if let Some(nanos) = nanos_from_fields(time) {
            return nanos;
        }
    }
    nanos_by_duration(time)
}

/// `time` in nanoseconds through `duration_since`: the reference, and the fallback.
pub(super) fn nanos_by_duration(time: SystemTime) -> i64 {
    fn nanos(offset: Duration) -> i64 {
        let seconds = i64::try_from(offset.as_secs()).unwrap_or(i64::MAX);
        seconds
            .saturating_mul(1_000_000_000)
            .saturating_add(i64::from(offset.subsec_nanos()))
    }
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => nanos(after),
        Err(before) => nanos(before.duration()).saturating_neg(),
    }
}

/// `time` in nanoseconds from the fields its `Hash` impl writes, when it writes exactly a
/// second count (`i64`) then a nanosecond count (`u32`, below 10^9), and they fit in
/// nanoseconds without saturating.
#[inline]
pub(super) fn nanos_from_fields(time: SystemTime) -> Option<i64> {
    let mut capture = FieldCapture::default();
    time.hash(&mut capture);
    let (Some(seconds), Some(nanos), false) = (capture.seconds, capture.nanos, capture.other)
    else {
        return None;
    };
    if nanos >= 1_000_000_000 {
        return None;
    }
    let total = seconds
        .checked_mul(1_000_000_000)?
        .checked_add(i64::from(nanos))?;
    // `duration_since` saturates a time before `i64::MIN` nanoseconds at `-i64::MAX`.
    (total != i64::MIN).then_some(total)
}

/// The hasher that collects what a `SystemTime` hashes: one `i64`, then one `u32`. Anything
/// else marks the capture unusable.
#[derive(Default)]
struct FieldCapture {
    seconds: Option<i64>,
    nanos: Option<u32>,
    other: bool,
}

impl Hasher for FieldCapture {
    fn finish(&self) -> u64 {
        0
    }

    fn write(&mut self, _bytes: &[u8]) {
        self.other = true;
    }

    fn write_i64(&mut self, value: i64) {
        match (self.seconds, self.nanos) {
            (None, None) => self.seconds = Some(value),
            _ => self.other = true,
        }
    }

    fn write_u32(&mut self, value: u32) {
        match (self.seconds, self.nanos) {
            (Some(_), None) => self.nanos = Some(value),
            _ => self.other = true,
        }
    }
}

/// Whether [`nanos_from_fields`] may be used: probes on both sides of the epoch, checked
/// against [`nanos_by_duration`] once per process.
#[inline]
fn fields_readable() -> bool {
    /// 0: not probed yet; 1: readable; 2: not.
    static STATE: AtomicU8 = AtomicU8::new(0);
    match STATE.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let readable = probe();
            STATE.store(if readable { 1 } else { 2 }, Ordering::Relaxed);
            readable
        }
    }
}

/// Times whose fields path must agree with `duration_since` before it is used: the epoch,
/// a fraction after it, a recent time, and times just and well before it.
#[cold]
fn probe() -> bool {
    let after = [
        Duration::ZERO,
        Duration::new(1, 500_000_000),
        Duration::new(1_700_000_000, 123_456_789),
    ];
    let before = [Duration::new(0, 1), Duration::new(5, 250_000_000)];
    let times = after
        .iter()
        .filter_map(|&offset| UNIX_EPOCH.checked_add(offset))
        .chain(
            before
                .iter()
                .filter_map(|&offset| UNIX_EPOCH.checked_sub(offset)),
        );
    let mut probed = 0;
    for time in times {
        if nanos_from_fields(time) != Some(nanos_by_duration(time)) {
            return false;
        }
        probed += 1;
    }
    probed == after.len() + before.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times() -> impl Iterator<Item = SystemTime> {
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let offsets = std::iter::repeat_with(move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            Duration::new(state % 9_000_000_000, (state >> 34) as u32 % 1_000_000_000)
        });
        offsets.take(20_000).flat_map(|offset| {
            [
                UNIX_EPOCH.checked_add(offset),
                UNIX_EPOCH.checked_sub(offset),
            ]
            .into_iter()
            .flatten()
        })
    }

    #[test]
    fn the_fields_give_what_duration_since_gives() {
        for time in times().chain([SystemTime::now(), UNIX_EPOCH]) {
            if let Some(nanos) = nanos_from_fields(time) {
                assert_eq!(nanos, nanos_by_duration(time), "{time:?}");
            }
            assert_eq!(epoch_nanos(Some(time)), nanos_by_duration(time), "{time:?}");
        }
    }

    #[test]
    fn far_times_saturate_as_duration_since_does() {
        let far = Duration::from_secs(1 << 40);
        for time in [UNIX_EPOCH.checked_add(far), UNIX_EPOCH.checked_sub(far)]
            .into_iter()
            .flatten()
        {
            assert_eq!(epoch_nanos(Some(time)), nanos_by_duration(time), "{time:?}");
            assert_eq!(nanos_from_fields(time), None, "{time:?}");
        }
    }

    /// The fast path is what the exemplar benchmarks measure: on Linux, where std stores a
    /// `SystemTime` as seconds and nanoseconds, it must be in use. If a toolchain changes
    /// that, timestamps stay right (through `duration_since`) and this test says the fast
    /// path is gone.
    #[test]
    #[cfg(target_os = "linux")]
    fn on_linux_the_fields_are_readable() {
        assert!(fields_readable());
    }
}
