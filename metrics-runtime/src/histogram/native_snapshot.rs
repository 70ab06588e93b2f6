//! Native buckets in the scrape protocol: a scrape of a histogram with native
//! buckets, whose result is a [`NativeSnapshot`].
//!
//! A histogram with native buckets *drains* each half a scrape reads: the half's classic cells
//! and native table are added to the scrape's running totals and cleared. Its native buckets
//! then live in two places only: in the running totals (at one schema, within the bucket
//! limit, plain sorted vectors only scrapes touch) and in the two tables of the current and last
//! interval between scrapes. So every change of layout (a lower schema, a wider zero
//! bucket, a reset) is a rewrite of the running totals under the scrape lock, and records
//! never see one half-done: they learn the new schema and zero threshold from two atomics,
//! and the keys they write carry the schema they used.
//!
//! Consistency is the classic protocol's: a record writes its native bucket before its
//! classic bucket count (released), in the same half, so the wait that makes a half's
//! classic counts complete makes its native buckets complete too. A native-only histogram's
//! record has no classic count: its native count, released, ends it, and the scrape waits on
//! the native counts (and adds them into `+Inf`). Every snapshot's `_count` equals its zero
//! count plus its native buckets (NaN counts where +Inf does, in the bucket past
//! `f64::MAX`'s), as Prometheus's validation demands of a histogram whose sum is not NaN.

use super::native_state::{NativeCore, NativeScrape};
use super::native_totals::{NativeSnapshot, NativeTotals};
use super::shards::{HalfTotals, HistogramCore, ScrapeState};
use super::snapshot::{saturating_sum, HistogramSnapshot};

impl HistogramCore {
    /// A scrape of a histogram with native buckets (see the module documentation): turn and
    /// drain the cold half into the running totals, then keep them within the bucket limit.
    ///
    /// A reset is due when the buckets are over the limit, or a strategy has degraded them,
    /// and `min_reset` has passed since the last one. It happens at a second turn: this
    /// scrape's totals and the half written since the first turn are dropped, so the reset
    /// drops exactly the observations started before the second turn, whose acquiring readers
    /// (every record started after it) bucket with the configuration's layout again.
    pub(super) fn native_snapshot(
        &self,
        native: &NativeCore,
        state: &mut ScrapeState,
    ) -> HistogramSnapshot {
        let config = *native.config;
        let mut classic = HalfTotals::zero(self.layout.buckets);
        let turned = self.drain_turn(&mut classic);
        // Made by the first scrape: a series never scraped does not hold it.
        let buckets = self.layout.buckets;
        let scrape = state
            .native
            .get_or_insert_with(|| Box::new(NativeScrape::new(&config, buckets, native.created)));
        // Straight into the running totals: they are at the layout records used (the one
        // they published).
        let drained = native.drain_into(turned.cold, turned.fresh(), &mut scrape.native);
        if self.ends_in_native {
            // The native counts stand for the `+Inf` count (see `HistogramCore::ends_in_native`).
            if let Some(infinite) = classic.buckets.last_mut() {
                *infinite = infinite.wrapping_add(drained);
            }
        }
        add_classic(scrape, &classic);
        let over = scrape.native.bucket_count() > config.bucket_limit() as usize;
        let reset_due = config
            .reset_after()
            .is_some_and(|after| scrape.last_reset.elapsed() >= after);
        if reset_due && (over || scrape.native.is_degraded(&config)) {
            let fresh = NativeTotals::empty(&config);
            native.publish(&fresh);
            // The second turn: what was written since the first one is dropped with the rest.
            let second = self.drain_turn(&mut classic);
            let _ = native.drain(second.cold, second.fresh());
            let now = std::time::Instant::now();
            state.native = Some(Box::new(NativeScrape::new(&config, buckets, now)));
            return self.empty_snapshot(Some(fresh));
        }
        let Some(scrape) = state.native.as_mut() else {
            return self.empty_snapshot(None);
        };
        scrape.native.limit(&config);
        native.publish(&scrape.native);
        HistogramSnapshot {
            bounds: self.bounds.to_vec(),
            bucket_counts: scrape.classic_buckets.to_vec(),
            sum: scrape.classic_sum,
            native: Some(NativeSnapshot::of(&scrape.native)),
        }
    }

    /// The snapshot of no observations (after a reset).
    fn empty_snapshot(&self, native: Option<NativeTotals>) -> HistogramSnapshot {
        HistogramSnapshot {
            bounds: self.bounds.to_vec(),
            bucket_counts: vec![0; self.layout.buckets],
            sum: 0.0,
            native: native.as_ref().map(NativeSnapshot::of),
        }
    }
}

/// Adds a drained half's classic totals to the running ones.
fn add_classic(scrape: &mut NativeScrape, drained: &HalfTotals) {
    for (total, &count) in scrape
        .classic_buckets
        .iter_mut()
        .zip(drained.buckets.iter())
    {
        *total = total.wrapping_add(count);
    }
    scrape.classic_sum = saturating_sum(scrape.classic_sum, drained.sum);
}
