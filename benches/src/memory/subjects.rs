//! The series the memory benchmark creates, one way per crate: a `Dynamic` family of ours
//! (declared with the derive), prometheus-client's `Family`, the `prometheus` crate's metric
//! vectors and metrics-exporter-prometheus's recorder through the `metrics` macros.

use std::thread;

use metric_handles::{
    Counter, Dynamic, Family, Gauge, Histogram, LabelSet, MetricHandles, NoLabels, RegisterOptions,
    Registry,
};

use metric_handles::metrics_facade::FacadeBuilder;

use super::alloc::{CountingAlloc, PerSeries};
use crate::fixtures::ITL_BUCKETS;

/// The values every series records, each once per recording thread: 8 values a factor 1.5
/// apart, so a native histogram (factor 1.1, schema 3) fills 8 distinct buckets.
pub const VALUES: [f64; 8] = [
    0.02, 0.03, 0.045, 0.0675, 0.10125, 0.151875, 0.2278125, 0.34171875,
];

/// The record-time label set of every family measured: one label, `tenant`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Tenant {
    /// `tenant-000000` onwards (13 bytes).
    pub tenant: String,
}

/// `n` distinct label sets.
pub fn tenants(n: usize) -> Vec<Tenant> {
    (0..n)
        .map(|i| Tenant {
            tenant: format!("tenant-{i:06}"),
        })
        .collect()
}

/// One family per kind of series, each a `Dynamic` axis over [`Tenant`].
#[derive(Debug, MetricHandles)]
pub struct MemoryMetrics {
    /// Counter per tenant
    #[metric(name = "mem_counter")]
    pub counter: Family<NoLabels, Dynamic<Tenant, Counter>>,
    /// Gauge per tenant
    #[metric(name = "mem_gauge")]
    pub gauge: Family<NoLabels, Dynamic<Tenant, Gauge>>,
    /// Classic histogram (vLLM's inter-token-latency bounds) per tenant
    #[metric(name = "mem_classic", buckets = ITL_BUCKETS)]
    pub classic: Family<NoLabels, Dynamic<Tenant, Histogram>>,
    /// Classic and native histogram (native defaults) per tenant
    #[metric(name = "mem_classic_native", buckets = ITL_BUCKETS, native)]
    pub classic_native: Family<NoLabels, Dynamic<Tenant, Histogram>>,
    /// Native-only histogram (native defaults) per tenant
    #[metric(name = "mem_native", native)]
    pub native: Family<NoLabels, Dynamic<Tenant, Histogram>>,
}

impl MemoryMetrics {
    /// Registers the families in `registry`, each allowed `series` series.
    pub fn register_for(registry: &mut Registry, series: usize) -> Self {
        let names = [
            "mem_counter",
            "mem_gauge",
            "mem_classic",
            "mem_classic_native",
            "mem_native",
        ];
        let options = names
            .into_iter()
            .fold(RegisterOptions::new(), |options, name| {
                options.max_series(name, series.max(1))
            });
        MemoryMetrics::register_with(registry, &options)
    }
}

/// What a series is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A counter, incremented 8 times.
    Counter,
    /// A gauge, set 8 times.
    Gauge,
    /// A histogram with the 19 ITL bounds.
    Classic,
    /// The ITL bounds and native buckets.
    ClassicNative,
    /// Native buckets only.
    Native,
}

impl Kind {
    /// Every kind, in table order.
    pub const ALL: [Kind; 5] = [
        Kind::Counter,
        Kind::Gauge,
        Kind::Classic,
        Kind::ClassicNative,
        Kind::Native,
    ];

    /// The name in tables and in the JSON results.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Classic => "classic histogram",
            Kind::ClassicNative => "classic + native",
            Kind::Native => "native only",
        }
    }
}

/// A crate measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crate {
    /// metric-handles.
    Ours,
    /// prometheus-client 0.26.
    PrometheusClient,
    /// The `prometheus` crate (tikv's) 0.14.
    Prometheus,
    /// metrics-exporter-prometheus 0.18, through the `metrics` macros.
    Exporter,
    /// Ours, through the `metrics` macros (`metric_handles::metrics_facade`).
    Facade,
}

impl Crate {
    /// Every crate, in column order.
    pub const ALL: [Crate; 5] = [
        Crate::Ours,
        Crate::PrometheusClient,
        Crate::Prometheus,
        Crate::Exporter,
        Crate::Facade,
    ];

    /// The column heading and the JSON name.
    pub fn name(self) -> &'static str {
        match self {
            Crate::Ours => "ours",
            Crate::PrometheusClient => "prometheus-client",
            Crate::Prometheus => "prometheus",
            Crate::Exporter => "metrics-exporter-prometheus",
            Crate::Facade => "ours via metrics",
        }
    }
}

/// Creates one series per label set with `create`, then records [`VALUES`] into every series
/// from each of `threads` threads; returns the heap bytes that stay live per series. Whatever
/// the caller built before (the family, the label sets) is not counted; the clones a family
/// keeps of the label sets are.
pub fn per_series<H: Sync>(
    alloc: &CountingAlloc,
    labels: &[Tenant],
    threads: usize,
    mut create: impl FnMut(&Tenant) -> H,
    record: impl Fn(&H, f64) + Sync,
) -> PerSeries {
    // Reserved before the first reading: the handles' own vector is not the series' memory.
    let mut handles = Vec::with_capacity(labels.len());
    let before = alloc.now();
    handles.extend(labels.iter().map(&mut create));
    thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                for handle in &handles {
                    for value in VALUES {
                        record(handle, value);
                    }
                }
            });
        }
    });
    let after = alloc.now();
    drop(handles);
    after.per_series_since(before, labels.len())
}

/// Heap bytes per series of `kind` in `krate`, recorded from `threads` threads; `None` where
/// the crate has no such series (native buckets in `prometheus` and in the exporter, whose
/// histogram keeps raw samples until a render whatever it then renders).
pub fn measure(
    alloc: &CountingAlloc,
    krate: Crate,
    kind: Kind,
    labels: &[Tenant],
    threads: usize,
) -> Option<PerSeries> {
    match krate {
        Crate::Ours => Some(ours(alloc, kind, labels, threads)),
        Crate::PrometheusClient => Some(prometheus_client(alloc, kind, labels, threads)),
        Crate::Prometheus => prometheus(alloc, kind, labels, threads),
        Crate::Exporter => exporter(alloc, kind, labels, threads),
        Crate::Facade => facade(alloc, kind, labels, threads),
    }
}

fn ours(alloc: &CountingAlloc, kind: Kind, labels: &[Tenant], threads: usize) -> PerSeries {
    let mut registry = Registry::default();
    let metrics = MemoryMetrics::register_for(&mut registry, labels.len());
    let handles = metrics.resolve(&NoLabels);
    match kind {
        Kind::Counter => per_series(
            alloc,
            labels,
            threads,
            |l| handles.counter.get_or_create(l),
            |c, _| {
                c.inc();
            },
        ),
        Kind::Gauge => per_series(
            alloc,
            labels,
            threads,
            |l| handles.gauge.get_or_create(l),
            |g, v| {
                g.set((v * 1000.0) as i64);
            },
        ),
        Kind::Classic => histograms(alloc, labels, threads, |l| handles.classic.get_or_create(l)),
        Kind::ClassicNative => histograms(alloc, labels, threads, |l| {
            handles.classic_native.get_or_create(l)
        }),
        Kind::Native => histograms(alloc, labels, threads, |l| handles.native.get_or_create(l)),
    }
}

/// Our histograms. A series starts with one block of cells and gets its shards the first time
/// two threads record into it at the same moment, which two threads taking turns over 2,000
/// series seldom do: with 2 threads, every series is measured as it is once they have met
/// (its shards installed before the records), the most a contended series holds.
fn histograms(
    alloc: &CountingAlloc,
    labels: &[Tenant],
    threads: usize,
    mut create: impl FnMut(&Tenant) -> Histogram,
) -> PerSeries {
    let create = |labels: &Tenant| {
        let histogram = create(labels);
        if threads > 1 {
            metric_handles::__private::install_histogram_shards(&histogram);
        }
        histogram
    };
    per_series(alloc, labels, threads, create, |h, v| h.observe(v))
}

fn prometheus_client(
    alloc: &CountingAlloc,
    kind: Kind,
    labels: &[Tenant],
    threads: usize,
) -> PerSeries {
    use prometheus_client::metrics::counter::Counter;
    use prometheus_client::metrics::family::Family;
    use prometheus_client::metrics::gauge::Gauge;
    use prometheus_client::metrics::histogram::{Histogram, NativeHistogramConfig};

    fn observe(h: &Histogram, v: f64) {
        h.observe(v);
    }
    match kind {
        Kind::Counter => {
            let family = Family::<Tenant, Counter>::default();
            per_series(
                alloc,
                labels,
                threads,
                |l| family.get_or_create(l).clone(),
                |c, _| {
                    c.inc();
                },
            )
        }
        Kind::Gauge => {
            let family = Family::<Tenant, Gauge>::default();
            per_series(
                alloc,
                labels,
                threads,
                |l| family.get_or_create(l).clone(),
                |g, v| {
                    g.set((v * 1000.0) as i64);
                },
            )
        }
        Kind::Classic => {
            let family =
                Family::<Tenant, Histogram>::new_with_constructor(|| Histogram::new(ITL_BUCKETS));
            per_series(
                alloc,
                labels,
                threads,
                |l| family.get_or_create(l).clone(),
                observe,
            )
        }
        Kind::ClassicNative => {
            let family = Family::<Tenant, Histogram>::new_with_constructor(|| {
                Histogram::new_classic_and_native(ITL_BUCKETS, NativeHistogramConfig::default())
            });
            per_series(
                alloc,
                labels,
                threads,
                |l| family.get_or_create(l).clone(),
                observe,
            )
        }
        Kind::Native => {
            let family = Family::<Tenant, Histogram>::new_with_constructor(|| {
                Histogram::new_native(NativeHistogramConfig::default())
            });
            per_series(
                alloc,
                labels,
                threads,
                |l| family.get_or_create(l).clone(),
                observe,
            )
        }
    }
}

fn prometheus(
    alloc: &CountingAlloc,
    kind: Kind,
    labels: &[Tenant],
    threads: usize,
) -> Option<PerSeries> {
    use prometheus::{HistogramOpts, HistogramVec, IntCounterVec, IntGaugeVec, Opts};

    fn label(l: &Tenant) -> [&str; 1] {
        [l.tenant.as_str()]
    }
    Some(match kind {
        Kind::Counter => {
            let vec = IntCounterVec::new(Opts::new("mem_counter", "c"), &["tenant"]).ok()?;
            per_series(
                alloc,
                labels,
                threads,
                |l| vec.with_label_values(&label(l)),
                |c, _| c.inc(),
            )
        }
        Kind::Gauge => {
            let vec = IntGaugeVec::new(Opts::new("mem_gauge", "g"), &["tenant"]).ok()?;
            per_series(
                alloc,
                labels,
                threads,
                |l| vec.with_label_values(&label(l)),
                |g, v| g.set((v * 1000.0) as i64),
            )
        }
        Kind::Classic => {
            let opts = HistogramOpts::new("mem_classic", "h").buckets(ITL_BUCKETS.to_vec());
            let vec = HistogramVec::new(opts, &["tenant"]).ok()?;
            per_series(
                alloc,
                labels,
                threads,
                |l| vec.with_label_values(&label(l)),
                |h, v| h.observe(v),
            )
        }
        Kind::ClassicNative | Kind::Native => return None,
    })
}

/// Ours through the `metrics` macros: the facade's recorder on a registry, the histograms with
/// the ITL bounds (and native buckets beside them for the classic + native kind; the facade's
/// histograms always have classic buckets, so there is no native-only one).
fn facade(
    alloc: &CountingAlloc,
    kind: Kind,
    labels: &[Tenant],
    threads: usize,
) -> Option<PerSeries> {
    let mut registry = Registry::default();
    let native = metric_handles::histogram::NativeConfig::default();
    let builder = FacadeBuilder::new()
        .max_series(labels.len().max(1))
        .and_then(|builder| builder.buckets(&ITL_BUCKETS))
        .expect("valid settings");
    let builder = match kind {
        Kind::ClassicNative => builder.native(Some(native)),
        _ => builder,
    };
    let recorder = builder.build(&mut registry);
    let name = match kind {
        Kind::Counter => "mem_counter",
        Kind::Gauge => "mem_gauge",
        Kind::Classic => "mem_classic",
        Kind::ClassicNative => "mem_classic_native",
        Kind::Native => return None,
    };
    let with = |f: &dyn Fn() -> PerSeries| Some(metrics::with_local_recorder(&recorder, f));
    match kind {
        Kind::Counter => with(&|| {
            per_series(
                alloc,
                labels,
                threads,
                |l| metrics::counter!(name, "tenant" => l.tenant.clone()),
                |c, _| c.increment(1),
            )
        }),
        Kind::Gauge => with(&|| {
            per_series(
                alloc,
                labels,
                threads,
                |l| metrics::gauge!(name, "tenant" => l.tenant.clone()),
                |g, v| g.set(v),
            )
        }),
        _ => with(&|| {
            per_series(
                alloc,
                labels,
                threads,
                |l| metrics::histogram!(name, "tenant" => l.tenant.clone()),
                |h, v| h.record(v),
            )
        }),
    }
}

fn exporter(
    alloc: &CountingAlloc,
    kind: Kind,
    labels: &[Tenant],
    threads: usize,
) -> Option<PerSeries> {
    let recorder = metrics_exporter_prometheus::PrometheusBuilder::new()
        .set_buckets(&ITL_BUCKETS)
        .ok()?
        .build_recorder();
    Some(match kind {
        Kind::Counter => per_series(
            alloc,
            labels,
            threads,
            |l| {
                metrics::with_local_recorder(
                    &recorder,
                    || metrics::counter!("mem_counter", "tenant" => l.tenant.clone()),
                )
            },
            |c, _| c.increment(1),
        ),
        Kind::Gauge => per_series(
            alloc,
            labels,
            threads,
            |l| {
                metrics::with_local_recorder(
                    &recorder,
                    || metrics::gauge!("mem_gauge", "tenant" => l.tenant.clone()),
                )
            },
            |g, v| g.set(v),
        ),
        Kind::Classic => per_series(
            alloc,
            labels,
            threads,
            |l| {
                metrics::with_local_recorder(
                    &recorder,
                    || metrics::histogram!("mem_classic", "tenant" => l.tenant.clone()),
                )
            },
            |h, v| h.record(v),
        ),
        Kind::ClassicNative | Kind::Native => return None,
    })
}

/// Heap bytes of one counter made alone (`Box::new` of the crate's counter): subtracted from
/// a family's counter series, it leaves what the family keeps per label set.
pub fn lone_counter(alloc: &CountingAlloc, krate: Crate, n: usize) -> Option<PerSeries> {
    fn boxed<T>(alloc: &CountingAlloc, n: usize, make: impl Fn() -> T) -> PerSeries {
        let mut kept = Vec::with_capacity(n);
        let before = alloc.now();
        kept.extend((0..n).map(|_| Box::new(make())));
        let after = alloc.now();
        drop(kept);
        after.per_series_since(before, n)
    }
    match krate {
        Crate::Ours => Some(boxed(alloc, n, Counter::<u64>::default)),
        Crate::PrometheusClient => Some(boxed(
            alloc,
            n,
            prometheus_client::metrics::counter::Counter::<u64>::default,
        )),
        Crate::Prometheus => {
            let opts = prometheus::Opts::new("mem_counter", "c");
            Some(boxed(alloc, n, || {
                prometheus::IntCounter::with_opts(opts.clone()).ok()
            }))
        }
        Crate::Exporter | Crate::Facade => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_values_fall_in_8_native_buckets_at_the_default_schema() {
        // Schema 3: bucket `i` holds (2^((i-1)/8), 2^(i/8)].
        let mut buckets: Vec<i64> = VALUES
            .iter()
            .map(|v| (v.log2() * 8.0).ceil() as i64)
            .collect();
        buckets.dedup();
        assert_eq!(buckets.len(), VALUES.len(), "{buckets:?}");
    }

    #[test]
    fn every_label_set_is_distinct() {
        let labels = tenants(1000);
        let distinct: std::collections::HashSet<&Tenant> = labels.iter().collect();
        assert_eq!(distinct.len(), 1000);
    }
}
