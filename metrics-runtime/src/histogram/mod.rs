//! A lock-free histogram that plugs into a prometheus-client [`Registry`].
//!
//! prometheus-client's `Histogram` takes a mutex on every `observe`, which serialises every
//! worker recording into a hot histogram (inter-token latency is observed once per output batch
//! of every request). This one records with three atomic read-modify-writes and no lock: a
//! `fetch_add` on the block's started count (whose answer names the half of the cells to
//! write), a compare-and-swap loop that adds the value to the sum (stored as `f64` bits), and a
//! `fetch_add` on the bucket the value falls into.
//!
//! All three land in one *block* of cells (sum and bucket counts, on cache lines of their
//! own, so no two histograms ever share a line). A histogram starts with one, whatever the
//! machine's core count, so a series costs about what prometheus-client's does. The first time
//! two threads record into it at the same moment (a compare-and-swap of the sum finds the
//! other's add), it gets a block per *shard*, up to four, and every thread records into the
//! shard its thread index selects from then on: threads observing into a hot histogram update
//! different cache lines instead of bouncing one line between cores. A scrape adds the blocks
//! up.
//!
//! Rules (what a scraper may rely on, whatever is observed and whenever it scrapes):
//! * Every scrape sees `_sum`, `_count` and the buckets of one set of whole observations (a
//!   merged batch all in or all out), and loses none: each block's cells exist in two halves,
//!   records write the hot one, and a scrape turns the other hot and reads the now cold one once
//!   the records started there have finished (see [`Histogram::snapshot`]). Records never wait.
//! * `_count` is not stored: it is derived from the buckets at encode time, so it always equals
//!   the `+Inf` bucket.
//! * With native buckets, `_count` also equals the zero bucket plus every native bucket, in
//!   every snapshot and every format: what Prometheus's validation of a native histogram
//!   demands while its sum is not NaN. A native-only histogram does not count its records in
//!   the classic `+Inf` cell at all: the native count ends a record there, and a scrape adds
//!   the native counts back into `+Inf` (one locked instruction fewer per observe).
//! * NaN and +Inf observations are counted in the `+Inf` bucket (the Go client's behaviour), -Inf
//!   in the first bucket (it is below every bound); none of them is added to `_sum`, so a
//!   single bad sample can never turn the sum into NaN. With native buckets, NaN counts where
//!   +Inf does there too, in the bucket past `f64::MAX`'s (client_golang counts it in no
//!   native bucket and makes the sum NaN for good, which Prometheus accepts only because the
//!   sum is NaN).
//! * `_sum` saturates at `±f64::MAX` instead of overflowing to `±Inf` (two observations of
//!   `1e308` would otherwise make it infinite for good, and `rate()` over it NaN), so the
//!   encoded `_sum` is always a finite number: each block's sum saturates, and so does their
//!   total.
//! * Encoded output is byte-identical to prometheus-client's `Histogram` for finite observations
//!   (whose sum does not overflow): observations from one thread are summed in order in one
//!   block, and adding the other blocks' `0.0` is exact. A scrape taken while they are
//!   recorded splits them between the halves, whose sums are then added: that can differ from
//!   the sum in order in the last bits.
//! * The `loom` model (`loom_model.rs`, `RUSTFLAGS="--cfg loom"`) checks these rules under
//!   every interleaving of observe, merge and snapshot.
//!
//! The folder, by job (none of it depends on anything outside it but the standard library,
//! prometheus-client's encoding traits and the crate's poison-tolerant lock):
//! * `observe.rs`: the [`Histogram`] handle, `observe`, and its encoding;
//! * `shards.rs`: the cells, in blocks (the base block, and one per shard once contended);
//! * `promote.rs`: when a histogram gets its shards, and how they are installed;
//! * `thread_shard.rs`: which shard a thread records into (the shard count, a thread's index);
//! * `bounds.rs`: the bucket bounds, sanitised and shared by every histogram that has them;
//! * `merge.rs`: the merge protocol of a batch of locally recorded observations;
//! * `sum.rs`: the rules of `_sum` (what is added, saturation, order);
//! * `bucket_lookup.rs`: the bucket search of a value (a table where the bounds suit it);
//! * `snapshot.rs`: reading the state a scrape encodes (the scrape protocol);
//! * `sync.rs`: the atomics and lock, the standard library's or loom's;
//! * `gauge_histogram.rs`: the [`GaugeHistogram`], whose buckets go up and down;
//! * `exemplars.rs`: the exemplar slots (one per classic bucket, a ring for native buckets);
//!   `observe_exemplar.rs`: `observe_with_exemplar` and what a scrape reads of them;
//! * native (sparse exponential) buckets, beside the classic ones or instead of them:
//!   `native_config.rs` (the public [`NativeConfig`]), `native_index.rs` (bucket indexes and
//!   bounds at a schema), `native_table.rs` (the record side: a lock-free table per half and
//!   native shard), `native_totals.rs` (the read side: the drained buckets at one schema, the limit
//!   strategies, and the public [`NativeSnapshot`]), `native_state.rs` (what records share
//!   with scrapes, and what scrapes keep), `native_snapshot.rs` (native buckets in the scrape
//!   protocol: a histogram with them drains each half it reads).
//!
//! [`Registry`]: prometheus_client::registry::Registry

mod bounds;
pub(crate) mod bucket_lookup;
mod buffer;
mod exemplars;
#[cfg(feature = "metrics-facade")]
mod facade;
mod gauge_histogram;
mod interned;
mod merge;
mod native_buckets;
mod native_config;
mod native_index;
mod native_snapshot;
mod native_state;
mod native_table;
mod native_totals;
mod observe;
mod observe_exemplar;
mod promote;
mod shards;
mod snapshot;
mod sum;
mod sync;
mod thread_shard;

pub use buffer::HistogramBuffer;
pub use exemplars::NATIVE_EXEMPLARS;
pub use gauge_histogram::GaugeHistogram;
pub use native_config::NativeConfig;
#[cfg(feature = "protobuf")]
pub(crate) use native_totals::BucketRuns;
pub use native_totals::{NativeSnapshot, NativeSpans};
pub use observe::Histogram;
pub use snapshot::HistogramSnapshot;

#[cfg(test)]
mod exemplar_tests;
/// The model check of the scrape protocol (`RUSTFLAGS="--cfg loom"`).
#[cfg(all(test, loom))]
mod loom_model;
#[cfg(test)]
mod native_tests;
#[cfg(test)]
mod tests;
