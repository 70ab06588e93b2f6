//! The tracker adds each output's `vllm:generation_tokens` as the output arrives, and keeps
//! its `vllm:inter_token_latency_seconds` samples locally, merging them every
//! `FLUSH_INTERVAL_TOKENS` generated tokens and at the finish (vLLM's Rust frontend's split,
//! `rust/src/llm/src/request_metrics.rs`): exact totals however the request ends, the same
//! exposition as recording every output directly, a live token count and a bounded ITL lag
//! mid-request, and consistent histograms while requests merge and scrapes run at once.

use crate::support::vllm::*;
use metric_handles::vllm::buckets::ITL_BUCKETS;
use metric_handles::vllm::request::{
    FinishReason, RequestOutput, RequestParams, FLUSH_INTERVAL_TOKENS,
};
use metric_handles::vllm::{RequestMetricsTracker, VllmMetrics};
use metric_handles::Histogram;

const ITL: &str = "vllm:inter_token_latency_seconds";
const TOKENS: &str = "vllm:generation_tokens";

fn params() -> RequestParams {
    RequestParams {
        arrival_time: 1000.0,
        prompt_len: 16,
        max_tokens_param: Some(512),
        n_param: 1,
    }
}

/// Output `i` of a request: 1 to 3 tokens, increasing engine timestamps with irregular gaps.
/// The timestamps start below 1 s, so the early gaps have finer bits than the ITL sum can hold
/// once it passes 2 s: its last bits depend on the order of the additions (summing a batch on
/// its own first, then adding it, gives other last digits).
fn output(i: u32) -> (f64, f64, RequestOutput) {
    let batch = 0.5 + f64::from(i) * 0.0371 + f64::from(i).sin() * 0.001;
    (batch, 1000.0 + batch, tokens(1 + (i % 3) as usize))
}

/// Feeds `outputs` outputs and returns (tokens fed, ITL samples in order).
fn feed(t: &mut RequestMetricsTracker, outputs: u32) -> (u64, Vec<f64>) {
    let mut fed = 0;
    let mut samples = Vec::new();
    let mut last = None;
    for i in 0..outputs {
        let (batch, received, out) = output(i);
        t.observe_output(batch, received, &out);
        fed += out.new_token_ids.len() as u64;
        if let Some(previous) = last {
            samples.push(batch - previous);
        }
        last = Some(batch);
    }
    (fed, samples)
}

/// The ITL samples observed one by one into a histogram of their own: the sum recording every
/// output directly produces, bit for bit.
fn direct_sum(samples: &[f64]) -> f64 {
    let h = Histogram::new(ITL_BUCKETS.iter().copied());
    samples.iter().for_each(|&s| h.observe(s));
    h.snapshot().sum()
}

#[derive(Clone, Copy, Debug)]
enum End {
    FinishingOutput,
    Finish,
    Abort,
    Drop,
}

#[test]
fn finish_abort_and_drop_leave_exact_totals() {
    for end in [End::FinishingOutput, End::Finish, End::Abort, End::Drop] {
        // 77 outputs: the last merge is a partial interval, whichever way the request ends.
        let (registry, metrics) = setup_default();
        let mut t = metrics.requests().track(0, params());
        let (mut fed, mut samples) = feed(&mut t, 77);
        let reason = match end {
            End::FinishingOutput => {
                let (batch, received, _) = output(77);
                t.observe_output(batch, received, &finishing(tokens(2), FinishReason::Stop));
                fed += 2;
                samples.push(batch - output(76).0);
                drop(t);
                "stop"
            }
            End::Finish => {
                t.finish(FinishReason::Error, 2000.0);
                drop(t);
                "error"
            }
            End::Abort => {
                t.abort(2000.0);
                "abort"
            }
            End::Drop => {
                drop(t);
                "abort"
            }
        };
        let s = scrape(&registry);
        assert_eq!(s.counter(TOKENS, "0"), fed as f64, "{end:?}");
        let itl = s.hist(ITL, "0");
        assert_eq!(itl.count, samples.len() as f64, "{end:?}");
        assert_eq!(itl.sum, direct_sum(&samples), "{end:?}");
        assert_eq!(
            s.counter_by("vllm:request_success", "0", "finished_reason", reason),
            1.0,
            "{end:?}"
        );
    }
}

/// One request of every shape through `metrics`, with `flush_every_output` making the tracker
/// merge after each output, i.e. record every output straight into the shared series.
fn run_requests(metrics: &VllmMetrics, flush_every_output: bool) {
    for (engine, outputs) in [(0, 1), (0, 31), (1, 32), (1, 33), (0, 200)] {
        let mut t = metrics.requests().track(engine, params());
        for i in 0..outputs {
            let (batch, received, out) = output(i);
            let out = if i + 1 == outputs && outputs % 2 == 1 {
                finishing(out, FinishReason::Length)
            } else {
                out
            };
            t.observe_output(batch, received, &out);
            if flush_every_output {
                t.flush();
            }
        }
        if outputs % 2 == 0 {
            // At a fixed time: a dropped tracker would read the wall clock for the e2e latency.
            t.abort(5000.0);
        }
    }
}

#[test]
fn the_exposition_after_requests_end_is_byte_identical_to_recording_every_output() {
    let (local_registry, local) = setup_default();
    let (direct_registry, direct) = setup_default();
    run_requests(&local, false);
    run_requests(&direct, true);
    let (local_text, direct_text) = (scrape(&local_registry).text, scrape(&direct_registry).text);
    assert!(local_text.contains(r#"vllm:generation_tokens_total{model_name="#));
    // Line by line, so that a failure shows the line that differs, not two whole expositions.
    for (local, direct) in local_text.lines().zip(direct_text.lines()) {
        assert_eq!(local, direct);
    }
    assert_eq!(local_text, direct_text);
}

/// vLLM's Rust frontend's assertion: after 31, 63 and 65 generated tokens (one per output)
/// the counter reads 31, 63 and 65. Only the ITL samples wait for the 32-token interval: the
/// first token is a TTFT, not an ITL sample, and each merge publishes the samples up to it.
#[test]
fn generation_tokens_count_each_output_as_it_arrives_and_only_itl_waits_for_the_interval() {
    let (registry, metrics) = setup_default();
    let mut t = metrics.requests().track(0, params());
    let mut fed = 0;
    for (tokens_fed, itl_exported) in [(31, 0.0), (63, 31.0), (65, 63.0)] {
        while fed < tokens_fed {
            t.observe_output(10.0 + f64::from(fed) * 0.05, 1010.0, &tokens(1));
            fed += 1;
        }
        let s = scrape(&registry);
        assert_eq!(s.counter(TOKENS, "0"), f64::from(tokens_fed));
        assert_eq!(
            s.hist(ITL, "0").count,
            itl_exported,
            "after {tokens_fed} tokens"
        );
    }
    // Outputs of several tokens count whole, at once.
    t.observe_output(20.0, 1011.0, &tokens(7));
    assert_eq!(scrape(&registry).counter(TOKENS, "0"), 72.0);
}

#[test]
fn a_scrape_mid_request_sees_every_token_and_lags_by_fewer_itl_samples_than_the_interval() {
    for tokens_per_output in [1usize, 3, 40] {
        let (registry, metrics) = setup_default();
        let mut t = metrics.requests().track(0, params());
        let (mut fed, mut samples, mut merges, mut last_itl) = (0u64, 0u64, 0, 0);
        for i in 0..150u32 {
            let out = tokens(tokens_per_output);
            t.observe_output(10.0 + f64::from(i) * 0.05, 1010.0, &out);
            fed += tokens_per_output as u64;
            samples += u64::from(i > 0);
            let s = scrape(&registry);
            assert_eq!(s.counter(TOKENS, "0") as u64, fed, "live, not merged");
            let itl = s.hist(ITL, "0").count as u64;
            assert!(itl <= samples && samples - itl < FLUSH_INTERVAL_TOKENS);
            if itl != last_itl {
                merges += 1;
                assert_eq!(itl, samples, "a merge publishes every pending sample");
                last_itl = itl;
            }
        }
        // Merges happen at the interval, not on every output (unless an output alone reaches
        // it); the first interval's merge holds one sample fewer (the first token is a TTFT),
        // and with one token per output an interval is 32 outputs, 31 samples the first time.
        let interval = FLUSH_INTERVAL_TOKENS.div_ceil(tokens_per_output as u64);
        let expected = if interval == 1 { 149 } else { 150 / interval };
        assert_eq!(merges, expected, "{tokens_per_output} tokens per output");
        // An explicit flush publishes the rest at once.
        t.flush();
        let s = scrape(&registry);
        assert_eq!(s.counter(TOKENS, "0") as u64, fed);
        assert_eq!(s.hist(ITL, "0").count as u64, samples);
    }
}

#[test]
fn concurrent_merges_and_scrapes_keep_every_histogram_consistent() {
    const THREADS: usize = 3;
    const REQUESTS: usize = 40;
    const OUTPUTS: u32 = 100;
    // Every gap is 0.25 s (exact in binary): the ITL sum is exact, and all samples fall in the
    // `le="0.3"` bucket.
    let (registry, metrics) = setup_default();
    // Exported from the first scrape on, before any request resolves it.
    metrics.scheduler().add_engine(0);
    let done = std::sync::atomic::AtomicUsize::new(0);
    let start = std::sync::Barrier::new(THREADS + 1);
    std::thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| {
                start.wait();
                for _ in 0..REQUESTS {
                    let mut t = metrics.requests().track(0, params());
                    for i in 0..OUTPUTS {
                        t.observe_output(10.0 + f64::from(i) * 0.25, 1010.0, &tokens(1));
                    }
                    t.finish(FinishReason::Stop, 2000.0);
                }
                done.fetch_add(1, std::sync::atomic::Ordering::Release);
            });
        }
        let (mut last_count, mut last_tokens) = (0.0, 0.0);
        start.wait();
        loop {
            let finished = done.load(std::sync::atomic::Ordering::Acquire) == THREADS;
            let scrape = scrape(&registry);
            // `hist` checks `_count` = `+Inf` and cumulative buckets on every scrape.
            let itl = scrape.hist(ITL, "0");
            assert_eq!(itl.le(0.2), 0.0);
            assert_eq!(itl.le(0.3), itl.count);
            // Every scrape sees whole merges: the sum is exactly a quarter of the count.
            assert_eq!(itl.sum, itl.count * 0.25, "{itl:?}");
            let generated = scrape.counter(TOKENS, "0");
            assert!(itl.count >= last_count && generated >= last_tokens);
            (last_count, last_tokens) = (itl.count, generated);
            if finished {
                break;
            }
        }
    });
    let s = scrape(&registry);
    let samples = (THREADS * REQUESTS) as f64 * f64::from(OUTPUTS - 1);
    let itl = s.hist(ITL, "0");
    assert_eq!((itl.count, itl.sum), (samples, samples * 0.25));
    assert_eq!(
        s.counter(TOKENS, "0"),
        (THREADS * REQUESTS) as f64 * f64::from(OUTPUTS)
    );
}
