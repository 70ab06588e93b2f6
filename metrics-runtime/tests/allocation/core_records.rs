//! After `resolve`, recording allocates nothing: proven with a counting
//! global allocator around every core record operation.

use std::sync::atomic::AtomicU64;

use crate::counting::allocations_during;
use metric_handles::__private::{new_family, SeriesSpec};
use metric_handles::histogram::GaugeHistogram;
use metric_handles::local::Local;
use metric_handles::prometheus_client::encoding::{
    EncodeLabelSet, EncodeLabelValue, LabelSetEncoder, LabelValueEncoder,
};
use metric_handles::{
    ByLabel, ByPosition, Counter, Gauge, Histogram, LabelEnum, LabelSet, StateSet,
};

#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct Engine {
    model_name: String,
    engine: u32,
}

impl EncodeLabelSet for Engine {
    fn encode(&self, encoder: &mut LabelSetEncoder) -> Result<(), std::fmt::Error> {
        [("model_name", self.model_name.as_str())].encode(encoder)?;
        [("engine", self.engine)].encode(encoder)
    }
}

impl LabelSet for Engine {
    const KEYS: &'static [&'static str] = &["model_name", "engine"];
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Reason {
    Stop,
    Length,
}

impl EncodeLabelValue for Reason {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        std::fmt::Write::write_str(encoder, self.label_value())
    }
}

impl LabelEnum for Reason {
    const VARIANTS: &'static [Self] = &[Reason::Stop, Reason::Length];
    const VALUES: &'static [&'static str] = &["stop", "length"];
    fn index(self) -> usize {
        self as usize
    }
}

#[test]
fn recording_through_resolved_handles_never_allocates() {
    let labels = Engine {
        model_name: "m".into(),
        engine: 0,
    };
    let spec = SeriesSpec::new()
        .with_buckets(vec![0.1, 1.0, 10.0])
        .with_axis_key("k")
        .with_positions(4);
    let counter = new_family::<Engine, Counter>(spec.clone()).get_or_create(&labels);
    let float_counter =
        new_family::<Engine, Counter<f64, AtomicU64>>(spec.clone()).get_or_create(&labels);
    let gauge = new_family::<Engine, Gauge>(spec.clone()).get_or_create(&labels);
    let float_gauge =
        new_family::<Engine, Gauge<f64, AtomicU64>>(spec.clone()).get_or_create(&labels);
    let histogram = new_family::<Engine, Histogram>(spec.clone()).get_or_create(&labels);
    let by_reason =
        new_family::<Engine, ByLabel<Reason, Counter>>(spec.clone()).get_or_create(&labels);
    let by_position = new_family::<Engine, ByPosition<Counter>>(spec).get_or_create(&labels);

    let allocations = allocations_during(|| {
        for i in 0..10_000u64 {
            counter.inc();
            counter.inc_by(3);
            float_counter.inc_by(0.5);
            gauge.set(i as i64);
            gauge.inc();
            float_gauge.set(i as f64 * 0.01);
            histogram.observe(i as f64 * 0.001);
            histogram.observe(f64::NAN);
            by_reason.get(Reason::Length).inc();
            by_position.get_or_create((i % 4) as usize).inc_by(2);
        }
    });
    assert_eq!(allocations, 0, "the record path allocated");
    assert_eq!(counter.get(), 40_000);
    assert_eq!(by_reason.get(Reason::Length).get(), 10_000);
    assert_eq!(by_position.get(3).expect("pre-resolved").get(), 5_000);
    assert_eq!(histogram.snapshot().count(), 20_000);
}

#[test]
fn state_sets_and_gauge_histograms_record_without_allocating() {
    let labels = Engine {
        model_name: "m".into(),
        engine: 0,
    };
    let spec = SeriesSpec::new().with_buckets(vec![0.1, 1.0, 10.0]);
    let state = new_family::<Engine, StateSet<Reason>>(spec.clone()).get_or_create(&labels);
    let queue = new_family::<Engine, GaugeHistogram>(spec.clone()).get_or_create(&labels);
    let by_reason =
        new_family::<Engine, ByLabel<Reason, GaugeHistogram>>(spec).get_or_create(&labels);

    let allocations = allocations_during(|| {
        for i in 0..10_000u64 {
            state.set(if i % 2 == 0 {
                Reason::Length
            } else {
                Reason::Stop
            });
            let age = i as f64 * 0.001;
            queue.add(age);
            queue.add(f64::NAN);
            queue.remove(age);
            by_reason.get(Reason::Stop).add(age);
        }
    });
    assert_eq!(allocations, 0, "the record path allocated");
    assert_eq!(state.get(), "stop");
    assert_eq!(queue.snapshot().0, 10_000, "the NaNs stay, the ages left");
    assert_eq!(by_reason.get(Reason::Stop).snapshot().0, 10_000);
}

#[test]
fn request_local_views_never_allocate() {
    let labels = Engine {
        model_name: "m".into(),
        engine: 0,
    };
    let spec = SeriesSpec::new().with_buckets(vec![0.1, 1.0, 10.0]);
    let counter = new_family::<Engine, Counter>(spec.clone()).get_or_create(&labels);
    let histogram = new_family::<Engine, Histogram>(spec).get_or_create(&labels);
    // The thread's first record numbers the thread (a thread-local, no allocation either, but
    // keep the measured loop to the steady state), and the first merge makes the histogram's
    // merge area, the one allocation a merge may make.
    histogram.observe(0.0);
    let mut first = histogram.local();
    first.observe(0.0);
    first.flush();

    let allocations = allocations_during(|| {
        for request in 0..100u64 {
            // One pair of views per request: created, recorded into, merged, dropped.
            let mut tokens = counter.local();
            let mut latency = histogram.local();
            for i in 0..100u64 {
                tokens.inc_by(2);
                latency.observe((request * i) as f64 * 0.001);
            }
            tokens.flush();
            latency.flush();
            latency.observe(f64::NAN);
        }
    });
    assert_eq!(allocations, 0, "the local record path allocated");
    assert_eq!(counter.get(), 20_000);
    assert_eq!(histogram.snapshot().count(), 2 + 10_000 + 100);
}

/// Two threads record into one histogram at once until one of them allocates: the first
/// record that meets the other's installs the histogram's shards (a single block per series
/// until then). Each then merges once (a block's first merge makes its merge area). From then
/// on, with the same contention, neither allocates again, whatever they record (observations
/// and merged local views).
#[test]
fn a_contended_histogram_allocates_its_shards_once_then_nothing() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Barrier;
    use std::time::{Duration, Instant};

    let histogram = Histogram::new([0.1, 1.0, 10.0]);
    let sharded = AtomicBool::new(false);
    let warm = Barrier::new(2);
    let deadline = Instant::now() + Duration::from_secs(60);
    let steady: Vec<u64> = std::thread::scope(|s| {
        let threads: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut recorded = 0u64;
                    while !sharded.load(Ordering::Relaxed) && Instant::now() < deadline {
                        let allocated = allocations_during(|| {
                            for _ in 0..1_000 {
                                histogram.observe(0.5);
                            }
                        });
                        recorded += 1_000;
                        if allocated > 0 {
                            sharded.store(true, Ordering::Relaxed);
                        }
                    }
                    // The first merge into this thread's shard makes its merge area.
                    let mut first = histogram.local();
                    first.observe(2.0);
                    first.flush();
                    recorded += 1;
                    warm.wait();
                    let allocations = allocations_during(|| {
                        let mut latency = histogram.local();
                        for i in 0..50_000u64 {
                            histogram.observe(i as f64 * 0.001);
                            latency.observe(2.0);
                        }
                    });
                    (allocations, recorded + 100_000)
                })
            })
            .collect();
        let mut total = 0;
        let steady = threads
            .into_iter()
            .map(|t| {
                let (allocations, recorded) = t.join().expect("recorder");
                total += recorded;
                allocations
            })
            .collect();
        assert_eq!(histogram.snapshot().count(), total, "nothing lost");
        steady
    });
    assert!(
        sharded.load(Ordering::Relaxed),
        "two threads recording at once never installed the shards"
    );
    assert_eq!(steady, [0, 0], "a record allocated once the shards were in");
}

#[test]
fn the_counting_allocator_does_see_allocations() {
    // Guards the test above against a counter that never counts.
    let allocations = allocations_during(|| {
        let v: Vec<u64> = std::hint::black_box(vec![1, 2, 3]);
        drop(v);
    });
    assert!(allocations >= 1);
}
