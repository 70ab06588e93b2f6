//! Gauges: [`Gauge`], prometheus-client's gauge named with `i64` as its default value type, and
//! [`InFlightGuard`], which counts work in progress in one and cannot leak.

mod in_flight;

pub use in_flight::{InFlightGauge, InFlightGuard};

/// An `i64` gauge (prometheus-client's). `Gauge<f64, AtomicU64>` and `Gauge<u64, AtomicU64>`
/// hold other value types.
pub type Gauge<N = i64, A = std::sync::atomic::AtomicI64> =
    ::prometheus_client::metrics::gauge::Gauge<N, A>;
