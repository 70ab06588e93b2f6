//! What idle-series expiry costs a record: the same `Dynamic<Tenant, Counter>` family with and
//! without an idle timeout, in the same run.
//!
//! * `kept_handle` / `kept_handle_expiring`: a record through a handle kept from one lookup
//!   (expiry adds nothing there: the same atomic add).
//! * `lookup` / `lookup_expiring`: `get_or_create` of one of 16 known tenants, then the record
//!   (what a handler that does not keep handles pays; expiry adds a load of the series' expiry
//!   word, which stays in the cache between scrapes).
//!
//! Every 4,096 iterations the state is swept, as a scrape would, so the expiring family goes
//! through its sweep-and-touch cycle during the measurement.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use metric_handles::__private::{new_family, SeriesSpec};
use metric_handles::{Counter, Dynamic, Family, LabelSet, NoLabels};
use metric_handles_benches::runner::{Runner, SingleThread};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Tenant {
    pub tenant: String,
}

struct Side {
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

struct State {
    tenants: Vec<Tenant>,
    plain: Side,
    expiring: Side,
}

impl State {
    fn new() -> Self {
        let tenants: Vec<Tenant> = (0..16)
            .map(|i| Tenant {
                tenant: format!("tenant-{i:02}"),
            })
            .collect();
        State {
            plain: Side::new(None, &tenants),
            expiring: Side::new(Some(Duration::from_secs(300)), &tenants),
            tenants,
        }
    }

    fn kept(side: &Side, i: usize) {
        side.sweep_now_and_then(i);
        black_box(&side.kept).inc();
    }

    fn lookup(&self, side: &Side, i: usize) {
        side.sweep_now_and_then(i);
        black_box(&side.by_tenant)
            .get_or_create(black_box(&self.tenants[i & 15]))
            .inc();
    }
}

fn single_thread(c: &mut Criterion) {
    SingleThread::new(c, "idle_expiry_1t", &State::new()).run_all(|runner| {
        runner.run("kept_handle", |s, i| State::kept(&s.plain, i));
        runner.run("kept_handle_expiring", |s, i| State::kept(&s.expiring, i));
        runner.run("lookup", |s, i| s.lookup(&s.plain, i));
        runner.run("lookup_expiring", |s, i| s.lookup(&s.expiring, i));
    });
}

criterion_group!(benches, single_thread);
criterion_main!(benches);
