//! What one request will be: drawn up front from the request's own random stream, so a
//! request's fate never depends on thread timing (deterministic counts at `--concurrency 1`).

use crate::cli::Args;
use crate::sim::connectors::Connectors;
use crate::sim::rng::Rng;
use metric_handles::vllm::scheduler::CacheHitSource;

/// Random streams of one request. Each decision has its own stream so that, e.g., a preemption
/// changing how many decode steps a request takes cannot shift its end-of-sequence draws.
pub mod stream {
    pub const PLAN: u64 = 0;
    pub const STOP: u64 = 1;
    pub const SPEC: u64 = 2;
    pub const PREEMPT: u64 = 3;
}

#[derive(Clone, Debug)]
pub struct RequestPlan {
    pub id: u64,
    pub seed: u64,
    pub prompt_len: u32,
    pub max_tokens: u32,
    /// Prompt tokens already in the engine's prefix cache (whole blocks, never the last token:
    /// like vLLM, the last prompt token is always computed).
    pub cached_prefix: u32,
    /// Where the cached prefix is found the first time the request is scheduled: the engine's
    /// own prefix cache (`Device`) or a connector's tier, which loads it instead of the GPU
    /// computing it.
    pub prefix_source: CacheHitSource,
    /// The engine fails the request during its prefill.
    pub fails_in_prefill: bool,
    /// The client gives up once it has received this many tokens (0: while still queued).
    pub abort_after: Option<u32>,
    /// The LoRA adapter (1-based) the client asks for, if any.
    pub lora: Option<u32>,
}

impl RequestPlan {
    pub fn draw(args: &Args, id: u64) -> Self {
        let mut rng = Rng::for_stream(args.seed, id, stream::PLAN);
        let prompt_len = rng.range_u32(args.prompt_tokens.lo, args.prompt_tokens.hi);
        let max_tokens = rng.range_u32(args.max_tokens.lo, args.max_tokens.hi);
        Self::finish(args, id, rng, prompt_len, max_tokens)
    }

    fn finish(args: &Args, id: u64, mut rng: Rng, prompt_len: u32, max_tokens: u32) -> Self {
        let cached_prefix = if rng.chance(args.prefix_cache_hit_rate) {
            // A shared system prompt or conversation history: 30-90% of the prompt.
            let share = 0.3 + 0.6 * rng.unit();
            let tokens = (f64::from(prompt_len) * share) as u32;
            let whole_blocks = tokens / args.block_size * args.block_size;
            whole_blocks.min(prompt_len.saturating_sub(1) / args.block_size * args.block_size)
        } else {
            0
        };
        let fails_in_prefill = rng.chance(args.error_rate);
        let abort_after = rng
            .chance(args.abort_rate)
            .then(|| rng.range_u32(0, max_tokens - 1));
        // Drawn last: turning adapters on or off changes no other draw.
        let lora = (args.lora_adapters > 0 && rng.chance(0.3))
            .then(|| rng.range_u32(1, args.lora_adapters));
        // Drawn after the adapter, for the same reason. The engine's own cache holds half of
        // the shared prefixes; the running connectors' tiers share the other half.
        let tiers = Connectors::from_args(args).external_sources();
        let prefix_source = if cached_prefix > 0 && !tiers.is_empty() && rng.chance(0.5) {
            tiers[rng.range_u32(0, tiers.len() as u32 - 1) as usize]
        } else {
            CacheHitSource::Device
        };
        RequestPlan {
            id,
            seed: args.seed,
            prompt_len,
            max_tokens,
            cached_prefix,
            prefix_source,
            fails_in_prefill,
            abort_after,
            lora,
        }
    }

    /// The plan of request `id` whose client asked for `prompt_len` and `max_tokens`: the
    /// server's draws for it (cached prefix, failure, abort point, random streams). Equal to
    /// [`RequestPlan::draw`] when the client sent that request's own lengths.
    pub fn draw_for(args: &Args, id: u64, prompt_len: u32, max_tokens: u32) -> Self {
        let mut rng = Rng::for_stream(args.seed, id, stream::PLAN);
        // The same draws in the same order as `draw`, so both agree on everything else.
        let _ = rng.range_u32(args.prompt_tokens.lo, args.prompt_tokens.hi);
        let _ = rng.range_u32(args.max_tokens.lo, args.max_tokens.hi);
        Self::finish(args, id, rng, prompt_len, max_tokens)
    }

    pub fn rng(&self, stream: u64) -> Rng {
        Rng::for_stream(self.seed, self.id, stream)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn zero_rates_give_plain_requests_and_cached_prefixes_are_whole_blocks() {
        let args = Args::parse_from([
            "frontend",
            "--abort-rate=0",
            "--error-rate=0",
            "--prefix-cache-hit-rate=0",
            "--prompt-tokens=12",
            "--max-tokens=10",
        ]);
        for id in 0..100 {
            let p = RequestPlan::draw(&args, id);
            assert_eq!((p.prompt_len, p.max_tokens, p.cached_prefix), (12, 10, 0));
            assert!(!p.fails_in_prefill && p.abort_after.is_none());
        }
        let args = Args::parse_from(["frontend", "--prefix-cache-hit-rate=1"]);
        for id in 0..100 {
            let p = RequestPlan::draw(&args, id);
            assert_eq!(p.cached_prefix % 16, 0);
            assert!(p.cached_prefix < p.prompt_len);
            assert_eq!(p.max_tokens, RequestPlan::draw(&args, id).max_tokens);
        }
    }

    #[test]
    fn cached_prefixes_come_from_every_running_tier_and_only_from_those() {
        let sources = |flags: &[&str]| {
            let args = Args::parse_from(
                ["frontend", "--prefix-cache-hit-rate=1"]
                    .iter()
                    .chain(flags),
            );
            let mut seen: Vec<CacheHitSource> = (0..400)
                .map(|id| RequestPlan::draw(&args, id))
                .filter(|p| p.cached_prefix > 0)
                .map(|p| p.prefix_source)
                .collect();
            seen.sort_by_key(|s| *s as u8);
            seen.dedup();
            seen
        };
        use CacheHitSource::*;
        assert_eq!(sources(&[]), [Device, Host, P2p, Disk, ExternalUnspecified]);
        assert_eq!(
            sources(&["--nixl=false", "--kv-offload=false"]),
            [Device, ExternalUnspecified]
        );
        assert_eq!(
            sources(&["--nixl=false", "--mooncake=false", "--kv-offload=false"]),
            [Device]
        );
        // Connectors change where a prefix is, never the other draws.
        let plain = Args::parse_from(["frontend", "--nixl=false", "--mooncake=false"]);
        let all = Args::parse_from(["frontend"]);
        for id in 0..50 {
            let (a, b) = (RequestPlan::draw(&plain, id), RequestPlan::draw(&all, id));
            assert_eq!(
                (a.cached_prefix, a.abort_after, a.lora),
                (b.cached_prefix, b.abort_after, b.lora)
            );
        }
    }
}
