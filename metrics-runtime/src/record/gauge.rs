//! [`Gauge`]: prometheus-client's gauge, named here with `i64` as its default value type.

/// An `i64` gauge (prometheus-client's). `Gauge<f64, AtomicU64>` and `Gauge<u64, AtomicU64>`
/// hold other value types.
pub type Gauge<N = i64, A = std::sync::atomic::AtomicI64> =
    ::prometheus_client::metrics::gauge::Gauge<N, A>;
