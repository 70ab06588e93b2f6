//! An engine's KV-cache block pool. Freed blocks keep their contents (they stay usable as
//! prefix cache) until a new allocation evicts them, oldest first, which is when vLLM reports
//! a block's residency (`vllm:kv_block_*` histograms).

use std::collections::VecDeque;

use metric_handles::vllm::scheduler::KvCacheEvictionEvent;

/// The blocks one request released together: evicted together, reported as one sampled event
/// (vLLM samples evictions too rather than reporting every block).
struct CachedGroup {
    blocks: u32,
    allocated_at: f64,
    last_access: f64,
    reuse_gaps: Vec<f64>,
}

pub struct KvCache {
    total: u32,
    used: u32,
    cached_blocks: u32,
    cached: VecDeque<CachedGroup>,
}

impl KvCache {
    pub fn new(total: u32) -> Self {
        KvCache {
            total,
            used: 0,
            cached_blocks: 0,
            cached: VecDeque::new(),
        }
    }

    /// Blocks an allocation may take: never-used ones plus evictable cached ones.
    pub fn available(&self) -> u32 {
        self.total - self.used
    }

    /// Fraction of blocks held by running requests (what `vllm:kv_cache_usage_perc` shows).
    pub fn usage(&self) -> f64 {
        f64::from(self.used) / f64::from(self.total)
    }

    /// Takes `n` blocks, evicting cached ones if needed. `false` (and nothing taken) when
    /// fewer than `n` are available.
    pub fn allocate(
        &mut self,
        n: u32,
        now: f64,
        evictions: &mut Vec<KvCacheEvictionEvent>,
    ) -> bool {
        if n > self.available() {
            return false;
        }
        let mut empty = self.total - self.used - self.cached_blocks;
        while empty < n {
            let Some(mut group) = self.cached.pop_front() else {
                break;
            };
            let take = group.blocks.min(n - empty);
            evictions.push(KvCacheEvictionEvent {
                lifetime_seconds: now - group.allocated_at,
                idle_seconds: now - group.last_access,
                reuse_gaps_seconds: std::mem::take(&mut group.reuse_gaps),
            });
            group.blocks -= take;
            self.cached_blocks -= take;
            empty += take;
            if group.blocks > 0 {
                self.cached.push_front(group);
            }
        }
        self.used += n;
        true
    }

    /// Returns `n` blocks a request held since `allocated_at`; they stay cached until evicted.
    pub fn release(&mut self, n: u32, allocated_at: f64, now: f64, reuse_gaps: Vec<f64>) {
        let n = n.min(self.used);
        if n == 0 {
            return;
        }
        self.used -= n;
        self.cached_blocks += n;
        self.cached.push_back(CachedGroup {
            blocks: n,
            allocated_at,
            last_access: now,
            reuse_gaps,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::KvCache;

    #[test]
    fn eviction_reports_residency_of_the_oldest_cached_blocks() {
        let mut kv = KvCache::new(10);
        let mut ev = Vec::new();
        assert!(kv.allocate(6, 1.0, &mut ev));
        assert!(!kv.allocate(5, 1.0, &mut ev));
        kv.release(6, 1.0, 3.0, vec![0.5]);
        assert_eq!(kv.usage(), 0.0);
        assert!(kv.allocate(4, 4.0, &mut ev));
        assert!(ev.is_empty(), "4 never-used blocks were free");
        assert!(kv.allocate(5, 10.0, &mut ev));
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].lifetime_seconds, 9.0);
        assert_eq!(ev[0].idle_seconds, 7.0);
        assert_eq!(ev[0].reuse_gaps_seconds, vec![0.5]);
        assert_eq!(kv.available(), 1);
    }
}
