//! A `Dynamic<Tenant, Counter>` family with and without an idle timeout, recorded every way the
//! idle-expiry benchmark compares. Shared by `benches/idle.rs` and the `idle-cpu-time` binary.

use std::hint::black_box;
use std::time::Duration;

use metric_handles::__private::{new_family, SeriesSpec};
use metric_handles::{Counter, Dynamic, Family, LabelSet, NoLabels};

/// The record-time label set.
#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Tenant {
    /// The tenant's name.
    pub tenant: String,
}

/// One family: its `Dynamic` axis and a handle kept from one lookup.
#[derive(Debug)]
pub struct Side {
    by_tenant: Dynamic<Tenant, Counter>,
    kept: Counter,
}

impl Side {
    fn new(idle_timeout: Option<Duration>, tenants: &[Tenant]) -> Self {
        let family: Family<NoLabels, Dynamic<Tenant, Counter>> =
            new_family(SeriesSpec::new().with_idle_timeout(idle_timeout));
        let by_tenant = family.get_or_create(&NoLabels);
        for tenant in tenants {
            by_tenant.get_or_create(tenant).inc();
        }
        let kept = by_tenant.get_or_create(&tenants[0]);
        Side { by_tenant, kept }
    }

    /// A sweep every 4,096 iterations, as a scrape would do (nothing without a timeout).
    fn sweep_now_and_then(&self, i: usize) {
        if i.is_multiple_of(4096) {
            self.by_tenant.expire_idle();
        }
    }
}

/// The two families (without and with a 5-minute idle timeout) over the same 16 tenants.
#[derive(Debug)]
pub struct IdleFamilies {
    tenants: Vec<Tenant>,
    /// Without an idle timeout.
    pub plain: Side,
    /// With a 5-minute idle timeout.
    pub expiring: Side,
}

impl Default for IdleFamilies {
    fn default() -> Self {
        Self::new()
    }
}

impl IdleFamilies {
    /// Both families, each holding the 16 tenants.
    pub fn new() -> Self {
        let tenants: Vec<Tenant> = (0..16)
            .map(|i| Tenant {
                tenant: format!("tenant-{i:02}"),
            })
            .collect();
        IdleFamilies {
            plain: Side::new(None, &tenants),
            expiring: Side::new(Some(Duration::from_secs(300)), &tenants),
            tenants,
        }
    }

    /// A record through the handle kept from one lookup.
    #[inline]
    pub fn kept(side: &Side, i: usize) {
        side.sweep_now_and_then(i);
        black_box(&side.kept).inc();
    }

    /// `get_or_create` of one of the 16 tenants, then the record.
    #[inline]
    pub fn lookup(&self, side: &Side, i: usize) {
        side.sweep_now_and_then(i);
        black_box(&side.by_tenant)
            .get_or_create(black_box(&self.tenants[i & 15]))
            .inc();
    }

    /// `iterations` records of `id` (one of [`IDS`]).
    pub fn record(&self, id: &str, iterations: usize) {
        match id {
            "kept_handle" => (0..iterations).for_each(|i| Self::kept(&self.plain, i)),
            "kept_handle_expiring" => (0..iterations).for_each(|i| Self::kept(&self.expiring, i)),
            "lookup" => (0..iterations).for_each(|i| self.lookup(&self.plain, i)),
            "lookup_expiring" => (0..iterations).for_each(|i| self.lookup(&self.expiring, i)),
            _ => {}
        }
    }
}

/// Every way the benchmark records, baseline first in each pair.
pub const IDS: [&str; 4] = [
    "kept_handle",
    "kept_handle_expiring",
    "lookup",
    "lookup_expiring",
];
