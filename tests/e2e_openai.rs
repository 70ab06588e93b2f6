//! End to end with the official Python `openai` client: it streams completions from the demo
//! frontend's OpenAI-compatible API (and asks for plain ones), and the server's counters must
//! equal what the client received: requests, prompt and generated tokens, HTTP requests by
//! route and status class. The time to first token the client measured must fall in the
//! bucket range of the server's TTFT histogram.
//!
//! Needs Python 3 with the `openai` package (PyPI `openai`). Without it the test says SKIPPED
//! and passes, unless `METRIC_HANDLES_REQUIRE_TOOLS=1` (set by `.ci/run`).

mod support;

use std::process::Command;

use support::demo::{http_get, parse_exposition, serve_frontend, Sample, Samples, ZERO_RATES};
use support::openai_or_skip;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/openai_stream.py");

/// `(lo, hi]`: from the upper bound of the last bucket no observation fell under to the
/// upper bound of the first bucket holding them all.
fn bucket_range(samples: &[Sample], name: &str) -> (f64, f64) {
    let mut buckets: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| s.name == format!("{name}_bucket"))
        .map(|s| {
            let le = s.labels["le"].parse::<f64>().expect("le");
            (le, s.value)
        })
        .collect();
    buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total = buckets.last().expect("+Inf bucket").1;
    let lo = buckets
        .iter()
        .filter(|(_, count)| *count == 0.0)
        .map(|(le, _)| *le)
        .fold(0.0, f64::max);
    let hi = buckets
        .iter()
        .find(|(_, count)| *count == total)
        .map(|(le, _)| *le)
        .expect("a bucket holds every observation");
    (lo, hi)
}

#[test]
fn the_openai_client_receives_what_the_server_counts() {
    if !openai_or_skip("the_openai_client_receives_what_the_server_counts") {
        return;
    }
    const STREAMED: u64 = 6;
    const PLAIN: u64 = 2;
    // A 3000-token prompt prefills in about 0.16 s of simulated engine time at --speed 1
    // (0.14-0.17 s with the step jitter): the TTFT of every request lands well inside one
    // histogram bucket, (0.1, 0.25], whatever the client's own overhead of a few ms.
    const PROMPT_WORDS: u64 = 3000;
    const MAX_TOKENS: u64 = 16;
    let mut args = vec![
        "--engines=1",
        "--concurrency=0",
        "--requests=0",
        "--speed=1",
    ];
    args.extend_from_slice(ZERO_RATES);
    let (_guard, addr, _stdout) = serve_frontend(&args);

    let output = Command::new("python3")
        .arg(SCRIPT)
        .arg(format!("http://{addr}"))
        .args([STREAMED, PLAIN, PROMPT_WORDS, MAX_TOKENS].map(|n| n.to_string()))
        .output()
        .expect("run python3");
    assert!(
        output.status.success(),
        "the openai client failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let got: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("the script prints JSON");
    assert_eq!(
        got["models"],
        serde_json::json!(["meta-llama/Llama-3.1-8B-Instruct", "adapter-1", "adapter-2"])
    );
    assert_eq!(got["unknown_model"], 404);

    let mut tokens = 0;
    let mut ttfts = Vec::new();
    for kind in ["streamed", "plain"] {
        for r in got[kind].as_array().expect("requests") {
            assert_eq!(r["finish"], "length", "{kind}: {r}");
            assert_eq!(r["tokens"], MAX_TOKENS, "{kind}: {r}");
            assert_eq!(r["usage"]["completion_tokens"], r["tokens"], "{kind}: {r}");
            assert_eq!(r["usage"]["prompt_tokens"], PROMPT_WORDS, "{kind}: {r}");
            tokens += r["tokens"].as_u64().expect("tokens");
            if kind == "streamed" {
                // One chunk per engine step: the prefill's token, then one per decode step.
                assert_eq!(r["chunks"], MAX_TOKENS, "{r}");
                // `null` for the first, which also timed the client's own warm-up.
                ttfts.extend(r["ttft"].as_f64());
            }
        }
    }

    let scrape = http_get(addr, "/metrics", None).expect("scrape");
    let s = parse_exposition(&scrape.body);
    let requests = (STREAMED + PLAIN) as f64;
    assert_eq!(
        s.sum(
            "vllm:request_success_total",
            &[("finished_reason", "length")]
        ),
        requests
    );
    assert_eq!(s.sum("vllm:request_success_total", &[]), requests);
    assert_eq!(s.sum("vllm:generation_tokens_total", &[]), tokens as f64);
    assert_eq!(
        s.sum("vllm:prompt_tokens_total", &[]),
        requests * PROMPT_WORDS as f64
    );
    assert_eq!(
        s.sum("vllm:time_to_first_token_seconds_count", &[]),
        requests
    );
    let http = |handler: &str, method: &str, status: &str| {
        s.sum(
            "http_requests_total",
            &[("handler", handler), ("method", method), ("status", status)],
        )
    };
    assert_eq!(http("/v1/completions", "POST", "2xx"), requests);
    assert_eq!(
        http("/v1/completions", "POST", "4xx"),
        1.0,
        "the unknown model"
    );
    assert_eq!(http("/v1/models", "GET", "2xx"), 1.0);
    assert_eq!(
        s.sum("http_request_duration_highr_seconds_count", &[]),
        requests + 2.0
    );

    assert_eq!(ttfts.len() as u64, STREAMED - 1);
    let (lo, hi) = bucket_range(&s, "vllm:time_to_first_token_seconds");
    eprintln!(
        "client TTFTs {ttfts:?} (warm-up {}); the server's TTFT histogram holds them all in ({lo}, {hi}]",
        got["warmup_ttft"]
    );
    for ttft in &ttfts {
        assert!(
            *ttft > lo && *ttft <= hi,
            "client TTFT {ttft} s is outside the server's TTFT buckets ({lo}, {hi}]"
        );
    }
}
