//! A collector of a Tokio runtime's own figures: workers, tasks, queue depths, busy time and
//! parks, read from [`tokio::runtime::RuntimeMetrics`] at each scrape.
//!
//! An async service's latency often comes from its runtime rather than its code: workers all
//! busy, a deep global queue, a blocking pool at its limit. These families show that beside the
//! service's own metrics. Nothing is recorded between scrapes: Tokio keeps the counts, and a
//! scrape reads them (each read is an atomic load per worker).
//!
//! | family | type | Tokio's figure |
//! |---|---|---|
//! | `tokio_workers` | gauge | `num_workers` |
//! | `tokio_alive_tasks` | gauge | `num_alive_tasks` |
//! | `tokio_global_queue_depth` | gauge | `global_queue_depth` |
//! | `tokio_worker_busy_seconds_total{worker}` | counter | `worker_total_busy_duration` |
//! | `tokio_worker_parks_total{worker}` | counter | `worker_park_count` |
//!
//! Built with `RUSTFLAGS="--cfg tokio_unstable"` (Tokio's own switch for its unstable metrics),
//! the collector also exports what Tokio measures only then:
//!
//! | family | type | Tokio's figure |
//! |---|---|---|
//! | `tokio_blocking_threads` | gauge | `num_blocking_threads` |
//! | `tokio_idle_blocking_threads` | gauge | `num_idle_blocking_threads` |
//! | `tokio_blocking_queue_depth` | gauge | `blocking_queue_depth` |
//! | `tokio_spawned_tasks_total` | counter | `spawned_tasks_count` |
//! | `tokio_remote_schedules_total` | counter | `remote_schedule_count` |
//! | `tokio_budget_forced_yields_total` | counter | `budget_forced_yield_count` |
//! | `tokio_worker_local_queue_depth{worker}` | gauge | `worker_local_queue_depth` |
//! | `tokio_worker_polls_total{worker}` | counter | `worker_poll_count` |
//! | `tokio_worker_steals_total{worker}` | counter | `worker_steal_count` |
//! | `tokio_worker_noops_total{worker}` | counter | `worker_noop_count` |
//! | `tokio_worker_overflows_total{worker}` | counter | `worker_overflow_count` |
//!
//! `worker` is the worker's index, `0` to `tokio_workers - 1` (a current-thread runtime has
//! one). One collector reads several runtimes with [`TokioCollector::named`], which labels each
//! series `runtime="name"`.
//!
//! ```
//! use metric_handles::tokio_runtime::TokioCollector;
//! use metric_handles::{ExpositionFormat, Registry};
//!
//! let runtime = tokio::runtime::Builder::new_multi_thread()
//!     .worker_threads(2)
//!     .build()
//!     .unwrap();
//! let mut registry = Registry::default();
//! TokioCollector::register(&mut registry, runtime.handle().clone());
//! let text = ExpositionFormat::PrometheusText.encode(&registry).unwrap();
//! assert!(text.contains("tokio_workers 2\n"));
//! assert!(text.contains("tokio_worker_parks_total{worker=\"1\"} "));
//! ```

use std::fmt;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, MetricEncoder};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Unit;
use tokio::runtime::{Handle, RuntimeMetrics};

use crate::registry::{RegistrationError, Registry};

/// A collector of one Tokio runtime's figures (see the [module](self) documentation).
#[derive(Clone, Debug)]
pub struct TokioCollector {
    /// Each runtime, with the value of its `runtime` label when it has one.
    runtimes: Vec<(Option<String>, Handle)>,
}

/// One family the collector writes: its name (without `_total`), help, unit and type, and how
/// its value is read from the runtime's metrics, for the whole runtime or per worker.
struct FamilySource {
    name: &'static str,
    help: &'static str,
    unit: Option<Unit>,
    value: Value,
}

/// How a family's value is read.
enum Value {
    /// One gauge for the runtime.
    Gauge(fn(&RuntimeMetrics) -> Reading),
    /// One counter for the runtime (only unstable figures are read so).
    #[cfg_attr(not(tokio_unstable), allow(dead_code))]
    Counter(fn(&RuntimeMetrics) -> Reading),
    /// One gauge per worker, labelled `worker` (only unstable figures are read so).
    #[cfg_attr(not(tokio_unstable), allow(dead_code))]
    WorkerGauge(fn(&RuntimeMetrics, usize) -> Reading),
    /// One counter per worker, labelled `worker`.
    WorkerCounter(fn(&RuntimeMetrics, usize) -> Reading),
}

/// A figure as Tokio gives it: a count (written as an integer) or a duration in seconds.
#[derive(Clone, Copy, Debug)]
enum Reading {
    Count(u64),
    Seconds(f64),
}

/// A count of Tokio's (`usize` or `u64`) as a [`Reading`].
fn count(n: impl TryInto<u64>) -> Reading {
    Reading::Count(n.try_into().unwrap_or(u64::MAX))
}

/// The families every build exports (Tokio's stable metrics).
const STABLE: &[FamilySource] = &[
    FamilySource {
        name: "tokio_workers",
        help: "Number of worker threads the runtime runs tasks on",
        unit: None,
        value: Value::Gauge(|m| count(m.num_workers())),
    },
    FamilySource {
        name: "tokio_alive_tasks",
        help: "Number of tasks spawned on the runtime that have not finished",
        unit: None,
        value: Value::Gauge(|m| count(m.num_alive_tasks())),
    },
    FamilySource {
        name: "tokio_global_queue_depth",
        help: "Number of tasks waiting in the runtime's global queue",
        unit: None,
        value: Value::Gauge(|m| count(m.global_queue_depth())),
    },
    FamilySource {
        name: "tokio_worker_busy",
        help: "Time a worker thread has spent running tasks (not parked), in seconds",
        unit: Some(Unit::Seconds),
        value: Value::WorkerCounter(|m, w| {
            Reading::Seconds(m.worker_total_busy_duration(w).as_secs_f64())
        }),
    },
    FamilySource {
        name: "tokio_worker_parks",
        help: "Number of times a worker thread has parked for lack of work",
        unit: None,
        value: Value::WorkerCounter(|m, w| count(m.worker_park_count(w))),
    },
];

/// The families Tokio measures only when built with `--cfg tokio_unstable`.
#[cfg(tokio_unstable)]
const UNSTABLE: &[FamilySource] = &[
    FamilySource {
        name: "tokio_blocking_threads",
        help: "Number of threads in the runtime's blocking pool",
        unit: None,
        value: Value::Gauge(|m| count(m.num_blocking_threads())),
    },
    FamilySource {
        name: "tokio_idle_blocking_threads",
        help: "Number of threads in the runtime's blocking pool waiting for work",
        unit: None,
        value: Value::Gauge(|m| count(m.num_idle_blocking_threads())),
    },
    FamilySource {
        name: "tokio_blocking_queue_depth",
        help: "Number of tasks waiting for a thread of the blocking pool",
        unit: None,
        value: Value::Gauge(|m| count(m.blocking_queue_depth())),
    },
    FamilySource {
        name: "tokio_spawned_tasks",
        help: "Number of tasks spawned on the runtime",
        unit: None,
        value: Value::Counter(|m| count(m.spawned_tasks_count())),
    },
    FamilySource {
        name: "tokio_remote_schedules",
        help: "Number of tasks scheduled from outside the runtime's worker threads",
        unit: None,
        value: Value::Counter(|m| count(m.remote_schedule_count())),
    },
    FamilySource {
        name: "tokio_budget_forced_yields",
        help: "Number of times a task was made to yield after using up its budget",
        unit: None,
        value: Value::Counter(|m| count(m.budget_forced_yield_count())),
    },
    FamilySource {
        name: "tokio_worker_local_queue_depth",
        help: "Number of tasks waiting in a worker thread's local queue",
        unit: None,
        value: Value::WorkerGauge(|m, w| count(m.worker_local_queue_depth(w))),
    },
    FamilySource {
        name: "tokio_worker_polls",
        help: "Number of tasks a worker thread has polled",
        unit: None,
        value: Value::WorkerCounter(|m, w| count(m.worker_poll_count(w))),
    },
    FamilySource {
        name: "tokio_worker_steals",
        help: "Number of tasks a worker thread has stolen from another worker",
        unit: None,
        value: Value::WorkerCounter(|m, w| count(m.worker_steal_count(w))),
    },
    FamilySource {
        name: "tokio_worker_noops",
        help: "Number of times a worker thread unparked and found no task to run",
        unit: None,
        value: Value::WorkerCounter(|m, w| count(m.worker_noop_count(w))),
    },
    FamilySource {
        name: "tokio_worker_overflows",
        help: "Number of times a worker thread's local queue overflowed into the global queue",
        unit: None,
        value: Value::WorkerCounter(|m, w| count(m.worker_overflow_count(w))),
    },
];

/// Every family this build exports, in the order they are written.
fn families() -> impl Iterator<Item = &'static FamilySource> {
    let stable = STABLE.iter();
    #[cfg(tokio_unstable)]
    let stable = stable.chain(UNSTABLE);
    stable
}

impl TokioCollector {
    /// The collector of the runtime `runtime` belongs to, whose series carry no label of their
    /// own. The collector holds a handle, which keeps no worker alive: after the runtime shuts
    /// down, a scrape reads its last figures.
    pub fn new(runtime: Handle) -> Self {
        TokioCollector {
            runtimes: vec![(None, runtime)],
        }
    }

    /// The collector of several runtimes, each series labelled `runtime="name"` with its
    /// runtime's name: one family per figure, whatever the number of runtimes (a registry
    /// names a family once, so each runtime cannot have families of its own).
    pub fn named<N: Into<String>>(runtimes: impl IntoIterator<Item = (N, Handle)>) -> Self {
        TokioCollector {
            runtimes: runtimes
                .into_iter()
                .map(|(name, handle)| (Some(name.into()), handle))
                .collect(),
        }
    }

    /// Registers the collector of `runtime` in `registry` (under its prefix and const labels,
    /// like any family).
    ///
    /// # Panics
    ///
    /// If a `tokio_*` name is taken (the collector registered twice, say);
    /// [`try_register`](Self::try_register) returns the error instead.
    #[track_caller]
    pub fn register(registry: &mut Registry, runtime: Handle) {
        registry.register_collector(Box::new(TokioCollector::new(runtime)));
    }

    /// [`register`](Self::register), returning a clash instead of panicking.
    pub fn try_register(registry: &mut Registry, runtime: Handle) -> Result<(), RegistrationError> {
        registry.try_register_collector(Box::new(TokioCollector::new(runtime)))
    }
}

impl Collector for TokioCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), fmt::Error> {
        let runtimes: Vec<(Option<&str>, RuntimeMetrics)> = self
            .runtimes
            .iter()
            .map(|(name, handle)| (name.as_deref(), handle.metrics()))
            .collect();
        for family in families() {
            let metric_type = match family.value {
                Value::Gauge(_) | Value::WorkerGauge(_) => MetricType::Gauge,
                Value::Counter(_) | Value::WorkerCounter(_) => MetricType::Counter,
            };
            let mut metric = encoder.encode_descriptor(
                family.name,
                family.help,
                family.unit.as_ref(),
                metric_type,
            )?;
            for (name, metrics) in &runtimes {
                let runtime = name.map(|name| ("runtime", name.to_owned()));
                let series = match family.value {
                    Value::Gauge(read) | Value::Counter(read) => vec![(None, read(metrics))],
                    Value::WorkerGauge(read) | Value::WorkerCounter(read) => (0..metrics
                        .num_workers())
                        .map(|worker| (Some(("worker", worker.to_string())), read(metrics, worker)))
                        .collect(),
                };
                for (worker, value) in series {
                    let labels: Vec<(&str, String)> =
                        runtime.clone().into_iter().chain(worker).collect();
                    encode_sample(&mut metric, &labels, metric_type, value)?;
                }
            }
        }
        Ok(())
    }
}

/// Writes one sample of `metric_type` with `labels` (none: the family's bare sample; the
/// text encoders write no braces for an empty label set).
fn encode_sample(
    metric: &mut MetricEncoder<'_>,
    labels: &Vec<(&str, String)>,
    metric_type: MetricType,
    value: Reading,
) -> Result<(), fmt::Error> {
    let encoder = metric.encode_family(labels)?;
    match (metric_type, value) {
        (MetricType::Counter, Reading::Count(n)) => ConstCounter::new(n).encode(encoder),
        (MetricType::Counter, Reading::Seconds(s)) => ConstCounter::new(s).encode(encoder),
        (_, Reading::Count(n)) => ConstGauge::new(n).encode(encoder),
        (_, Reading::Seconds(s)) => ConstGauge::new(s).encode(encoder),
    }
}

#[cfg(test)]
mod tests;
