//! Every histogram with native buckets that the protobuf exposition writes passes the rules
//! Prometheus applies to a native histogram before it stores it (its `Histogram.Validate`,
//! with the schema range of its protobuf parser): a scrape that breaks one is dropped whole,
//! every scrape until the process restarts. The messages are decoded with prometheus-client's
//! generated types, independently of our writer, while threads record NaN, ±Inf, zeros and
//! ordinary values into shared histograms and through request-local views.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;

use metric_handles::histogram::NativeConfig;
use metric_handles::prometheus_client::encoding::prometheus_protobuf::prometheus_data_model::{
    BucketSpan, Histogram as PbHistogram, MetricFamily,
};
use metric_handles::{ExpositionFormat, Family, Histogram, MetricHandles, NoLabels, Registry};
use prost::Message;

use crate::support::exposition::stress;

#[derive(Debug, MetricHandles)]
pub struct Mixed {
    /// Latency, native buckets beside classic ones
    #[metric(name = "nv:mixed", buckets = [0.5, 1.0, 2.0], native(bucket_factor = 1.1, max_buckets = 40))]
    pub mixed: Family<NoLabels, Histogram>,
    /// Latency, native buckets only
    #[metric(name = "nv:native_only", native(schema = 3, max_buckets = 40))]
    pub native_only: Family<NoLabels, Histogram>,
}

/// A side of a native histogram: its spans and its bucket deltas.
struct Side<'a> {
    name: &'a str,
    spans: &'a [BucketSpan],
    deltas: &'a [i64],
}

impl Side<'_> {
    /// Prometheus's span check (a span after the first has no negative offset; the spans
    /// cover exactly the buckets) and bucket check (no bucket count, rebuilt from the deltas,
    /// is negative). Returns the observations the side holds.
    fn observations(&self) -> Result<u64, String> {
        let mut covered = 0u64;
        for (n, span) in self.spans.iter().enumerate() {
            if n > 0 && span.offset < 0 {
                return Err(format!(
                    "{}: span {} has offset {}",
                    self.name,
                    n + 1,
                    span.offset
                ));
            }
            covered += u64::from(span.length);
        }
        if covered != self.deltas.len() as u64 {
            return Err(format!(
                "{}: spans need {covered} buckets, have {}",
                self.name,
                self.deltas.len()
            ));
        }
        let (mut count, mut total) = (0i64, 0u64);
        for (n, delta) in self.deltas.iter().enumerate() {
            count += delta;
            if count < 0 {
                return Err(format!("{}: bucket {} counts {count}", self.name, n + 1));
            }
            total += count as u64;
        }
        Ok(total)
    }
}

/// The rules Prometheus checks a native histogram with exponential buckets against before it
/// ingests it: a schema in `-4..=8`, consistent spans and deltas on both sides, and a count
/// equal to the zero bucket plus the native buckets (only at least that when the sum is NaN,
/// which is how NaN observations, in no bucket of client_golang's, pass).
fn prometheus_validate(h: &PbHistogram) -> Result<(), String> {
    if !(-4..=8).contains(&h.schema) {
        return Err(format!("schema {} is not an exponential schema", h.schema));
    }
    if h.zero_threshold.is_nan() || h.zero_threshold < 0.0 {
        return Err(format!("zero threshold {}", h.zero_threshold));
    }
    let positive = Side {
        name: "positive side",
        spans: &h.positive_span,
        deltas: &h.positive_delta,
    };
    let negative = Side {
        name: "negative side",
        spans: &h.negative_span,
        deltas: &h.negative_delta,
    };
    let in_buckets = positive.observations()? + negative.observations()? + h.zero_count;
    let count = h.sample_count;
    let sum = h.sample_sum;
    match (sum.is_nan(), in_buckets.cmp(&count)) {
        (false, std::cmp::Ordering::Equal)
        | (true, std::cmp::Ordering::Less | std::cmp::Ordering::Equal) => Ok(()),
        _ => Err(format!(
            "{in_buckets} observations found in buckets, but the count is {count} (sum {sum})"
        )),
    }
}

/// The classic side of the same message, as Prometheus reads it: cumulative counts that never
/// decrease, and no more than the count (`+Inf` is the count itself).
fn classic_valid(h: &PbHistogram) -> Result<(), String> {
    let mut last = 0;
    for bucket in &h.bucket {
        if bucket.cumulative_count < last {
            return Err(format!(
                "cumulative counts decrease at {}",
                bucket.upper_bound
            ));
        }
        last = bucket.cumulative_count;
    }
    if last > h.sample_count {
        return Err(format!("buckets hold {last}, count is {}", h.sample_count));
    }
    Ok(())
}

fn histograms(body: &[u8]) -> Vec<(String, PbHistogram)> {
    let mut rest = body;
    let mut found = Vec::new();
    while !rest.is_empty() {
        let family = MetricFamily::decode_length_delimited(&mut rest).expect("a MetricFamily");
        for metric in family.metric {
            if let Some(histogram) = metric.histogram {
                found.push((family.name.clone(), histogram));
            }
        }
    }
    found
}

/// The values the recording threads cycle through: NaN of both signs, both infinities, zeros
/// of both signs, values in the zero bucket, ordinary values of both signs and huge ones.
const VALUES: [f64; 12] = [
    f64::NAN,
    0.3,
    f64::INFINITY,
    -0.0,
    1.7,
    f64::NEG_INFINITY,
    -f64::NAN,
    1e-300,
    -2.5,
    0.0,
    f64::MAX,
    0.9,
];

fn record(handles: &MixedHandles, local: bool, rounds: usize) {
    if local {
        let mut mixed = handles.mixed.local_with_interval(5);
        let mut native_only = handles.native_only.local_with_interval(7);
        for i in 0..rounds {
            let value = VALUES[i % VALUES.len()];
            mixed.observe(value);
            native_only.observe(value);
        }
    } else {
        for i in 0..rounds {
            let value = VALUES[i % VALUES.len()];
            handles.mixed.observe(value);
            handles.native_only.observe(value);
        }
    }
}

/// Two threads observe into the shared handles, two through request-local views (merged in
/// batches), while a scraper decodes every protobuf scrape and checks every histogram in it.
/// After the threads are done, a last scrape counts every observation exactly.
#[test]
fn every_native_histogram_scraped_during_a_stress_of_nan_and_infinities_is_valid() {
    let mut registry = Registry::default();
    let metrics = Mixed::register(&mut registry);
    let handles = metrics.resolve(&NoLabels);
    let registry = Arc::new(registry);
    let rounds = stress(20_000, 400_000);
    let done = Arc::new(AtomicBool::new(false));
    let scraper = {
        let (registry, done) = (Arc::clone(&registry), Arc::clone(&done));
        thread::spawn(move || {
            let mut body = Vec::new();
            let mut checked = 0usize;
            let mut last = false;
            while !last {
                last = done.load(Ordering::Acquire);
                body.clear();
                ExpositionFormat::PrometheusProtobuf
                    .encode_into(&registry, &mut body)
                    .expect("encodes");
                for (name, histogram) in histograms(&body) {
                    prometheus_validate(&histogram)
                        .and_then(|()| classic_valid(&histogram))
                        .unwrap_or_else(|e| panic!("{name}: {e}: {histogram:?}"));
                    checked += 1;
                }
            }
            checked
        })
    };
    let recorders: Vec<_> = (0..4)
        .map(|i| {
            let handles = handles.clone();
            thread::spawn(move || record(&handles, i % 2 == 1, rounds))
        })
        .collect();
    for recorder in recorders {
        recorder.join().expect("records");
    }
    done.store(true, Ordering::Release);
    let checked = scraper.join().expect("every scraped histogram is valid");
    eprintln!("{checked} decoded native histograms checked");
    assert!(checked >= 4, "the scraper checked {checked} histograms");

    let total = 4 * rounds as u64;
    for (name, histogram) in [&handles.mixed, &handles.native_only]
        .iter()
        .map(|h| ("snapshot", h.snapshot()))
    {
        let native = histogram.native().expect("native buckets");
        assert_eq!(histogram.count(), total, "{name}");
        assert_eq!(
            native.count(),
            total,
            "{name}: NaN counts in a native bucket too"
        );
        assert!(histogram.sum().is_finite(), "{name}");
    }
    let mut body = Vec::new();
    ExpositionFormat::PrometheusProtobuf
        .encode_into(&registry, &mut body)
        .expect("encodes");
    let scraped = histograms(&body);
    assert_eq!(scraped.len(), 2);
    for (name, histogram) in scraped {
        prometheus_validate(&histogram).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(histogram.sample_count, total, "{name}");
        assert!(histogram.sample_sum.is_finite(), "{name}");
    }
}

/// One NaN, alone, in every kind of histogram with native buckets and through both the
/// shared handle and a local view: the message Prometheus would otherwise reject.
#[test]
fn a_single_nan_leaves_every_format_valid_and_counted_once() {
    for config in [
        NativeConfig::default(),
        NativeConfig::with_schema(0).zero_threshold(0.0),
    ] {
        for (bounds, local) in [
            (&[1.0][..], false),
            (&[1.0][..], true),
            (&[][..], false),
            (&[][..], true),
        ] {
            let histogram = if bounds.is_empty() {
                Histogram::new_native(config)
            } else {
                Histogram::new_classic_and_native(bounds.iter().copied(), config)
            };
            if local {
                let mut view = histogram.local();
                view.observe(f64::NAN);
            } else {
                histogram.observe(f64::NAN);
            }
            let snapshot = histogram.snapshot();
            let native = snapshot.native().expect("native buckets");
            let case = format!("{config:?}, bounds {bounds:?}, local {local}");
            assert_eq!((snapshot.count(), native.count()), (1, 1), "{case}");
            assert_eq!(snapshot.sum(), 0.0, "{case}");
            let mut registry = Registry::default();
            registry.register("nv_one", "one NaN", histogram.clone());
            let mut body = Vec::new();
            ExpositionFormat::PrometheusProtobuf
                .encode_into(&registry, &mut body)
                .expect("encodes");
            let scraped = histograms(&body);
            assert_eq!(scraped.len(), 1, "{case}");
            let message = &scraped[0].1;
            assert_eq!(message.sample_count, 1, "{case}");
            prometheus_validate(message).unwrap_or_else(|e| panic!("{case}: {e}"));
            let text = ExpositionFormat::OpenMetrics
                .encode(&registry)
                .expect("encodes");
            assert!(text.contains("nv_one_count 1\n"), "{case}: {text}");
            assert!(text.contains("nv_one_sum 0.0\n"), "{case}: {text}");
        }
    }
}
