//! CUDA-graph padding shapes counted per log interval, bounded whatever the caller sends.
//!
//! vLLM keeps every step's shape in a list until its logger reads it. A frontend that only
//! serves Prometheus never drains, and the shapes carry a caller-supplied string, so here:
//!
//! * at most [`MAX_CUDAGRAPH_SHAPES`] distinct shapes are kept per interval, in first-seen
//!   order; steps of any further shape are counted in `cudagraph_other_steps` (no step lost);
//! * `runtime_mode` is cut to [`MAX_RUNTIME_MODE_LEN`] bytes (at a character boundary);
//! * a record is a hash of the three counts and a comparison with the few modes seen for
//!   them: constant time, and no allocation unless the shape is new.

use std::collections::HashMap;

use crate::vllm::scheduler::input::CudagraphStats;

/// The most distinct CUDA-graph shapes an engine's log stats keep per interval. vLLM captures
/// a few dozen batch sizes per mode, so real intervals stay far below it.
pub const MAX_CUDAGRAPH_SHAPES: usize = 512;

/// The longest `runtime_mode` kept, in bytes. vLLM's modes (`NONE`, `PIECEWISE`, `FULL`,
/// `FULL_DECODE_ONLY`, `FULL_AND_PIECEWISE`) are shorter.
pub const MAX_RUNTIME_MODE_LEN: usize = 32;

/// One CUDA-graph padding shape, the key the accumulator counts by.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CudagraphKey {
    /// Tokens before padding.
    pub num_unpadded_tokens: u64,
    /// Tokens after padding.
    pub num_padded_tokens: u64,
    /// Padding tokens added.
    pub num_paddings: u64,
    /// The CUDA-graph runtime mode, cut to [`MAX_RUNTIME_MODE_LEN`] bytes.
    pub runtime_mode: String,
}

impl From<&CudagraphStats> for CudagraphKey {
    fn from(stats: &CudagraphStats) -> Self {
        CudagraphKey {
            num_unpadded_tokens: stats.num_unpadded_tokens,
            num_padded_tokens: stats.num_padded_tokens,
            num_paddings: stats.num_paddings,
            runtime_mode: bounded_mode(&stats.runtime_mode).to_owned(),
        }
    }
}

/// `mode` cut to at most [`MAX_RUNTIME_MODE_LEN`] bytes at a character boundary.
fn bounded_mode(mode: &str) -> &str {
    let mut end = mode.len().min(MAX_RUNTIME_MODE_LEN);
    while !mode.is_char_boundary(end) {
        end -= 1;
    }
    &mode[..end]
}

/// Shape counts of one interval: insertion-ordered, bounded, constant-time to update.
#[derive(Debug, Default)]
pub(crate) struct CudagraphCounts {
    /// The counts triple -> index in `entries` of the first shape with those counts.
    index: HashMap<(u64, u64, u64), usize>,
    /// Each shape, its count, and the next shape with the same counts (another mode).
    entries: Vec<(CudagraphKey, u64, Option<usize>)>,
    /// Steps of shapes past [`MAX_CUDAGRAPH_SHAPES`].
    other_steps: u64,
}

impl CudagraphCounts {
    /// Counts `n` steps of the shape `(counts, mode)`; `mode` is already bounded.
    fn add(
        &mut self,
        counts: (u64, u64, u64),
        mode: &str,
        n: u64,
        build: impl FnOnce() -> CudagraphKey,
    ) {
        let mut last = None;
        let mut at = self.index.get(&counts).copied();
        while let Some(i) = at {
            let (key, count, next) = &mut self.entries[i];
            if key.runtime_mode == mode {
                *count = count.saturating_add(n);
                return;
            }
            last = Some(i);
            at = *next;
        }
        if self.entries.len() >= MAX_CUDAGRAPH_SHAPES {
            self.other_steps = self.other_steps.saturating_add(n);
            return;
        }
        let new = self.entries.len();
        self.entries.push((build(), n, None));
        match last {
            Some(i) => self.entries[i].2 = Some(new),
            None => {
                self.index.insert(counts, new);
            }
        }
    }

    /// Counts one step of `stats`' shape.
    pub(crate) fn add_stats(&mut self, stats: &CudagraphStats) {
        let counts = (
            stats.num_unpadded_tokens,
            stats.num_padded_tokens,
            stats.num_paddings,
        );
        self.add(counts, bounded_mode(&stats.runtime_mode), 1, || {
            CudagraphKey::from(stats)
        });
    }

    /// Counts `n` steps of `key`'s shape (merging intervals).
    pub(crate) fn add_key(&mut self, key: &CudagraphKey, n: u64) {
        let counts = (
            key.num_unpadded_tokens,
            key.num_padded_tokens,
            key.num_paddings,
        );
        let mode = bounded_mode(&key.runtime_mode);
        self.add(counts, mode, n, || CudagraphKey {
            runtime_mode: mode.to_owned(),
            ..key.clone()
        });
    }

    /// Adds steps of shapes that were not kept.
    pub(crate) fn add_other(&mut self, n: u64) {
        self.other_steps = self.other_steps.saturating_add(n);
    }

    /// The shapes in first-seen order, and the steps of shapes not kept.
    pub(crate) fn into_parts(self) -> (Vec<(CudagraphKey, u64)>, u64) {
        let shapes = self.entries.into_iter().map(|(k, n, _)| (k, n)).collect();
        (shapes, self.other_steps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(unpadded: u64, mode: &str) -> CudagraphStats {
        CudagraphStats {
            num_unpadded_tokens: unpadded,
            num_padded_tokens: 8,
            num_paddings: 0,
            runtime_mode: mode.into(),
        }
    }

    #[test]
    fn modes_of_the_same_counts_chain_and_the_cap_counts_the_rest() {
        let mut counts = CudagraphCounts::default();
        for mode in ["FULL", "PIECEWISE", "NONE", "FULL", "NONE"] {
            counts.add_stats(&stats(3, mode));
        }
        for i in 0..(MAX_CUDAGRAPH_SHAPES as u64 + 10) {
            counts.add_stats(&stats(1000 + i, "FULL"));
        }
        let (shapes, other) = counts.into_parts();
        assert_eq!(shapes.len(), MAX_CUDAGRAPH_SHAPES);
        let modes: Vec<(&str, u64)> = shapes[..3]
            .iter()
            .map(|(k, n)| (k.runtime_mode.as_str(), *n))
            .collect();
        assert_eq!(modes, [("FULL", 2), ("PIECEWISE", 1), ("NONE", 2)]);
        assert_eq!(other, 13);
    }
}
