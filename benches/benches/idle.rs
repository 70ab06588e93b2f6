//! What idle-series expiry costs a record: the same `Dynamic<Tenant, Counter>` family with and
//! without an idle timeout, in the same run (`metric_handles_benches::idle`).
//!
//! * `kept_handle` / `kept_handle_expiring`: a record through a handle kept from one lookup
//!   (expiry adds nothing there: the same atomic add).
//! * `lookup` / `lookup_expiring`: `get_or_create` of one of 16 known tenants, then the record
//!   (what a handler that does not keep handles pays; expiry adds a load of the series' expiry
//!   word, which stays in the cache between scrapes).
//!
//! Every 4,096 iterations the family is swept, as a scrape would, so the expiring family goes
//! through its sweep-and-touch cycle during the measurement. On a shared machine, the
//! `idle-cpu-time` binary gives the same comparison in CPU time, alternating the rounds.

use criterion::{criterion_group, criterion_main, Criterion};
use metric_handles_benches::idle::IdleFamilies;
use metric_handles_benches::runner::{Runner, SingleThread};

fn single_thread(c: &mut Criterion) {
    SingleThread::new(c, "idle_expiry_1t", &IdleFamilies::new()).run_all(|runner| {
        runner.run("kept_handle", |s, i| IdleFamilies::kept(&s.plain, i));
        runner.run("kept_handle_expiring", |s, i| {
            IdleFamilies::kept(&s.expiring, i)
        });
        runner.run("lookup", |s, i| s.lookup(&s.plain, i));
        runner.run("lookup_expiring", |s, i| s.lookup(&s.expiring, i));
    });
}

criterion_group!(benches, single_thread);
criterion_main!(benches);
