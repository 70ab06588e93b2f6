//! Runs one operation as a criterion benchmark, single-threaded or contended.
//!
//! A benchmark file lists its implementations once, as `runner.run(id, Type::method)` calls.
//! Each operation arrives as its own function item (a distinct zero-sized type), so it is
//! inlined into the timing loop: a table of function pointers would add an indirect call to
//! every operation and blur the comparison with the floor.

use criterion::measurement::WallTime;
use criterion::BenchmarkGroup;

use crate::contended::time_contended;

/// Something that benchmarks operations on a shared state `S`. The operation receives the
/// iteration number, so it can cycle through inputs (`i & (OBSERVATIONS - 1)`).
pub trait Runner<S> {
    /// Benchmarks `op` under the id `id`.
    fn run<F: Fn(&S, usize) + Sync>(&mut self, id: &str, op: F);
}

/// One thread, criterion's own timing loop.
pub struct SingleThread<'a, 'c, S> {
    /// The group the benchmarks are added to.
    pub group: BenchmarkGroup<'c, WallTime>,
    /// The state every operation records into.
    pub state: &'a S,
}

impl<S> Runner<S> for SingleThread<'_, '_, S> {
    fn run<F: Fn(&S, usize) + Sync>(&mut self, id: &str, op: F) {
        let state = self.state;
        self.group.bench_function(id, |b| {
            let mut i = 0usize;
            b.iter(|| {
                i = i.wrapping_add(1);
                op(state, i)
            })
        });
    }
}

/// `threads` threads running the operation on the same state at once (see
/// [`time_contended`]).
pub struct Contended<'a, 'c, S> {
    /// The group the benchmarks are added to.
    pub group: BenchmarkGroup<'c, WallTime>,
    /// The state every thread records into.
    pub state: &'a S,
    /// How many threads record at once.
    pub threads: usize,
}

impl<S: Sync> Runner<S> for Contended<'_, '_, S> {
    fn run<F: Fn(&S, usize) + Sync>(&mut self, id: &str, op: F) {
        let (state, threads) = (self.state, self.threads);
        self.group.bench_function(id, |b| {
            b.iter_custom(|iters| {
                time_contended(threads, iters, |_, iters| {
                    for i in 0..iters as usize {
                        op(state, i);
                    }
                })
            })
        });
    }
}
