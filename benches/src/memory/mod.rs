//! The memory benchmark: heap bytes per series of each kind of metric, ours beside the other
//! crates, measured with a counting global allocator (installed by the `memory` and
//! `memory-scale` binaries, not by the criterion benchmarks).

pub mod alloc;
pub mod results;
pub mod scale;
pub mod subjects;
