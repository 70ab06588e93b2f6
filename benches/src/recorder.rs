//! A real `metrics` recorder for the `metrics` crate's numbers: handles live in
//! metrics-util's lock-free atomic registry, as in metrics-exporter-prometheus. Without an
//! installed recorder, `metrics` macros are no-ops and would measure nothing.

use std::sync::OnceLock;

use metrics::{Counter, Gauge, Histogram, Key, KeyName, Metadata, Recorder, SharedString, Unit};
use metrics_util::registry::{AtomicStorage, Registry};

/// A recorder whose handles are atomics in a `metrics_util::registry::Registry`.
#[derive(Debug)]
pub struct AtomicRecorder {
    registry: Registry<Key, AtomicStorage>,
}

impl Recorder for AtomicRecorder {
    fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}

    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        self.registry
            .get_or_create_counter(key, |c| Counter::from_arc(c.clone()))
    }

    fn register_gauge(&self, key: &Key, _: &Metadata<'_>) -> Gauge {
        self.registry
            .get_or_create_gauge(key, |g| Gauge::from_arc(g.clone()))
    }

    fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
        self.registry
            .get_or_create_histogram(key, |h| Histogram::from_arc(h.clone()))
    }
}

/// Installs the recorder as the global `metrics` recorder (once per process) and returns it.
pub fn install() -> &'static AtomicRecorder {
    static RECORDER: OnceLock<&'static AtomicRecorder> = OnceLock::new();
    RECORDER.get_or_init(|| {
        let recorder: &'static AtomicRecorder = Box::leak(Box::new(AtomicRecorder {
            registry: Registry::atomic(),
        }));
        // Fails only if another recorder was installed first, which nothing here does; the
        // benchmarks then still record into *a* real recorder.
        let _ = metrics::set_global_recorder(recorder);
        recorder
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn macros_record_into_the_installed_recorder() {
        super::install();
        let counter = metrics::counter!("bench_test_counter", "engine" => "0");
        counter.increment(2);
        metrics::counter!("bench_test_counter", "engine" => "0").increment(1);
        let key = metrics::Key::from_parts(
            "bench_test_counter",
            vec![metrics::Label::new("engine", "0")],
        );
        let value = super::install()
            .registry
            .get_counter(&key)
            .map(|c| c.load(std::sync::atomic::Ordering::Relaxed));
        assert_eq!(value, Some(3));
    }
}
