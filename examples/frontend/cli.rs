//! Command-line options. Defaults give a lively demo (`cargo run --release --example frontend`);
//! every source of randomness has a rate that can be set to 0 for exact, checkable counts.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;

use clap::Parser;

/// A simulated LLM serving frontend (vLLM-style engines, no GPU) exporting the complete vLLM
/// metric set on /metrics through metric-handles.
#[derive(Debug, Clone, Parser)]
#[command(name = "frontend", version)]
pub struct Args {
    /// Engines (data-parallel engine cores) at start-up
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub engines: u32,

    /// Requests to run; 0 runs until stopped (Ctrl-C)
    #[arg(long, default_value_t = 0)]
    pub requests: u64,

    /// Concurrent built-in clients, each sending its next request over HTTP when the previous
    /// one ends; 0 leaves the server to outside clients
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(0..=4096))]
    pub concurrency: u32,

    /// Prompt length in tokens: `N`, or `LO..HI` for a uniform draw per request
    #[arg(long, default_value = "64..2048")]
    pub prompt_tokens: TokenRange,

    /// The request's max_tokens: `N`, or `LO..HI` for a uniform draw per request
    #[arg(long, default_value = "32..512")]
    pub max_tokens: TokenRange,

    /// Seed of every random draw; with --concurrency 1 the counts are deterministic
    #[arg(long, default_value_t = 42)]
    pub seed: u64,

    /// Address to serve /metrics on (port 0 picks a free port; the URL is printed)
    #[arg(long, default_value = "127.0.0.1:9400")]
    pub listen: SocketAddr,

    /// Run the workload to completion, print the final exposition (Prometheus text 0.0.4) on
    /// stdout and exit without serving; needs --requests > 0
    #[arg(long)]
    pub print_metrics: bool,

    /// Simulated seconds per real second: 10 runs a 10-minute workload in a minute
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,

    /// Chance that a client aborts its request (at a uniformly drawn point of its output)
    #[arg(long, default_value_t = 0.02, value_parser = parse_rate)]
    pub abort_rate: f64,

    /// Chance per decode step that the scheduler preempts a running request (on top of the
    /// preemptions KV-cache pressure causes)
    #[arg(long, default_value_t = 0.002, value_parser = parse_rate)]
    pub preemption_rate: f64,

    /// Chance that a request's prompt starts with a prefix already cached: in the engine's own
    /// prefix cache or, with connectors, in one of their tiers
    #[arg(long, default_value_t = 0.5, value_parser = parse_rate)]
    pub prefix_cache_hit_rate: f64,

    /// Speculative tokens proposed per decode step (0 disables speculative decoding)
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(0..=16))]
    pub spec_decode_tokens: u32,

    /// Chance that a draft token is accepted, given that the ones before it were
    #[arg(long, default_value_t = 0.7, value_parser = parse_rate)]
    pub spec_acceptance_rate: f64,

    /// Chance per generated token that it is the end-of-sequence token (finish reason `stop`)
    #[arg(long, default_value_t = 0.004, value_parser = parse_rate)]
    pub stop_rate: f64,

    /// Chance that the engine fails a request during prefill (finish reason `error`)
    #[arg(long, default_value_t = 0.001, value_parser = parse_rate)]
    pub error_rate: f64,

    /// Simulated seconds between engine churn events: one engine joins, next time the newest
    /// leaves (draining its requests first); 0 keeps the engine set fixed
    #[arg(long, default_value_t = 30.0)]
    pub churn_interval: f64,

    /// KV-cache blocks per engine
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u32).range(1..))]
    pub kv_blocks: u32,

    /// Tokens per KV-cache block
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub block_size: u32,

    /// Most requests one engine runs in a batch
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_num_seqs: u32,

    /// Most prompt tokens one engine prefills per step
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_batched_tokens: u32,

    /// The `model_name` label
    #[arg(long, default_value = "meta-llama/Llama-3.1-8B-Instruct")]
    pub model_name: String,

    /// Context length of the model: the top bucket of the token-count histograms
    #[arg(long, default_value_t = 131072, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_model_len: u32,

    /// Also expose the metrics vLLM hid after this version, under their deprecated names (e.g.
    /// 0.10, which restores all four)
    #[arg(long, value_name = "VERSION")]
    pub show_hidden_metrics_for_version: Option<String>,

    /// Native (sparse exponential) buckets beside the classic ones on every request-latency
    /// histogram, at bucket factor 1.1 (schema 3) and at most 160 buckets per series: a
    /// Prometheus with native histograms on asks for protobuf and stores both; a text scraper
    /// still gets the classic buckets
    #[arg(long)]
    pub native_histograms: bool,

    /// Each request's OpenAI completion id (`cmpl-N`) as the `trace_id` exemplar of its time
    /// to first token, end-to-end latency and inter-token latency observations and of its
    /// `vllm:generation_tokens` increments, written by OpenMetrics and protobuf scrapes
    #[arg(long)]
    pub exemplars: bool,

    /// Write what the simulated clients saw (requests per finish reason, tokens, ...) as JSON
    /// to FILE when the workload completes
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,

    /// Real seconds between vLLM-style stats log lines on stderr
    #[arg(long, default_value_t = 10.0)]
    pub log_interval: f64,

    /// Simulate a NIXL-like KV connector: every prompt's KV cache is pulled from a prefill
    /// instance (`vllm:nixl_*`)
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub nixl: bool,

    /// Simulate a Mooncake-like KV store: prefixes looked up and loaded, computed blocks saved
    /// (`vllm:mooncake_store_*`)
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub mooncake: bool,

    /// Simulate a KV offloading connector: blocks the GPU evicts are kept in host memory, then
    /// on disk, and a prefix found there is loaded instead of computed (sources `host`, `disk`)
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub kv_offload: bool,

    /// LoRA adapters served beside the base model (`adapter-1`, ...); the built-in clients
    /// send 30% of their requests to one of them; 0 serves the base model only
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=64))]
    pub lora_adapters: u32,

    /// Simulated seconds between sleep/wake cycles: an engine stops taking requests, sleeps
    /// (weights offloaded, KV cache released) for a quarter of the interval, then wakes; needs
    /// two engines awake; 0 never sleeps
    #[arg(long, default_value_t = 60.0)]
    pub sleep_interval: f64,

    /// Seconds a connection has to send a request's headers; an idle keep-alive connection is
    /// closed after the same time
    #[arg(long, default_value_t = 10.0)]
    pub header_read_timeout: f64,

    /// Seconds a request has to send its body
    #[arg(long, default_value_t = 30.0)]
    pub body_read_timeout: f64,

    /// Seconds a connection may refuse every byte of its response before it is closed
    #[arg(long, default_value_t = 30.0)]
    pub write_stall_timeout: f64,

    /// Most open HTTP connections (also kept below the process's file-descriptor limit); at the
    /// limit a new connection closes the oldest one with no request in progress, or gets a 503
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
}

impl Args {
    /// The names of the served LoRA adapters.
    pub fn lora_adapter_names(&self) -> Vec<String> {
        (1..=self.lora_adapters).map(lora_adapter_name).collect()
    }

    /// Checks the combinations clap cannot express. Returns a message for the user.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.speed.is_finite() && self.speed > 0.0) {
            return Err(format!(
                "--speed must be a positive number, got {}",
                self.speed
            ));
        }
        if !(self.sleep_interval.is_finite() && self.sleep_interval >= 0.0) {
            return Err("--sleep-interval must be >= 0".into());
        }
        if !(self.churn_interval.is_finite() && self.churn_interval >= 0.0) {
            return Err("--churn-interval must be >= 0".into());
        }
        if !(self.log_interval.is_finite() && self.log_interval > 0.0) {
            return Err("--log-interval must be > 0".into());
        }
        for (flag, value) in [
            ("--header-read-timeout", self.header_read_timeout),
            ("--body-read-timeout", self.body_read_timeout),
            ("--write-stall-timeout", self.write_stall_timeout),
        ] {
            // Bounded above so that `Duration::from_secs_f64` cannot overflow.
            if !(value.is_finite() && value > 0.0 && value <= 86_400.0) {
                return Err(format!("{flag} must be > 0 and at most 86400 seconds"));
            }
        }
        if self.print_metrics && self.requests == 0 {
            return Err(
                "--print-metrics runs the workload to completion: give --requests N with N > 0"
                    .into(),
            );
        }
        if self.concurrency == 0 && self.requests > 0 {
            return Err(
                "--requests needs built-in clients: give --concurrency N with N > 0".into(),
            );
        }
        if self.prompt_tokens.lo == 0 || self.max_tokens.lo == 0 {
            return Err("--prompt-tokens and --max-tokens must be at least 1".into());
        }
        let longest = u64::from(self.prompt_tokens.hi) + u64::from(self.max_tokens.hi);
        if longest > u64::from(self.max_model_len) {
            return Err(format!(
                "the longest request ({longest} tokens) exceeds --max-model-len {}",
                self.max_model_len
            ));
        }
        let blocks = longest.div_ceil(u64::from(self.block_size));
        if blocks > u64::from(self.kv_blocks) {
            return Err(format!(
                "the longest request needs {blocks} KV blocks but an engine has --kv-blocks {}",
                self.kv_blocks
            ));
        }
        Ok(())
    }
}

/// The name of LoRA adapter `k` (1-based).
pub fn lora_adapter_name(k: u32) -> String {
    format!("adapter-{k}")
}

fn parse_rate(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("a rate is between 0 and 1, got {v}"))
    }
}

/// `N` or `LO..HI` (inclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenRange {
    pub lo: u32,
    pub hi: u32,
}

impl FromStr for TokenRange {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let num = |t: &str| {
            t.trim()
                .parse::<u32>()
                .map_err(|e| format!("`{t}`: {e} (write N or LO..HI)"))
        };
        let (lo, hi) = match s.split_once("..") {
            Some((lo, hi)) => (num(lo)?, num(hi.trim_start_matches('='))?),
            None => {
                let n = num(s)?;
                (n, n)
            }
        };
        if lo > hi {
            return Err(format!("empty range {lo}..{hi}"));
        }
        Ok(TokenRange { lo, hi })
    }
}

impl fmt::Display for TokenRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.lo == self.hi {
            write!(f, "{}", self.lo)
        } else {
            write!(f, "{}..{}", self.lo, self.hi)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_ranges_parse() {
        assert_eq!("12".parse(), Ok(TokenRange { lo: 12, hi: 12 }));
        assert_eq!("3..9".parse(), Ok(TokenRange { lo: 3, hi: 9 }));
        assert_eq!("3..=9".parse(), Ok(TokenRange { lo: 3, hi: 9 }));
        assert!("9..3".parse::<TokenRange>().is_err());
        assert!("x".parse::<TokenRange>().is_err());
    }

    #[test]
    fn validation_rejects_requests_that_cannot_fit() {
        let mut args = Args::parse_from(["frontend", "--kv-blocks", "4", "--max-tokens", "100"]);
        assert!(args.validate().unwrap_err().contains("KV blocks"));
        args = Args::parse_from(["frontend", "--print-metrics"]);
        assert!(args.validate().unwrap_err().contains("--requests"));
        assert!(Args::try_parse_from(["frontend", "--abort-rate", "1.5"]).is_err());
        assert!(Args::parse_from(["frontend"]).validate().is_ok());
    }
}
