//! What a histogram with native buckets keeps: what records share with scrapes
//! ([`NativeCore`]: the tables of both halves and the layout in force) and what scrapes keep
//! between them ([`NativeScrape`]). The protocol that uses them is in `native_snapshot.rs`.
//!
//! The tables are sharded as the classic cells are: each *native shard* has a chain of tables
//! per half, and a record writes the one of its thread's shard, so that threads observing one
//! series count on lines of their own instead of bouncing every slot they share. There are at
//! most [`MAX_NATIVE_SHARDS`] (threads of more classic shards share them). A chain costs what
//! its half of its shard uses (`native_table.rs`): nothing until the first record into it,
//! then a first table of 8 slots, 160 bytes, which holds up to 8 buckets per interval
//! between scrapes, and larger tables behind it as an interval brings more new buckets (32
//! slots, 128, ...), the last one sized for the bucket limit (1,024 slots at the default 160
//! buckets). A series observed from one thread into 8 buckets thus holds one table of 160
//! bytes (two once a scrape has turned the halves and it records on), beside native shard
//! 0's two chain pointers and one for the other shards' chains, made by the first record into
//! one of them. Tables stay once made: a series that once had many buckets in an
//! interval keeps the tables that held them. A scrape drains a half's chain of every shard
//! recorded into since the half was last read, into the same totals, and of each chain only
//! the tables where keys were claimed.
//!

use std::sync::Arc;
use std::time::Instant;

use super::interned::Interned;
use super::native_config::NativeConfig;
use super::native_table::NativeChain;
use super::native_totals::NativeTotals;
use super::sync::{AtomicU64, LazyBox, Ordering};
use super::thread_shard::shard_count;

/// The most native shards a histogram has (see the module documentation): enough to keep the
/// threads of a small machine apart, few enough that a series' tables stay a bounded multiple
/// of its bucket limit.
pub(super) const MAX_NATIVE_SHARDS: usize = 4;

/// What records of a histogram with native buckets use: the tables of both halves of every
/// native shard, and the schema and zero threshold a scrape last published.
pub(super) struct NativeCore {
    /// The configuration, shared with every histogram configured alike (the series of a
    /// family all are).
    pub(super) config: Arc<NativeConfig>,
    /// Native shard 0's chains, half `h` at `h`: every record of an uncontended series.
    first_chains: [NativeChain; 2],
    /// The other native shards' chains, native shard `s`'s of half `h` at `2 * (s - 1) + h`
    /// (those past the native shards stay empty): made by the first record into one of
    /// them, so a series recorded from one thread keeps one pointer for them.
    other_chains: LazyBox<[NativeChain; 2 * (MAX_NATIVE_SHARDS - 1)]>,
    /// Native shards minus one (a power of two minus one): masks a classic shard into one.
    shard_mask: usize,
    /// The schema records bucket at (an `i8`, sign-extended).
    schema: AtomicU64,
    /// The zero threshold records use (`f64` bits).
    zero_threshold: AtomicU64,
    /// When the histogram was made: the reset interval's start until the first reset (the
    /// scrape state that keeps the last reset is made by the first scrape).
    pub(super) created: Instant,
}

impl NativeCore {
    pub(super) fn new(config: NativeConfig) -> Self {
        let shards = shard_count().min(MAX_NATIVE_SHARDS);
        NativeCore {
            config: shared_config(config),
            first_chains: std::array::from_fn(|_| NativeChain::new()),
            other_chains: LazyBox::new(),
            shard_mask: shards - 1,
            schema: AtomicU64::new(i64::from(config.schema()) as u64),
            zero_threshold: AtomicU64::new(config.threshold().to_bits()),
            created: Instant::now(),
        }
    }

    /// Counts `n` observations of `value` in `half`'s tables of the native shard of classic
    /// shard `shard`, and says whether it did. Called after the record's start in that shard
    /// (whose acquire makes the published layout, and the tables a drain cleared, visible),
    /// and before its classic bucket count, whose release publishes this; a native-only
    /// histogram's record has none, and this add's own release publishes it.
    ///
    /// The first record into a half of a native shard allocates its first table, and a record
    /// of a bucket new since the last drain may allocate a larger one (see `native_table.rs`);
    /// a record of the buckets of earlier intervals allocates nothing.
    ///
    /// NaN counts where +Inf does: in the bucket past `f64::MAX`'s here, as in the classic
    /// `+Inf` bucket. So `_count` is always the zero bucket plus the native buckets, which is
    /// what Prometheus's validation of a native histogram demands when its sum is not NaN
    /// (and ours never is: no NaN enters it). client_golang counts NaN in no native bucket and
    /// makes the sum NaN instead, which then stays NaN for the life of the series.
    #[inline]
    pub(super) fn record(&self, shard: usize, half: usize, value: f64, n: u64) -> bool {
        let value = if value.is_nan() { f64::INFINITY } else { value };
        let schema = self.schema.load(Ordering::Relaxed) as i64 as i8;
        let zero_threshold = f64::from_bits(self.zero_threshold.load(Ordering::Relaxed));
        match self.chain_or_make(shard & self.shard_mask, half) {
            Some(chain) => {
                chain.add(&self.config, value, schema, zero_threshold, n);
                true
            }
            None => false,
        }
    }

    /// The observations `half`'s tables hold (see [`NativeChain::observations`]), those of
    /// native shards with nothing `fresh` left out (see [`Self::busy_chains`]).
    pub(super) fn observations(&self, half: usize, fresh: &[u64]) -> u64 {
        self.busy_chains(half, fresh)
            .fold(0, |total, chain| total.wrapping_add(chain.observations()))
    }

    /// `half`'s chains of the native shards that serve a classic shard with records in
    /// `fresh` (per classic shard: the records started in `half` since it was last drained).
    /// The others are empty: a record writes the chain of its classic shard's native shard,
    /// after starting there. Skipping them is what keeps an idle series' scrape from reading
    /// its tables.
    fn busy_chains<'a>(
        &'a self,
        half: usize,
        fresh: &'a [u64],
    ) -> impl Iterator<Item = &'a NativeChain> + 'a {
        let mask = self.shard_mask;
        let busy = move |native_shard: &usize| {
            fresh
                .iter()
                .enumerate()
                .any(|(shard, &records)| records != 0 && shard & mask == *native_shard)
        };
        (0..=mask)
            .filter(busy)
            .filter_map(move |native_shard| self.chain(native_shard, half))
    }

    /// The chain of `half` of native shard `native_shard`, if it was made.
    fn chain(&self, native_shard: usize, half: usize) -> Option<&NativeChain> {
        match native_shard.checked_sub(1) {
            None => self.first_chains.get(half),
            Some(other) => self.other_chains.get()?.get(2 * other + half),
        }
    }

    /// The chain of `half` of native shard `native_shard` (below [`MAX_NATIVE_SHARDS`]), made
    /// with the other native shards' chains if it is not native shard 0's.
    #[inline]
    fn chain_or_make(&self, native_shard: usize, half: usize) -> Option<&NativeChain> {
        match native_shard.checked_sub(1) {
            None => self.first_chains.get(half),
            Some(other) => self
                .other_chains
                .get_or_init(|| std::array::from_fn(|_| NativeChain::new()))
                .get(2 * other + half),
        }
    }

    /// Makes `totals`' layout the one records use from now on.
    pub(super) fn publish(&self, totals: &NativeTotals) {
        self.schema
            .store(i64::from(totals.schema) as u64, Ordering::Relaxed);
        self.zero_threshold
            .store(totals.zero_threshold.to_bits(), Ordering::Relaxed);
    }

    /// Drains `half`'s tables (see [`NativeChain::drain`]) into `totals`, leaving out those
    /// [`Self::busy_chains`] finds empty by `fresh`. Returns the observations drained.
    ///
    /// `totals` are at the published layout (the scrape's running totals, which it publishes,
    /// or [`Self::drain`]'s), so a bucket lands where records of the layout put it.
    pub(super) fn drain_into(&self, half: usize, fresh: &[u64], totals: &mut NativeTotals) -> u64 {
        let mut drained = 0u64;
        for chain in self.busy_chains(half, fresh) {
            // `add` may move a bucket a record put outside an older, narrower zero bucket
            // into it: the table's zero count comes on top.
            let zero = chain.drain(|key, count| {
                totals.add(key, count);
                drained = drained.wrapping_add(count);
            });
            totals.zero_count = totals.zero_count.wrapping_add(zero);
            drained = drained.wrapping_add(zero);
        }
        drained
    }

    /// Drains `half`'s tables (see [`Self::drain_into`]) into new totals at the published
    /// layout.
    pub(super) fn drain(&self, half: usize, fresh: &[u64]) -> NativeTotals {
        let mut totals = NativeTotals::empty(&self.config);
        totals.schema = self.schema.load(Ordering::Relaxed) as i64 as i8;
        totals.zero_threshold = f64::from_bits(self.zero_threshold.load(Ordering::Relaxed));
        self.drain_into(half, fresh, &mut totals);
        totals
    }

    /// The chain of `half` of native shard `native_shard` (for the tests of growth).
    #[cfg(test)]
    pub(super) fn made_chain(&self, native_shard: usize, half: usize) -> &NativeChain {
        self.chain_or_make(native_shard & self.shard_mask, half)
            .expect("a native shard below the limit")
    }
}

/// The shared copy of `config`: the same allocation for every histogram configured alike.
fn shared_config(config: NativeConfig) -> Arc<NativeConfig> {
    static CONFIGS: Interned<NativeConfig> = Interned::new();
    CONFIGS.share(|kept| *kept == config, || Arc::new(config))
}

/// What the scrapes of a histogram with native buckets keep between them: everything drained
/// since the last reset, classic and native.
pub(super) struct NativeScrape {
    /// The classic bucket counts drained, `+Inf` last.
    pub(super) classic_buckets: Box<[u64]>,
    /// The sum drained.
    pub(super) classic_sum: f64,
    pub(super) native: NativeTotals,
    /// When the buckets were last reset (the histogram was made, before the first reset).
    pub(super) last_reset: Instant,
}

impl NativeScrape {
    /// The state of no scrape yet, for `buckets` classic buckets, last reset at `last_reset`.
    pub(super) fn new(config: &NativeConfig, buckets: usize, last_reset: Instant) -> Self {
        NativeScrape {
            classic_buckets: vec![0; buckets].into_boxed_slice(),
            classic_sum: 0.0,
            native: NativeTotals::empty(config),
            last_reset,
        }
    }
}
