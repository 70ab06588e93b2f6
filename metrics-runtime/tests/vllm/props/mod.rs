//! Property test: arbitrary interleavings of request outputs, finishes, aborts, drops, scheduler
//! stats (extreme and non-finite values included) and engine removal, over several engines,
//! checked against a model after every scrape:
//!
//! * nothing panics;
//! * counters never decrease between scrapes (unless their engine left in between);
//! * every histogram's buckets are cumulative, its `_count` equals the `+Inf` bucket and the sum
//!   of its (non-cumulative) buckets, and its `_sum` is finite;
//! * `request_success` per engine equals the trackers finished or dropped, each counted once;
//!   `generation_tokens`, `prompt_tokens`, `num_preemptions`, `prefix_cache_queries` and the
//!   per-position spec-decode total equal what was fed, each output's generated tokens as
//!   soon as the output is recorded (only ITL samples wait for a merge);
//! * the ignored-input counters equal the outputs and finishes sent after a finish;
//! * `prompt_tokens_cached_by_source` per tier, the NIXL counters and histogram counts, every
//!   Mooncake operation x status series (operations, keys, bytes, failed keys, timings), the
//!   `request_num_preemptions` histogram (one observation per finished request, its own
//!   preemptions), the engine sleep-state gauges (the latest snapshot), `lora_requests_info`
//!   (one series for the latest non-empty adapter sets, none when both are empty) and the
//!   sleep-mode operations (in flight, and timed once each) equal what was fed.
//!
//! The exposition is parsed by a small parser of its own (escapes included), not the helpers of
//! the other tests. `METRIC_HANDLES_STRESS=long` runs 100,000 cases.
//!
//! `inputs.rs` generates the values the recorders take, `operations.rs` the operations and what
//! each does to the recorders and to the model (`model.rs`), and `checks.rs` compares a scrape
//! with the model.

mod checks;
mod inputs;
mod model;
mod operations;

use std::cell::Cell;

use metric_handles::vllm::request::FinishReason;
use metric_handles::vllm::{VllmMetrics, VllmMetricsConfig};
use metric_handles::Registry;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;

use crate::support::exposition::stress;
use checks::{check, Counters};
use model::Model;
use operations::{apply, op, Op};

/// Engines the operations pick from: three lock-free slots and one past them.
const ENGINES: [u32; 4] = [0, 1, 2, 300];
const SPEC_POSITIONS: usize = 3;

fn cases() -> u32 {
    stress(100, 100_000)
}

fn run(ops: Vec<Op>) {
    let mut registry = Registry::default();
    let metrics = VllmMetrics::register(
        &mut registry,
        VllmMetricsConfig {
            num_speculative_tokens: SPEC_POSITIONS,
            ..VllmMetricsConfig::default()
        },
    );
    let mut model = Model::default();
    let mut requests = Vec::new();
    let mut previous = Counters::new();
    for op in ops {
        match op {
            Op::Scrape => check(&registry, &mut model, &mut previous),
            op => apply(&metrics, &mut model, &mut requests, op),
        }
    }
    // Every request left is dropped: each unfinished one is then counted once, as an abort.
    for mut r in requests.drain(..) {
        if !r.finished {
            r.end(&mut model, FinishReason::Abort);
        }
    }
    if !model.present.is_empty() {
        check(&registry, &mut model, &mut previous);
    }
    assert_eq!(metrics.requests().ignored_outputs(), model.ignored_outputs);
    assert_eq!(
        metrics.requests().ignored_finishes(),
        model.ignored_finishes
    );
}

#[test]
fn arbitrary_request_and_scheduler_sequences_keep_every_invariant() {
    // A runner rather than `proptest!`, to report the figures over all cases at the end.
    let mut runner = TestRunner::new(ProptestConfig::with_cases(cases()));
    let (ops, scrapes) = (Cell::new(0usize), Cell::new(0usize));
    let result = runner.run(&prop::collection::vec(op(), 1..80), |case| {
        ops.set(ops.get() + case.len());
        scrapes.set(scrapes.get() + case.iter().filter(|o| matches!(o, Op::Scrape)).count());
        run(case);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    eprintln!(
        "reliability_props: {} cases, {} operations, {} checked scrapes (plus a final one per case)",
        cases(),
        ops.get(),
        scrapes.get()
    );
}
