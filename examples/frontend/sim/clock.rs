//! Simulated time. Every clock runs at `speed` times real time from one shared origin, so a
//! workload that takes minutes on a GPU runs in seconds here while every latency the metrics
//! see (TTFT, ITL, queue time) still has its realistic, unscaled value.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

#[derive(Clone, Copy, Debug)]
pub struct SimClock {
    origin: Instant,
    unix_origin: f64,
    speed: f64,
}

impl SimClock {
    pub fn new(speed: f64) -> Self {
        let unix_origin = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        SimClock {
            origin: Instant::now(),
            unix_origin,
            speed,
        }
    }

    /// Simulated seconds since the origin.
    pub fn elapsed(&self) -> f64 {
        self.origin.elapsed().as_secs_f64() * self.speed
    }

    /// The frontend's wall clock (unix seconds): request arrival and output receipt times.
    pub fn wall(&self) -> f64 {
        self.unix_origin + self.elapsed()
    }

    /// An engine's monotonic clock. Each engine process booted at a different time, so its
    /// clock has its own offset; only differences on one engine's clock mean anything.
    pub fn engine_monotonic(&self, boot_offset: f64) -> f64 {
        boot_offset + self.elapsed()
    }

    /// Real time to sleep for `simulated` seconds.
    pub fn real(&self, simulated: f64) -> Duration {
        Duration::from_secs_f64((simulated / self.speed).max(0.0))
    }
}
