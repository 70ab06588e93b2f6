//! Recording one inter-token latency per token, every way the ITL benchmark compares: our
//! request-local view, our shared handle, prometheus-client's histogram, vLLM's batched ITL
//! recording and the `prometheus` crate's `LocalHistogram`. Shared by `benches/local.rs` and
//! the `cpu-time` binary.

use std::hint::black_box;

use crate::batched::{BatchedItl, PendingItl};
use crate::fixtures::{observations, prometheus_itl_histogram, ITL_BUCKETS, OBSERVATIONS};

/// Observations per merge, for every batched implementation: vLLM's default.
pub const INTERVAL: usize = metric_handles::local::DEFAULT_FLUSH_INTERVAL;

/// Every implementation, each with one histogram.
#[derive(Debug)]
pub struct Histograms {
    values: Vec<f64>,
    ours: metric_handles::Histogram,
    pc: prometheus_client::metrics::histogram::Histogram,
    batched: BatchedItl,
    prom: prometheus::Histogram,
}

impl Default for Histograms {
    fn default() -> Self {
        Self::new()
    }
}

impl Histograms {
    /// Builds every implementation's histogram and the observation values.
    pub fn new() -> Self {
        let prom = prometheus_itl_histogram();
        Histograms {
            values: observations(),
            ours: metric_handles::Histogram::new(ITL_BUCKETS),
            pc: prometheus_client::metrics::histogram::Histogram::new(ITL_BUCKETS),
            batched: BatchedItl::default(),
            prom,
        }
    }

    fn value(&self, i: usize) -> f64 {
        // In bounds: `values` has OBSERVATIONS (a power of two) elements.
        self.values[i & (OBSERVATIONS - 1)]
    }

    /// Runs `iters` observations the way implementation `id` records them on one request.
    pub fn record(&self, id: &str, iters: u64) {
        let iters = iters as usize;
        match id {
            "local" => {
                let mut view = self.ours.local();
                for i in 0..iters {
                    black_box(&mut view).observe(self.value(i));
                }
            }
            "shared_handle" => {
                for i in 0..iters {
                    black_box(&self.ours).observe(self.value(i));
                }
            }
            "pc_histogram" => {
                for i in 0..iters {
                    black_box(&self.pc).observe(self.value(i));
                }
            }
            "vllm_batched" => {
                let mut pending = PendingItl::default();
                for i in 0..iters {
                    let pending = black_box(&mut pending);
                    pending.observe(self.value(i));
                    if pending.count() >= INTERVAL as u64 {
                        self.batched.flush(pending);
                    }
                }
                self.batched.flush(&mut pending);
            }
            "prometheus_local" => {
                let local = self.prom.local();
                let mut pending = 0;
                for i in 0..iters {
                    black_box(&local).observe(self.value(i));
                    pending += 1;
                    if pending == INTERVAL {
                        local.flush();
                        pending = 0;
                    }
                }
                local.flush();
            }
            other => unreachable!("no implementation {other}"),
        }
    }
}

/// The implementations, `local` (ours) first.
pub const IDS: [&str; 5] = [
    "local",
    "shared_handle",
    "pc_histogram",
    "vllm_batched",
    "prometheus_local",
];
