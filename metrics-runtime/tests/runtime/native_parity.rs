//! Native buckets against prometheus-client's own native histogram, fed the same
//! observations and read back through its Prometheus protobuf encoder: schema, zero bucket,
//! spans, deltas, count and sum decode equal (the start timestamp aside: ours is not set yet).

use metric_handles::histogram::NativeConfig;
use metric_handles::Histogram;
use prometheus_client::encoding::prometheus_protobuf::{encode, prometheus_data_model};
use prometheus_client::metrics::histogram::{Histogram as ClientHistogram, NativeHistogramConfig};
use prometheus_client::registry::Registry;

/// The histogram message a registry holding only `metric` encodes.
fn encoded(metric: impl prometheus_client::registry::Metric) -> prometheus_data_model::Histogram {
    let mut registry = Registry::default();
    registry.register("h", "help", metric);
    let families = encode(&registry).expect("encodes");
    families
        .into_iter()
        .next()
        .and_then(|family| family.metric.into_iter().next())
        .and_then(|metric| metric.histogram)
        .expect("one histogram")
}

/// Observes `values` into ours and prometheus-client's, native only, at `schema` with
/// `zero_threshold` (ours: literal; 0 is a zero-width zero bucket), and compares.
fn assert_parity(schema: i8, zero_threshold: f64, values: &[f64]) {
    let ours = Histogram::new_native(
        NativeConfig::with_schema(schema)
            .zero_threshold(zero_threshold)
            .max_buckets(100_000),
    );
    // prometheus-client reads 0 as its default and a negative threshold as zero width.
    let theirs_threshold = if zero_threshold == 0.0 {
        -1.0
    } else {
        zero_threshold
    };
    let theirs = ClientHistogram::new_native(
        NativeHistogramConfig::with_schema(schema).zero_threshold(theirs_threshold),
    );
    for &v in values {
        ours.observe(v);
        // Ours counts NaN in the native bucket of +Inf, so that the buckets add up to the
        // count with a finite sum; prometheus-client, as client_golang, counts it in none and
        // makes the sum NaN. Its histogram is given +Inf for each NaN, so the buckets compare.
        theirs.observe(if v.is_nan() { f64::INFINITY } else { v });
    }
    let (mut ours, mut theirs) = (encoded(ours), encoded(theirs));
    // Ours keeps the `+Inf` bucket for text scrapers; prometheus-client's native-only
    // histogram has no classic bucket. The start timestamp is not set by ours yet.
    assert_eq!(ours.bucket.len(), 1);
    assert_eq!(ours.bucket[0].cumulative_count, ours.sample_count);
    ours.bucket.clear();
    theirs.start_timestamp = None;
    // prometheus-client adds NaN and infinities to the sum; ours does not (see the
    // histogram's rules), so the sums are compared on finite observations only.
    if values.iter().any(|v| !v.is_finite()) {
        theirs.sample_sum = ours.sample_sum;
    }
    assert_eq!(ours, theirs, "schema {schema}, threshold {zero_threshold}");
}

/// A deterministic spread of values over many magnitudes, both signs.
fn spread(n: usize, seed: u64) -> Vec<f64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let mantissa = (state >> 11) as f64 / (1u64 << 53) as f64;
            let exponent = ((state >> 3) % 80) as i32 - 40;
            let sign = if state & 1 == 0 { 1.0 } else { -1.0 };
            sign * (0.5 + mantissa) * 2f64.powi(exponent)
        })
        .collect()
}

#[test]
fn every_schema_buckets_a_spread_of_values_as_prometheus_client_does() {
    for schema in NativeConfig::MIN_SCHEMA..=NativeConfig::MAX_SCHEMA {
        assert_parity(
            schema,
            NativeConfig::DEFAULT_ZERO_THRESHOLD,
            &spread(2_000, (schema + 10) as u64),
        );
    }
}

#[test]
fn values_on_and_beside_every_schema_8_boundary_land_where_prometheus_client_puts_them() {
    // 2^(i/256) for every i, in three powers of two, and the floats just below and above.
    let mut values = Vec::new();
    for power in [-3, 0, 5] {
        for i in 0..256 {
            let bound = (f64::from(i) / 256.0).exp2() * 2f64.powi(power);
            for candidate in [bound, next_after(bound, -1), next_after(bound, 1)] {
                values.extend([candidate, -candidate]);
            }
        }
    }
    for schema in [8, 5, 1, 0, -2] {
        assert_parity(schema, NativeConfig::DEFAULT_ZERO_THRESHOLD, &values);
    }
}

#[test]
fn extremes_zero_buckets_and_non_finite_values_match_prometheus_client() {
    let values = [
        0.0,
        -0.0,
        f64::from_bits(1),
        -f64::MIN_POSITIVE,
        1e-300,
        f64::MAX,
        -f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0,
        0.001,
    ];
    for schema in [8, 3, 0, -4] {
        assert_parity(schema, NativeConfig::DEFAULT_ZERO_THRESHOLD, &values);
        assert_parity(schema, 0.0, &values);
        assert_parity(schema, 0.01, &values);
    }
    // No observation at all, with a zero-width zero bucket: one empty span marks it native.
    assert_parity(3, 0.0, &[]);
    assert_parity(3, NativeConfig::DEFAULT_ZERO_THRESHOLD, &[]);
}

#[test]
fn classic_and_native_side_by_side_encode_as_prometheus_client_does() {
    let bounds = [0.01, 0.1, 1.0, 10.0];
    // prometheus-client's native buckets are unlimited unless asked; ours always have a limit.
    let ours = Histogram::new_classic_and_native(
        bounds,
        NativeConfig::from_factor(1.1).max_buckets(100_000),
    );
    let theirs = ClientHistogram::new_classic_and_native(bounds, NativeHistogramConfig::new(1.1));
    for v in spread(500, 3).iter().map(|v| v.abs()) {
        ours.observe(v);
        theirs.observe(v);
    }
    let mut theirs = encoded(theirs);
    theirs.start_timestamp = None;
    assert_eq!(encoded(ours), theirs);
}

fn next_after(v: f64, direction: i64) -> f64 {
    f64::from_bits(v.to_bits().wrapping_add_signed(direction))
}

/// The text exposition of a registry holding only `metric` as `name`.
fn text(metric: impl prometheus_client::registry::Metric) -> String {
    let mut registry = Registry::default();
    registry.register("latency", "Latency", metric);
    let mut out = String::new();
    prometheus_client::encoding::text::encode(&mut out, &registry).expect("encodes");
    out
}

#[test]
fn a_text_scrape_of_native_only_buckets_sees_the_inf_bucket_sum_and_count() {
    let h = Histogram::new_native(NativeConfig::default());
    for v in [0.5, 2.0, -1.0] {
        h.observe(v);
    }
    assert_eq!(
        text(h),
        "# HELP latency Latency.\n# TYPE latency histogram\nlatency_sum 1.5\nlatency_count 3\n\
         latency_bucket{le=\"+Inf\"} 3\n# EOF\n"
    );
}

#[test]
fn a_text_scrape_of_classic_and_native_buckets_is_the_classic_exposition() {
    let bounds = [0.1, 1.0];
    let both = Histogram::new_classic_and_native(bounds, NativeConfig::default());
    let classic = Histogram::new(bounds);
    for v in [0.05, 0.5, 5.0, f64::NAN] {
        both.observe(v);
        classic.observe(v);
    }
    assert_eq!(text(both), text(classic));
}
