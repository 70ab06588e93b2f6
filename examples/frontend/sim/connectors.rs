//! Simulated KV connectors: where a request's cached prefix comes from when the engine's own
//! prefix cache does not hold it, and the telemetry each connector would report for one
//! scheduler step.
//!
//! * A NIXL-like connector pulls a prefix a peer instance computed (source `p2p`): one
//!   transfer per such request, with its time, bytes and descriptors.
//! * A Mooncake-like store is asked about every newly scheduled prompt, loads the prefixes it
//!   holds (source `external_unspecified`: vLLM's Mooncake store connector does not say which of
//!   its tiers served a hit) and saves the newly computed blocks.
//! * An offloading connector keeps blocks the GPU evicted in host memory, then on disk
//!   (sources `host` and `disk`); vLLM exports no telemetry family of its own for it.
//!
//! Sizes follow the rough 8B model of the engine's cost model (128 KiB of KV per token);
//! bandwidths are plausible RDMA and store figures.

use std::collections::BTreeMap;

use crate::cli::Args;
use crate::sim::rng::Rng;
use metric_handles::vllm::connectors::{
    KvConnectorStats, MooncakeOperation, MooncakeRecord, MooncakeStats, MooncakeStatus, NixlStats,
};
use metric_handles::vllm::scheduler::{CacheHitSource, CachedTokensBySource, PrefixCacheStats};

const KV_BYTES_PER_TOKEN: u64 = 131_072;
const NIXL_BYTES_PER_SECOND: f64 = 25e9;
const STORE_BYTES_PER_SECOND: f64 = 8e9;

/// Which connectors an engine runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Connectors {
    pub nixl: bool,
    pub mooncake: bool,
    pub kv_offload: bool,
}

/// One request the step scheduled for prefill.
#[derive(Clone, Copy, Debug)]
pub struct Admitted {
    /// Tokens to prefill (the prompt, plus what a preempted request had generated).
    pub prompt_tokens: u64,
    /// Of those, tokens the engine's own prefix cache held.
    pub local_cached: u64,
    /// Of those, tokens a connector loaded, and the tier it loaded them from.
    pub external: Option<(CacheHitSource, u64)>,
    /// Tokens the GPU computes: the rest.
    pub computed_tokens: u64,
}

impl Admitted {
    fn external_from(&self, source: CacheHitSource) -> Option<u64> {
        self.external
            .and_then(|(from, tokens)| (from == source).then_some(tokens))
    }
}

impl Connectors {
    pub fn from_args(args: &Args) -> Self {
        Connectors {
            nixl: args.nixl,
            mooncake: args.mooncake,
            kv_offload: args.kv_offload,
        }
    }

    pub fn any(&self) -> bool {
        self.nixl || self.mooncake || self.kv_offload
    }

    /// The tiers a cached prefix can be found in besides the GPU's own cache, one per running
    /// connector tier.
    pub fn external_sources(&self) -> Vec<CacheHitSource> {
        let mut sources = Vec::new();
        if self.nixl {
            sources.push(CacheHitSource::P2p);
        }
        if self.mooncake {
            sources.push(CacheHitSource::ExternalUnspecified);
        }
        if self.kv_offload {
            sources.extend([CacheHitSource::Host, CacheHitSource::Disk]);
        }
        sources
    }

    /// The step's telemetry; `None` when no connector with telemetry runs or nothing was
    /// scheduled.
    pub fn step_stats(
        &self,
        admitted: &[Admitted],
        block_size: u32,
        rng: &mut Rng,
    ) -> Option<KvConnectorStats> {
        if !(self.nixl || self.mooncake) || admitted.is_empty() {
            return None;
        }
        let blocks = |tokens: u64| tokens.div_ceil(u64::from(block_size));
        let mut stats = KvConnectorStats::default();
        if self.nixl {
            let mut nixl = NixlStats::default();
            for tokens in admitted
                .iter()
                .filter_map(|a| a.external_from(CacheHitSource::P2p))
            {
                if rng.chance(0.01) {
                    // The first attempt failed; the retry below brought the blocks.
                    nixl.num_failed_transfers.push(1);
                }
                let bytes = tokens * KV_BYTES_PER_TOKEN;
                let transfer = bytes as f64 / NIXL_BYTES_PER_SECOND * (0.8 + 0.4 * rng.unit());
                nixl.transfer_duration.push(transfer);
                nixl.post_duration.push(0.000_05 + 0.000_2 * rng.unit());
                nixl.bytes_transferred.push(bytes);
                nixl.num_descriptors.push(blocks(tokens));
            }
            if rng.chance(0.005) {
                nixl.num_failed_notifications.push(1);
            }
            if rng.chance(0.005) {
                nixl.num_kv_expired_reqs.push(1);
            }
            stats.nixl.push(nixl);
        }
        if self.mooncake {
            let mut ops: BTreeMap<MooncakeOperation, Vec<MooncakeRecord>> = BTreeMap::new();
            for a in admitted {
                ops.entry(MooncakeOperation::LookupExists)
                    .or_default()
                    .push(record(rng, blocks(a.prompt_tokens), 0));
                if let Some(tokens) = a.external_from(CacheHitSource::ExternalUnspecified) {
                    ops.entry(MooncakeOperation::LoadGet)
                        .or_default()
                        .push(record(rng, blocks(tokens), tokens * KV_BYTES_PER_TOKEN));
                }
                let computed = blocks(a.computed_tokens);
                ops.entry(MooncakeOperation::SaveExists)
                    .or_default()
                    .push(record(rng, computed, 0));
                ops.entry(MooncakeOperation::SavePut)
                    .or_default()
                    .push(record(
                        rng,
                        computed,
                        a.computed_tokens * KV_BYTES_PER_TOKEN,
                    ));
            }
            stats.mooncake = Some(MooncakeStats(ops));
        }
        Some(stats)
    }

    /// The connectors' prefix-cache counters for the step: every token the engine's own cache
    /// did not hold is asked of them; their hits are the tokens they loaded, by tier.
    pub fn prefix_stats(&self, admitted: &[Admitted]) -> Option<PrefixCacheStats> {
        if !self.any() || admitted.is_empty() {
            return None;
        }
        let mut stats = PrefixCacheStats {
            requests: admitted.len() as u64,
            ..PrefixCacheStats::default()
        };
        for a in admitted {
            stats.queries += a.prompt_tokens - a.local_cached;
            if let Some((source, tokens)) = a.external {
                stats.hits += tokens;
                add_source(&mut stats.hits_by_source, source, tokens);
            }
        }
        Some(stats)
    }
}

fn add_source(by_source: &mut CachedTokensBySource, source: CacheHitSource, tokens: u64) {
    let count = match source {
        CacheHitSource::Device => &mut by_source.device,
        CacheHitSource::Host => &mut by_source.host,
        CacheHitSource::P2p => &mut by_source.p2p,
        CacheHitSource::Disk => &mut by_source.disk,
        CacheHitSource::ExternalUnspecified => &mut by_source.external_unspecified,
    };
    *count += tokens;
}

/// One store operation on `keys` keys moving `bytes`: mostly `ok`, now and then a partial
/// failure or an error.
fn record(rng: &mut Rng, keys: u64, bytes: u64) -> MooncakeRecord {
    let roll = rng.unit();
    let (status, failed) = if roll < 0.005 {
        (MooncakeStatus::Error, keys)
    } else if roll < 0.015 && keys > 1 {
        (MooncakeStatus::PartialFailure, 1 + keys / 4)
    } else {
        (MooncakeStatus::Ok, 0)
    };
    MooncakeRecord {
        duration_seconds: 0.000_2
            + bytes as f64 / STORE_BYTES_PER_SECOND * (0.8 + 0.4 * rng.unit()),
        num_keys: keys,
        num_bytes: bytes,
        status,
        num_failed_keys: failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Connectors = Connectors {
        nixl: true,
        mooncake: true,
        kv_offload: true,
    };

    fn admitted() -> [Admitted; 4] {
        let hit = |source, tokens: u64| Admitted {
            prompt_tokens: 100,
            local_cached: 0,
            external: Some((source, tokens)),
            computed_tokens: 100 - tokens,
        };
        [
            Admitted {
                prompt_tokens: 100,
                local_cached: 32,
                external: None,
                computed_tokens: 68,
            },
            hit(CacheHitSource::P2p, 48),
            hit(CacheHitSource::ExternalUnspecified, 64),
            hit(CacheHitSource::Disk, 16),
        ]
    }

    #[test]
    fn connector_hits_are_counted_by_tier_and_local_hits_are_not_theirs() {
        let prefix = ALL.prefix_stats(&admitted()).expect("prefix stats");
        assert_eq!(prefix.requests, 4);
        // Everything but the 32 locally cached tokens is asked of the connectors.
        assert_eq!(prefix.queries, 400 - 32);
        assert_eq!(prefix.hits, 48 + 64 + 16);
        assert_eq!(
            prefix.hits_by_source,
            CachedTokensBySource {
                device: 0,
                host: 0,
                p2p: 48,
                disk: 16,
                external_unspecified: 64,
            }
        );
        assert!(Connectors::default().prefix_stats(&admitted()).is_none());
    }

    #[test]
    fn peers_transfer_their_prefixes_and_the_store_loads_its_own() {
        let mut rng = Rng::for_stream(1, 2, 3);
        let stats = ALL.step_stats(&admitted(), 16, &mut rng).expect("stats");
        let nixl = &stats.nixl[0];
        assert_eq!(nixl.bytes_transferred, [48 * KV_BYTES_PER_TOKEN]);
        assert_eq!(nixl.num_descriptors, [3]);
        let ops = &stats.mooncake.expect("mooncake").0;
        assert_eq!(ops[&MooncakeOperation::LookupExists].len(), 4);
        let loads = &ops[&MooncakeOperation::LoadGet];
        assert_eq!(
            (loads.len(), loads[0].num_keys),
            (1, 4),
            "one 64-token prefix"
        );
        assert_eq!(ops[&MooncakeOperation::SavePut][0].num_keys, 5);
        let offload_only = Connectors {
            kv_offload: true,
            ..Connectors::default()
        };
        assert!(offload_only.step_stats(&admitted(), 16, &mut rng).is_none());
        assert!(ALL.step_stats(&[], 16, &mut rng).is_none());
        assert_eq!(offload_only.external_sources().len(), 2);
        assert_eq!(ALL.external_sources().len(), 4);
    }
}
