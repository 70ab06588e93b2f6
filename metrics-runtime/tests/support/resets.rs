//! Counting the scrapes that read a counter lower than the scrape before, which Prometheus
//! takes for a counter reset, while other threads keep incrementing it.

use std::sync::atomic::{AtomicBool, Ordering};

/// What [`scrapes_reading_a_reset`] saw.
#[derive(Debug)]
pub struct Resets {
    /// Scrapes taken.
    pub scrapes: usize,
    /// Scrapes that read a lower value than the scrape before.
    pub resets: usize,
    /// Scrapes that read a lower value than the counter held before the race.
    pub below_start: usize,
    /// The lowest value any scrape read.
    pub lowest: u64,
}

impl Resets {
    /// Prints the figures, to compare runs before and after a change.
    pub fn report(&self, what: &str) {
        println!(
            "{what}: {} of {} scrapes read a reset ({:.1}%), {} read below the value before \
             the race, lowest value read {}",
            self.resets,
            self.scrapes,
            100.0 * self.resets as f64 / self.scrapes.max(1) as f64,
            self.below_start,
            self.lowest
        );
    }
}

/// Runs `record` in a loop on `threads` threads while this thread takes `scrapes` readings
/// with `scrape`, each compared with the one before (the first with `start`, the counter's
/// value before the race).
pub fn scrapes_reading_a_reset(
    threads: usize,
    scrapes: usize,
    start: u64,
    record: impl Fn() + Sync,
    mut scrape: impl FnMut() -> u64,
) -> Resets {
    let stop = AtomicBool::new(false);
    let mut seen = Resets {
        scrapes,
        resets: 0,
        below_start: 0,
        lowest: u64::MAX,
    };
    let mut previous = start;
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    record();
                }
            });
        }
        for _ in 0..scrapes {
            let value = scrape();
            seen.resets += usize::from(value < previous);
            seen.below_start += usize::from(value < start);
            seen.lowest = seen.lowest.min(value);
            previous = value;
        }
        stop.store(true, Ordering::Relaxed);
    });
    seen
}

/// The value of the sample line of `text` that starts with `sample` (name and labels, as
/// written), read as an integer: exact up to `u64::MAX`, where a float would round.
pub fn sample_u64(text: &str, sample: &str) -> u64 {
    let line = text
        .lines()
        .find(|line| {
            line.strip_prefix(sample)
                .is_some_and(|rest| rest.starts_with(' '))
        })
        .unwrap_or_else(|| panic!("no sample {sample:?} in:\n{text}"));
    line[sample.len() + 1..]
        .parse()
        .unwrap_or_else(|e| panic!("{line:?}: {e}"))
}
