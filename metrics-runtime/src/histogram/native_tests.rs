//! Unit tests of native buckets: indexes at boundaries, the limit strategies, snapshots and
//! their spans. The expected spans and deltas are client_golang's (`TestNativeHistogram` in
//! its `prometheus/histogram_test.go`), for the same observations.

use std::time::Duration;

use super::native_index::{
    bucket_index, fractions_below, fractions_below_by_search, frexp, upper_bound, MAX_SCHEMA,
    MIN_SCHEMA,
};
use super::thread_shard::{shard_count, MAX_SHARDS};
use super::{Histogram, HistogramSnapshot, NativeConfig, NativeSpans};

/// client_golang's default zero threshold, 2^-128.
const DEFAULT_ZERO: f64 = 2.938735877055719e-39;

fn next_up(v: f64) -> f64 {
    f64::from_bits(v.to_bits() + 1)
}

fn spans(spans: &[(i32, u32)], deltas: &[i64]) -> NativeSpans {
    NativeSpans {
        spans: spans.to_vec(),
        deltas: deltas.to_vec(),
    }
}

/// The native part of a snapshot as client_golang's tests state it.
#[derive(Debug, PartialEq)]
struct Native {
    count: u64,
    schema: i8,
    zero_threshold: f64,
    zero_count: u64,
    positive: NativeSpans,
    negative: NativeSpans,
}

fn native_of(snapshot: &HistogramSnapshot) -> Native {
    let native = snapshot.native().expect("native buckets");
    let (positive, negative) = native.encoder_spans();
    Native {
        count: snapshot.count(),
        schema: native.schema(),
        zero_threshold: native.zero_threshold(),
        zero_count: native.zero_count(),
        positive,
        negative,
    }
}

fn observed(config: NativeConfig, values: &[f64]) -> Native {
    let h = Histogram::new_native(config);
    values.iter().for_each(|&v| h.observe(v));
    let direct = h.snapshot();
    // The same values merged by a local view land in the same buckets.
    let merged = Histogram::new_native(config);
    let mut local = merged.local_with_interval(values.len().max(1));
    values.iter().for_each(|&v| local.observe(v));
    drop(local);
    assert_eq!(native_of(&merged.snapshot()), native_of(&direct), "merged");
    native_of(&direct)
}

#[test]
fn frexp_splits_normal_and_subnormal_values_like_c() {
    assert_eq!(frexp(1.0), (0.5, 1));
    assert_eq!(frexp(3.0), (0.75, 2));
    assert_eq!(frexp(0.1), (0.8, -3));
    assert_eq!(frexp(f64::MAX), (1.0 - f64::EPSILON / 2.0, 1024));
    assert_eq!(frexp(f64::MIN_POSITIVE), (0.5, -1021));
    let smallest = f64::from_bits(1);
    assert_eq!(frexp(smallest), (0.5, -1073));
    assert_eq!(frexp(smallest * 3.0), (0.75, -1072));
}

#[test]
fn a_bucket_holds_its_upper_bound_and_not_the_next_value() {
    for schema in MIN_SCHEMA..=MAX_SCHEMA {
        let per_power = if schema > 0 { 1 << schema } else { 1 };
        // Around 1, among subnormals, and near the top of the range.
        let far = [1e-310, 1e-300, 1e300].map(|v| bucket_index(schema, v));
        let indexes = (-3 * per_power..3 * per_power).chain(far.iter().flat_map(|&i| i - 2..i + 2));
        for index in indexes {
            let bound = upper_bound(schema, index);
            // Below the normal range a bound between two powers of two is not a float (its
            // fraction needs more bits than a subnormal has): no value sits on it.
            let exact = schema <= 0 || bound >= f64::MIN_POSITIVE;
            if bound == 0.0 || !bound.is_finite() || bound == f64::MAX || !exact {
                continue;
            }
            assert_eq!(
                bucket_index(schema, bound),
                index,
                "schema {schema} bound {bound}"
            );
            assert_eq!(
                bucket_index(schema, next_up(bound)),
                index + 1,
                "schema {schema} above {bound}"
            );
        }
    }
}

#[test]
fn the_boundary_table_counts_as_the_binary_search_does() {
    // Every fraction that can sit on or next to a boundary or a cell edge, then scattered
    // ones: the look-up and the search agree at every positive schema.
    let schema_8_bounds = (0..256).map(|k| upper_bound(8, k - 256));
    let cell_edges = (0..512).map(|cell| 0.5 + f64::from(cell) / 1024.0);
    let mut fractions: Vec<f64> = schema_8_bounds
        .chain(cell_edges)
        .flat_map(|f| [f64::from_bits(f.to_bits() - 1), f, next_up(f)])
        .filter(|f| (0.5..1.0).contains(f))
        .collect();
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    fractions.extend((0..50_000).map(|_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        f64::from_bits(1022 << 52 | (state & ((1 << 52) - 1)))
    }));
    for fraction in fractions {
        let mantissa = fraction.to_bits() & ((1 << 52) - 1);
        for schema in 1..=MAX_SCHEMA {
            assert_eq!(
                fractions_below(schema, fraction, mantissa),
                fractions_below_by_search(schema, fraction),
                "schema {schema}, fraction {fraction}"
            );
        }
    }
}

#[test]
fn every_value_lands_in_the_bucket_whose_bounds_enclose_it() {
    // Scattered normal values (every mantissa region, several octaves) at every schema:
    // bucket `k` holds `(upper_bound(k - 1), upper_bound(k)]`.
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mantissa = state & ((1 << 52) - 1);
        let exponent = 1023 - 40 + (state >> 56) % 80;
        let value = f64::from_bits(exponent << 52 | mantissa);
        for schema in MIN_SCHEMA..=MAX_SCHEMA {
            let index = bucket_index(schema, value);
            let (low, high) = (upper_bound(schema, index - 1), upper_bound(schema, index));
            assert!(
                low < value && value <= high,
                "schema {schema}: {value} in bucket {index}, ({low}, {high}]"
            );
        }
    }
}

#[test]
fn known_indexes_match_client_golang() {
    // Schema 3 (factor 1.1): 1, 2 and 3 in buckets 0, 8 and 13.
    assert_eq!(bucket_index(3, 1.0), 0);
    assert_eq!(bucket_index(3, 2.0), 8);
    assert_eq!(bucket_index(3, 3.0), 13);
    // Schema -1 (factor 4): bucket -2 is (0.015625, 0.0625], bucket 3 is (16, 64].
    assert_eq!(bucket_index(-1, 0.0156251), -2);
    assert_eq!(bucket_index(-1, 0.0625), -2);
    assert_eq!(bucket_index(-1, 33.33), 3);
    // Schema 2: f64::MAX in 4096, infinity just past it.
    assert_eq!(bucket_index(2, f64::MAX), 4096);
    assert_eq!(bucket_index(2, f64::INFINITY), 4097);
    // The widened zero threshold of client_golang's test is bucket 1's bound at schema 2.
    assert_eq!(upper_bound(2, 1), 1.189207115002721);
}

#[test]
fn a_bucket_factor_picks_the_largest_schema_factor_not_above_it() {
    assert_eq!(NativeConfig::schema_for_factor(1.1), Some(3));
    assert_eq!(NativeConfig::schema_for_factor(1.2), Some(2));
    assert_eq!(NativeConfig::schema_for_factor(4.0), Some(-1));
    assert_eq!(NativeConfig::schema_for_factor(17.0), Some(-2));
    assert_eq!(NativeConfig::schema_for_factor(2.0), Some(0));
    assert_eq!(NativeConfig::schema_for_factor(1.0001), Some(8));
    assert_eq!(NativeConfig::schema_for_factor(1e9), Some(-4));
    assert_eq!(NativeConfig::schema_for_factor(1.0), None);
    assert_eq!(NativeConfig::schema_for_factor(f64::NAN), None);
}

#[test]
fn observations_land_where_client_golang_puts_them() {
    let factor = |f| NativeConfig::from_factor(f);
    assert_eq!(
        observed(factor(1.1), &[0.0, 1.0, 2.0, 3.0]),
        Native {
            count: 4,
            schema: 3,
            zero_threshold: DEFAULT_ZERO,
            zero_count: 1,
            positive: spans(&[(0, 1), (7, 1), (4, 1)], &[1, 0, 0]),
            negative: spans(&[], &[]),
        }
    );
    let schema_2 = [0.0, 1.0, 1.2, 1.4, 1.8, 2.0];
    let schema_2_spans = spans(&[(0, 5)], &[1, -1, 2, -2, 2]);
    assert_eq!(
        observed(factor(1.2), &schema_2),
        Native {
            count: 6,
            schema: 2,
            zero_threshold: DEFAULT_ZERO,
            zero_count: 1,
            positive: schema_2_spans.clone(),
            negative: spans(&[], &[]),
        }
    );
    let schema_minus_1 = [
        0.0156251, 0.0625, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 3.5, 5.0, 6.0, 7.0, 33.33,
    ];
    assert_eq!(
        observed(factor(4.0), &schema_minus_1).positive,
        spans(&[(-2, 6)], &[2, 0, 0, 2, -1, -2])
    );
    assert_eq!(
        observed(factor(17.0), &schema_minus_1).positive,
        spans(&[(-1, 4)], &[2, 2, 3, -6])
    );
    let both: Vec<f64> = schema_2.iter().flat_map(|&v| [v, -v]).skip(1).collect();
    let both = observed(factor(1.2), &both);
    assert_eq!((both.count, both.zero_count), (11, 1));
    assert_eq!(both.positive, schema_2_spans);
    assert_eq!(both.negative, schema_2_spans);
    let wide = observed(
        factor(1.2).zero_threshold(1.4),
        &[0.0, -1.0, -1.2, -1.4, -1.8, -2.0, 1.0, 1.2, 1.4, 1.8, 2.0],
    );
    assert_eq!((wide.zero_threshold, wide.zero_count), (1.4, 7));
    assert_eq!(wide.positive, spans(&[(4, 1)], &[2]));
    assert_eq!(wide.negative, spans(&[(4, 1)], &[2]));
}

#[test]
fn an_empty_histogram_with_a_zero_width_zero_bucket_has_one_empty_span() {
    let native = observed(NativeConfig::from_factor(1.1).zero_threshold(0.0), &[]);
    assert_eq!(native.positive, spans(&[(0, 0)], &[]));
    assert_eq!(native.zero_threshold, 0.0);
    // With the default threshold, nothing at all.
    assert_eq!(
        observed(NativeConfig::default(), &[]).positive,
        spans(&[], &[])
    );
}

#[test]
fn nan_counts_where_inf_does_in_classic_and_native_buckets_and_infinities_past_f64_max() {
    let config = NativeConfig::from_factor(1.2);
    let h = Histogram::new_classic_and_native([1.0], config);
    for v in [
        0.0,
        1.0,
        1.2,
        1.4,
        1.8,
        2.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        h.observe(v);
    }
    let snapshot = h.snapshot();
    assert_eq!(snapshot.count(), 9);
    assert_eq!(snapshot.bucket_counts(), &[3, 6]);
    assert_eq!(snapshot.sum(), 7.4);
    let native = snapshot.native().expect("native");
    // NaN is in the bucket of +Inf, so the native buckets add up to `_count`, as
    // Prometheus's validation demands of a histogram whose sum is not NaN.
    assert_eq!(native.count(), 9);
    assert_eq!(
        native.positive_spans(),
        spans(&[(0, 5), (4092, 1)], &[1, -1, 2, -2, 2, 0])
    );
    assert_eq!(native.negative_spans(), spans(&[(4097, 1)], &[1]));
}

#[test]
fn past_the_limit_the_resolution_halves() {
    let native = observed(
        NativeConfig::from_factor(1.2).max_buckets(4),
        &[0.0, 1.0, 1.1, 1.2, 1.4, 1.8, 2.0, 3.0],
    );
    assert_eq!((native.count, native.schema, native.zero_count), (8, 1, 1));
    assert_eq!(native.positive, spans(&[(0, 5)], &[1, 2, -1, -2, 1]));
    let negative: Vec<f64> = [0.0, 1.0, 1.1, 1.2, 1.4, 1.8, 2.0, 3.0]
        .iter()
        .map(|v| -v)
        .collect();
    let native = observed(NativeConfig::from_factor(1.2).max_buckets(4), &negative);
    assert_eq!(native.negative, spans(&[(0, 5)], &[1, 2, -1, -2, 1]));
}

#[test]
fn past_the_limit_the_zero_bucket_widens_up_to_its_maximum_first() {
    let config = NativeConfig::from_factor(1.2)
        .max_buckets(4)
        .max_zero_threshold(1.2);
    let values = [0.0, 1.0, 1.1, 1.2, 1.4, 1.8, 2.0, 3.0];
    let once = observed(config, &values);
    assert_eq!(
        (once.schema, once.zero_threshold, once.zero_count),
        (2, 1.0, 2)
    );
    assert_eq!(once.positive, spans(&[(1, 7)], &[1, 1, -2, 2, -2, 0, 1]));
    let twice = observed(config, &[&values[..], &[4.0]].concat());
    assert_eq!(
        (twice.schema, twice.zero_threshold, twice.zero_count),
        (2, 1.189207115002721, 3)
    );
    assert_eq!(twice.positive, spans(&[(2, 7)], &[2, -2, 2, -2, 0, 1, 0]));
}

#[test]
fn past_the_limit_a_due_reset_drops_what_came_before() {
    let config = NativeConfig::from_factor(1.2)
        .max_buckets(4)
        .min_reset(Duration::from_millis(1));
    let h = Histogram::new_classic_and_native([1.0], config);
    for v in [0.0, 1.0, 1.1, 1.2, 1.4, 1.8, 2.0, 3.0, 4.0] {
        h.observe(v);
    }
    std::thread::sleep(Duration::from_millis(5));
    let reset = h.snapshot();
    assert_eq!((reset.count(), reset.sum()), (0, 0.0));
    assert_eq!(reset.native().map(|n| n.count()), Some(0));
    h.observe(3.0);
    h.observe(4.0);
    let after = native_of(&h.snapshot());
    assert_eq!((after.count, after.schema), (2, 2));
    assert_eq!(after.positive, spans(&[(7, 2)], &[1, 0]));
    assert_eq!(h.snapshot().sum(), 7.0);
}

#[test]
fn a_reset_not_yet_due_degrades_and_a_due_one_restores_the_resolution() {
    let h = Histogram::new_native(
        NativeConfig::from_factor(1.2)
            .max_buckets(4)
            .min_reset(Duration::from_secs(3600)),
    );
    for v in [0.0, 1.0, 1.1, 1.2, 1.4, 1.8, 2.0, 3.0] {
        h.observe(v);
    }
    let degraded = native_of(&h.snapshot());
    assert_eq!((degraded.count, degraded.schema), (8, 1));
    // The same histogram with a reset already due resets instead, even within the limit
    // (client_golang schedules the reset when it first degrades).
    let due = Histogram::new_native(
        NativeConfig::from_factor(1.2)
            .max_buckets(4)
            .min_reset(Duration::from_millis(1)),
    );
    for v in [1.0, 1.1, 1.2, 1.4, 1.8] {
        due.observe(v);
    }
    assert_eq!(native_of(&due.snapshot()).schema, 2, "within the limit");
    for v in [2.0, 3.0, 5.0] {
        due.observe(v);
    }
    std::thread::sleep(Duration::from_millis(5));
    assert_eq!(due.snapshot().count(), 0, "reset");
    due.observe(1.1);
    assert_eq!(native_of(&due.snapshot()).schema, 2);
}

#[test]
fn between_scrapes_a_chain_past_its_reservations_counts_at_the_coarsest_schema() {
    // One bucket allowed: tables of 8, 32 and 128 slots (8 + 24 + 96 reservations), then
    // the last of 512 slots (245 reservations: 512 less the 266 coarsest keys and a free
    // slot), 373 keys in all per interval; past them, schema -4.
    let h = Histogram::new_native(NativeConfig::with_schema(8).max_buckets(1));
    // 800 distinct buckets at schema 8.
    let values: Vec<f64> = (1..=800).map(|i| upper_bound(8, i)).collect();
    values.iter().for_each(|&v| h.observe(v));
    let snapshot = h.snapshot();
    let native = snapshot.native().expect("native");
    assert_eq!(snapshot.count(), 800);
    assert_eq!(native.count(), 800, "nothing lost");
    assert_eq!(native.schema(), -4, "{native:?}");
    assert_eq!(native.positive().len(), 1, "{native:?}");
    // The next interval starts at the schema the limit left.
    h.observe(1.5);
    assert_eq!(h.snapshot().native().map(|n| n.count()), Some(801));
}

#[test]
fn classic_and_native_sides_agree_across_scrapes() {
    let h = Histogram::new_classic_and_native([0.5, 2.0], NativeConfig::default());
    let mut total = 0u64;
    for round in 0..5 {
        for i in 0..=round {
            h.observe(f64::from(i) * 0.75 - 1.0);
            total += 1;
        }
        let snapshot = h.snapshot();
        assert_eq!(snapshot.count(), total);
        assert_eq!(snapshot.native().map(|n| n.count()), Some(total));
    }
}

#[test]
fn the_last_table_has_room_for_every_key_it_can_be_given() {
    use super::native_table::{NativeChain, TableSizes};
    let sizes = TableSizes::new(&NativeConfig::default().max_buckets(160));
    // 2 * 160 reservations + 266 coarsest keys fit in 1024 slots.
    assert_eq!(
        NativeChain::last_reservations(&sizes),
        (1024, 1024 - 266 - 1)
    );
}

#[test]
fn a_chain_has_no_table_until_a_record_and_grows_with_the_keys_of_an_interval() {
    use super::native_state::NativeCore;
    let native = NativeCore::new(NativeConfig::with_schema(8));
    let chain = native.made_chain(0, 0);
    assert!(chain.capacities().is_empty(), "no record, no table");
    // 8 buckets: the first table, of 8 slots.
    for i in 0..8 {
        native.record(0, 0, upper_bound(8, i), 1);
    }
    assert_eq!(chain.capacities(), [8]);
    // The other half and the other native shards are still without a table.
    assert!(native.made_chain(0, 1).capacities().is_empty());
    // 40 more: 24 into a table of 32 slots (three quarters of it), the other 16 into one of
    // 128.
    for i in 8..48 {
        native.record(0, 0, upper_bound(8, i), 2);
    }
    assert_eq!(chain.capacities(), [8, 32, 128]);
    let drained = native.drain(0, &EVERY_SHARD);
    assert_eq!(drained.observations(), 8 + 2 * 40, "{drained:?}");
    assert_eq!(chain.occupied_slots(), 0, "drained means cleared");
    // The same 48 buckets in the next interval, in another order: the tables made already
    // hold them.
    for i in (0..48).rev() {
        native.record(0, 0, upper_bound(8, i), 1);
    }
    assert_eq!(chain.capacities(), [8, 32, 128]);
    assert_eq!(native.drain(0, &EVERY_SHARD).observations(), 48);
}

#[test]
fn spans_bridge_gaps_of_up_to_two_buckets_with_zero_counts() {
    assert_eq!(
        NativeSpans::of(&[(0, 1), (3, 2), (7, 1)]),
        spans(&[(0, 4), (3, 1)], &[1, -1, 0, 2, -1])
    );
    // A gap of two empty buckets stays in the span, as zero deltas.
    assert_eq!(
        NativeSpans::of(&[(-1, 4), (2, 4)]),
        spans(&[(-1, 4)], &[4, -4, 0, 4])
    );
}

/// Observation `i` of recorder `t`: multiples of 1/8 in [-5, 20), so every sum of them is exact
/// in any order, spread over many native buckets, with zeros among them.
fn stress_value(t: u64, i: u64) -> f64 {
    ((i * 37 + t * 11) % 200) as f64 / 8.0 - 5.0
}

/// What any snapshot of the stress test must satisfy, however it races records, merges and
/// layout changes: the classic `le="1"` bucket, the native buckets and the sum all describe
/// the same `_count` observations. Returns the count.
fn assert_consistent(snapshot: &HistogramSnapshot, max_buckets: usize) -> u64 {
    let count = snapshot.count();
    let native = snapshot.native().expect("native");
    // No NaN is observed, so every observation is in one native bucket.
    assert_eq!(native.count(), count, "{snapshot:?}");
    // 1 is a bucket boundary at every schema: the classic `le="1"` bucket holds exactly the
    // zero bucket (threshold at most 1), every negative bucket and the positive ones up to 1.
    let schema = native.schema();
    let at_most_one: u64 = native
        .positive()
        .iter()
        .filter(|&&(index, _)| upper_bound(schema, index) <= 1.0)
        .map(|&(_, n)| n)
        .chain(native.negative().iter().map(|&(_, n)| n))
        .sum::<u64>()
        + native.zero_count();
    // A native-only histogram's one classic bucket is `+Inf`: the count, checked above.
    if !snapshot.bounds().is_empty() {
        assert_eq!(snapshot.bucket_counts()[0], at_most_one, "{snapshot:?}");
    }
    // The sum lies within what the buckets allow.
    let (mut low, mut high) = (0.0, 0.0);
    for &(index, n) in native.positive() {
        low += upper_bound(schema, index - 1) * n as f64;
        high += upper_bound(schema, index) * n as f64;
    }
    for &(index, n) in native.negative() {
        low -= upper_bound(schema, index) * n as f64;
        high -= upper_bound(schema, index - 1) * n as f64;
    }
    let zero = native.zero_threshold() * native.zero_count() as f64;
    let slack = 1e-9 * (1.0 + high.abs() + low.abs());
    assert!(
        low - zero - slack <= snapshot.sum() && snapshot.sum() <= high + zero + slack,
        "sum {} outside [{low}, {high}] ± {zero}: {snapshot:?}",
        snapshot.sum()
    );
    assert!(
        native.positive().len() + native.negative().len() <= max_buckets,
        "{snapshot:?}"
    );
    count
}

/// Few buckets allowed, a zero bucket that may widen: the first scrapes lower the schema
/// and widen the zero bucket while records bucket with whatever layout they read.
const RACE_MAX_BUCKETS: u32 = 6;

fn race_config() -> NativeConfig {
    NativeConfig::with_schema(8)
        .max_buckets(RACE_MAX_BUCKETS)
        .max_zero_threshold(0.5)
}

#[test]
fn snapshots_stay_consistent_while_records_merges_and_layout_changes_race_them() {
    race_records_merges_and_scrapes(&Histogram::new_classic_and_native([1.0], race_config()));
}

#[test]
fn native_only_snapshots_stay_consistent_while_records_merges_and_layout_changes_race_them() {
    // Its records end on their native count, not on a classic one: the scrape waits on those.
    race_records_merges_and_scrapes(&Histogram::new_native(race_config()));
}

/// Two threads observe and one merges local batches into `h` while snapshots are taken in a
/// loop: every snapshot is consistent (see [`assert_consistent`]) and none goes back, and the
/// last holds every observation and their exact sum.
fn race_records_merges_and_scrapes(h: &Histogram) {
    const MAX_BUCKETS: u32 = RACE_MAX_BUCKETS;
    const PER_RECORDER: u64 = 100_000;
    let done = std::sync::atomic::AtomicUsize::new(0);
    let expected_sum: f64 = (0..3)
        .flat_map(|t| (0..PER_RECORDER).map(move |i| stress_value(t, i)))
        .sum();
    std::thread::scope(|s| {
        for t in 0..2 {
            let done = &done;
            s.spawn(move || {
                (0..PER_RECORDER).for_each(|i| h.observe(stress_value(t, i)));
                done.fetch_add(1, std::sync::atomic::Ordering::Release);
            });
        }
        let done = &done;
        s.spawn(move || {
            let mut local = h.local_with_interval(7);
            (0..PER_RECORDER).for_each(|i| local.observe(stress_value(2, i)));
            drop(local);
            done.fetch_add(1, std::sync::atomic::Ordering::Release);
        });
        let mut last = 0;
        let mut scrapes = 0u64;
        while done.load(std::sync::atomic::Ordering::Acquire) < 3 || scrapes == 0 {
            let count = assert_consistent(&h.snapshot(), MAX_BUCKETS as usize);
            assert!(count >= last, "{count} after {last}");
            last = count;
            scrapes += 1;
            std::thread::yield_now();
        }
    });
    let last = h.snapshot();
    assert_eq!(
        assert_consistent(&last, MAX_BUCKETS as usize),
        3 * PER_RECORDER
    );
    assert_eq!(last.sum(), expected_sum);
    let native = last.native().expect("native");
    assert!(
        native.schema() < 8,
        "the limit lowered the schema: {native:?}"
    );
}

#[test]
fn a_bucket_recorded_with_an_older_zero_threshold_joins_the_wider_zero_bucket_at_the_drain() {
    use super::native_state::NativeCore;
    use super::native_totals::NativeTotals;
    let config = NativeConfig::with_schema(0);
    let native = NativeCore::new(config);
    // Records that read the configured threshold: 0.0 in the zero bucket, 0.75 in bucket 0.
    native.record(0, 0, 0.0, 1);
    native.record(1, 0, 0.75, 2);
    native.record(0, 0, 3.0, 1);
    // Meanwhile a scrape widened the zero bucket to 1 (bucket 0's upper bound).
    let mut widened = NativeTotals::empty(&config);
    widened.zero_threshold = 1.0;
    native.publish(&widened);
    let drained = native.drain(0, &EVERY_SHARD);
    assert_eq!(drained.zero_count, 3, "{drained:?}");
    assert_eq!(drained.positive.as_slice(), &[(2, 1)]);
}

#[test]
fn a_drain_reads_its_half_of_every_shard_and_leaves_the_other_half() {
    use super::native_state::NativeCore;
    let native = NativeCore::new(NativeConfig::with_schema(0));
    // Every classic shard a thread can record into (more than there are native shards),
    // each into both halves: 2.0 is bucket 1 at schema 0, 0.0 is in the zero bucket.
    for shard in 0..64 {
        native.record(shard, 0, 2.0, 1);
        native.record(shard, 0, 0.0, 1);
        native.record(shard, 1, 2.0, 10);
    }
    let first = native.drain(0, &EVERY_SHARD);
    assert_eq!(first.zero_count, 64, "{first:?}");
    assert_eq!(first.positive.as_slice(), &[(1, 64)]);
    let second = native.drain(1, &EVERY_SHARD);
    assert_eq!(second.zero_count, 0, "{second:?}");
    assert_eq!(second.positive.as_slice(), &[(1, 640)]);
    // Drained means cleared.
    assert!(native.drain(0, &EVERY_SHARD).positive.as_slice().is_empty());
}

/// A drain's `fresh` that has every classic shard busy: every table of the half is read.
const EVERY_SHARD: [u64; MAX_SHARDS] = [1; MAX_SHARDS];

#[test]
fn a_drain_reads_the_tables_of_busy_shards_and_leaves_the_others_as_they_are() {
    use super::native_state::{NativeCore, MAX_NATIVE_SHARDS};
    let native = NativeCore::new(NativeConfig::with_schema(0));
    let native_shards = shard_count().min(MAX_NATIVE_SHARDS);
    // Classic shard `native_shards + 1` shares native shard 1 (0 on a one-core machine) with
    // classic shard 1: the table is found through the mask, not the classic shard's number.
    let far = native_shards + 1;
    native.record(far, 0, 2.0, 3);
    native.record(0, 0, 0.0, 5);
    let only = |shard: usize| {
        let mut fresh = [0u64; MAX_SHARDS];
        fresh[shard] = 1;
        fresh
    };
    // Nothing fresh: no table is read, and nothing is lost.
    let idle = native.drain(0, &[0; MAX_SHARDS]);
    assert_eq!(idle.observations(), 0, "{idle:?}");
    let far_drain = native.drain(0, &only(far));
    assert_eq!(far_drain.positive.as_slice(), &[(1, 3)], "{far_drain:?}");
    if native_shards > 1 {
        // Classic shard 0's table was not fresh, so it still holds its record.
        assert_eq!(far_drain.zero_count, 0, "{far_drain:?}");
        let rest = native.drain(0, &only(0));
        assert_eq!(rest.zero_count, 5, "{rest:?}");
        assert_eq!(rest.observations(), 5, "{rest:?}");
    } else {
        assert_eq!(far_drain.zero_count, 5, "{far_drain:?}");
    }
    assert_eq!(native.drain(0, &EVERY_SHARD).observations(), 0);
}

#[test]
fn a_drain_finds_every_key_of_every_table_and_clears_the_chain() {
    use super::native_table::NativeChain;
    // Last tables of 64 slots, 1024 and 4096.
    for max_buckets in [10, 160, 1_000] {
        let config = NativeConfig::with_schema(8).max_buckets(max_buckets);
        let chain = NativeChain::new();
        // Keys at three schemas, both sides, over a wide range of buckets: they land all over
        // the tables, and past the first ones.
        let mut keys = std::collections::BTreeMap::new();
        let mut recorded = 0;
        for (i, schema) in (0..400u32).zip([8i8, 2, -4].into_iter().cycle()) {
            let value = 1.37f64.powi(i as i32 % 80 - 40) * if i % 2 == 0 { 1.0 } else { -1.0 };
            let n = u64::from(i % 3 + 1);
            chain.add(&config, value, schema, 0.0, n);
            recorded += n;
        }
        assert!(chain.capacities().len() > 1, "{:?}", chain.capacities());
        assert_eq!(chain.observations(), recorded, "max_buckets {max_buckets}");
        let mut drained = 0;
        let zero = chain.drain(|key, count| {
            *keys
                .entry((key.negative, key.schema, key.index))
                .or_insert(0) += count;
            drained += count;
        });
        assert_eq!(zero, 0);
        assert_eq!(drained, recorded, "max_buckets {max_buckets}");
        assert!(keys.len() > 8, "{} keys", keys.len());
        assert_eq!(chain.occupied_slots(), 0, "max_buckets {max_buckets}");
        assert_eq!(chain.observations(), 0);
        // Cleared means the next half starts empty and counts from there.
        chain.add(&config, 2.0, 0, 0.0, 4);
        chain.add(&config, -0.0, 0, 0.0, 1);
        assert_eq!(chain.observations(), 5);
        assert_eq!(chain.occupied_slots(), 1);
    }
}

#[test]
fn a_key_packs_every_bucket_of_every_schema_and_side() {
    use super::native_table::NativeKey;
    for schema in MIN_SCHEMA..=MAX_SCHEMA {
        for magnitude in [
            f64::MIN_POSITIVE / 1e10,
            1e-300,
            0.5,
            1.0,
            3.0,
            1e300,
            f64::MAX,
        ] {
            for negative in [false, true] {
                let key = NativeKey {
                    negative,
                    schema,
                    index: bucket_index(schema, magnitude),
                };
                assert_eq!(NativeKey::unpack(key.pack()), key);
            }
        }
        // The bucket past f64::MAX's, where infinities and NaN count.
        let past = NativeKey {
            negative: false,
            schema,
            index: bucket_index(schema, f64::INFINITY),
        };
        assert_eq!(NativeKey::unpack(past.pack()), past);
    }
}
