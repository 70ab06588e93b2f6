//! Runs one operation as a criterion benchmark, single-threaded or contended.
//!
//! A benchmark file lists its implementations once, as `runner.run(id, Type::method)` calls.
//! Each operation arrives as its own function item (a distinct zero-sized type), so it is
//! inlined into the timing loop: a table of function pointers would add an indirect call to
//! every operation and blur the comparison with the floor.
//!
//! A runner opens its criterion group when it is made, and [`Runner::run_all`] finishes it
//! after the file's list of `run` calls (a closure or a generic function, so each call still
//! gets its operation's own type).

use std::fmt;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion};

use crate::contended::{threads, time_contended};

/// Something that benchmarks operations on a shared state `S`. The operation receives the
/// iteration number, so it can cycle through inputs (`i & (OBSERVATIONS - 1)`).
pub trait Runner<S>: Sized {
    /// Benchmarks `op` under the id `id`.
    fn run<F: Fn(&S, usize) + Sync>(&mut self, id: &str, op: F);

    /// Finishes the criterion group.
    fn finish(self);

    /// Runs the benchmarks `each` lists, then finishes the group.
    fn run_all(mut self, each: impl FnOnce(&mut Self)) {
        each(&mut self);
        self.finish();
    }
}

/// One thread, criterion's own timing loop.
pub struct SingleThread<'a, 'c, S> {
    /// The group the benchmarks are added to.
    group: BenchmarkGroup<'c, WallTime>,
    /// The state every operation records into.
    state: &'a S,
}

impl<'a, 'c, S> SingleThread<'a, 'c, S> {
    /// A runner of the criterion group `group`, recording into `state`.
    pub fn new(c: &'c mut Criterion, group: &str, state: &'a S) -> Self {
        SingleThread {
            group: c.benchmark_group(group),
            state,
        }
    }
}

// By hand: criterion's `BenchmarkGroup` has no `Debug`, and the state need not have one.
impl<S> fmt::Debug for SingleThread<'_, '_, S> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("SingleThread").finish_non_exhaustive()
    }
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

    fn finish(self) {
        self.group.finish();
    }
}

/// `threads` threads running the operation on the same state at once (see
/// [`time_contended`]).
pub struct Contended<'a, 'c, S> {
    /// The group the benchmarks are added to.
    group: BenchmarkGroup<'c, WallTime>,
    /// The state every thread records into.
    state: &'a S,
    /// How many threads record at once.
    threads: usize,
}

impl<'a, 'c, S> Contended<'a, 'c, S> {
    /// A runner of [`threads`] threads recording into `state` at once, in the criterion group
    /// `{name}_{threads}t`.
    pub fn new(c: &'c mut Criterion, name: &str, state: &'a S) -> Self {
        let threads = threads();
        Contended {
            group: c.benchmark_group(format!("{name}_{threads}t")),
            state,
            threads,
        }
    }
}

// By hand, as `SingleThread`'s.
impl<S> fmt::Debug for Contended<'_, '_, S> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("Contended")
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
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

    fn finish(self) {
        self.group.finish();
    }
}
