//! Simulated KV-connector telemetry: what a NIXL-like connector (the KV cache of each newly
//! scheduled prompt pulled from a prefill instance, as in prefill/decode disaggregation) and a
//! Mooncake-like store (prefixes looked up and loaded, newly computed blocks saved) would
//! report for one scheduler step. Sizes follow the rough 8B model of the engine's cost model
//! (128 KiB of KV per token); bandwidths are plausible RDMA and store figures.

use std::collections::BTreeMap;

use crate::recorders::{
    KvConnectorStats, MooncakeOperation, MooncakeRecord, MooncakeStats, MooncakeStatus, NixlStats,
    PrefixCacheStats,
};
use crate::rng::Rng;

const KV_BYTES_PER_TOKEN: u64 = 131_072;
const NIXL_BYTES_PER_SECOND: f64 = 25e9;
const STORE_BYTES_PER_SECOND: f64 = 8e9;

/// Which connectors an engine runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Connectors {
    pub nixl: bool,
    pub mooncake: bool,
}

/// One request the step scheduled for prefill.
#[derive(Clone, Copy, Debug)]
pub struct Admitted {
    pub prompt_tokens: u64,
    pub cached_tokens: u64,
    pub computed_tokens: u64,
}

impl Connectors {
    pub fn any(&self) -> bool {
        self.nixl || self.mooncake
    }

    /// The step's telemetry; `None` when no connector runs or nothing was scheduled.
    pub fn step_stats(
        &self,
        admitted: &[Admitted],
        block_size: u32,
        rng: &mut Rng,
    ) -> Option<KvConnectorStats> {
        if !self.any() || admitted.is_empty() {
            return None;
        }
        let blocks = |tokens: u64| tokens.div_ceil(u64::from(block_size));
        let mut stats = KvConnectorStats::default();
        if self.nixl {
            let mut nixl = NixlStats::default();
            for a in admitted {
                if rng.chance(0.01) {
                    nixl.num_failed_transfers.push(1);
                    continue;
                }
                let bytes = a.prompt_tokens * KV_BYTES_PER_TOKEN;
                let transfer = bytes as f64 / NIXL_BYTES_PER_SECOND * (0.8 + 0.4 * rng.unit());
                nixl.transfer_duration.push(transfer);
                nixl.post_duration.push(0.000_05 + 0.000_2 * rng.unit());
                nixl.bytes_transferred.push(bytes);
                nixl.num_descriptors.push(blocks(a.prompt_tokens));
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
                let prompt_blocks = blocks(a.prompt_tokens);
                ops.entry(MooncakeOperation::LookupExists)
                    .or_default()
                    .push(record(rng, prompt_blocks, 0));
                if a.cached_tokens > 0 {
                    ops.entry(MooncakeOperation::LoadGet)
                        .or_default()
                        .push(record(
                            rng,
                            blocks(a.cached_tokens),
                            a.cached_tokens * KV_BYTES_PER_TOKEN,
                        ));
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

    /// The connector's prefix-cache counters for the step: every prompt token the local cache
    /// did not hold is asked of the connector. The simulated connector never has them (its
    /// transfers bring whole prompts of another instance), so its hits stay 0.
    pub fn prefix_stats(&self, admitted: &[Admitted]) -> Option<PrefixCacheStats> {
        if !self.any() || admitted.is_empty() {
            return None;
        }
        Some(PrefixCacheStats {
            requests: admitted.len() as u64,
            queries: admitted
                .iter()
                .map(|a| a.prompt_tokens - a.cached_tokens)
                .sum(),
            ..PrefixCacheStats::default()
        })
    }
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

    #[test]
    fn every_scheduled_prompt_is_transferred_looked_up_and_saved() {
        let both = Connectors {
            nixl: true,
            mooncake: true,
        };
        let admitted = [
            Admitted {
                prompt_tokens: 100,
                cached_tokens: 32,
                computed_tokens: 68,
            },
            Admitted {
                prompt_tokens: 16,
                cached_tokens: 0,
                computed_tokens: 16,
            },
        ];
        let mut rng = Rng::for_stream(1, 2, 3);
        let stats = both.step_stats(&admitted, 16, &mut rng).expect("stats");
        let nixl = &stats.nixl[0];
        assert_eq!(
            nixl.transfer_duration.len() + nixl.num_failed_transfers.len(),
            2
        );
        let ops = &stats.mooncake.expect("mooncake").0;
        assert_eq!(ops[&MooncakeOperation::LookupExists].len(), 2);
        assert_eq!(
            ops[&MooncakeOperation::LoadGet].len(),
            1,
            "one cached prefix"
        );
        assert_eq!(ops[&MooncakeOperation::SavePut][0].num_keys, 5);
        assert!(Connectors::default()
            .step_stats(&admitted, 16, &mut rng)
            .is_none());
        assert!(both.step_stats(&[], 16, &mut rng).is_none());
        let prefix = both.prefix_stats(&admitted).expect("prefix stats");
        assert_eq!((prefix.requests, prefix.queries, prefix.hits), (2, 84, 0));
    }
}
