//! Idle-series expiry of `Dynamic` axes and plug-in families: a series neither recorded nor
//! looked up for the idle timeout leaves the exposition at the next scrape, comes back with
//! every count when a kept handle records or its labels are looked up, and gives its slot to
//! a new label set (starting again from zero) only when the map is full. No test here depends
//! on how fast the machine is: a series is only ever expected to expire after a sleep longer
//! than its timeout, and expected to stay only when it was recorded since the last scrape.

use std::time::Duration;

use metric_handles::family::{FamilySpec, RuntimeFamilies};
use metric_handles::testing::Scrape;
use metric_handles::{
    Counter, Dynamic, Family, Gauge, LabelSet, MetricHandles, NoLabels, RegisterOptions,
    RegistrationError, Registry,
};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Tenant {
    pub tenant: String,
}

fn tenant(name: &str) -> Tenant {
    Tenant {
        tenant: name.to_owned(),
    }
}

#[derive(Debug, MetricHandles)]
pub struct Tenants {
    /// Requests by tenant
    #[metric(name = "idle:requests")]
    pub requests: Family<NoLabels, Dynamic<Tenant, Counter>>,
    /// Queue depth by tenant
    #[metric(name = "idle:queued")]
    pub queued: Family<NoLabels, Dynamic<Tenant, Gauge>>,
    /// Requests in all
    #[metric(name = "idle:total")]
    pub total: Family<NoLabels, Counter>,
}

/// Longer than [`TIMEOUT`] by a margin: a monotonic clock makes the wait at least this long.
const TIMEOUT: Duration = Duration::from_millis(2);
fn wait_past_timeout() {
    std::thread::sleep(TIMEOUT * 3);
}

fn register(options: RegisterOptions) -> (Registry, Tenants) {
    let mut registry = Registry::default();
    let metrics = Tenants::try_register_with(&mut registry, &options).expect("registers");
    (registry, metrics)
}

fn expiring() -> RegisterOptions {
    RegisterOptions::new()
        .idle_timeout("idle:requests", TIMEOUT)
        .idle_timeout("idle:queued", TIMEOUT)
}

fn requests(registry: &Registry, name: &str) -> Option<f64> {
    Scrape::of(registry).value("idle:requests_total", &[("tenant", name)])
}

#[test]
fn an_idle_series_leaves_the_scrape_and_a_kept_handle_brings_it_back_with_its_counts() {
    let (registry, metrics) = register(expiring());
    let by_tenant = metrics.resolve(&NoLabels).requests;
    let acme = by_tenant.get_or_create(&tenant("acme"));
    acme.inc_by(3);
    assert_eq!(requests(&registry, "acme"), Some(3.0));

    wait_past_timeout();
    assert_eq!(requests(&registry, "acme"), None, "idle past the timeout");
    assert_eq!(by_tenant.len(), 0);
    assert_eq!(by_tenant.expired_series(), (1, 0));

    // The handle kept from before still records, and the next scrape shows the series again
    // with the counts from before its expiry too.
    acme.inc();
    assert_eq!(requests(&registry, "acme"), Some(4.0));
    assert_eq!(by_tenant.len(), 1);
}

#[test]
fn a_lookup_brings_a_dormant_series_back_before_any_record() {
    let (registry, metrics) = register(expiring());
    let by_tenant = metrics.resolve(&NoLabels).requests;
    by_tenant.get_or_create(&tenant("acme")).inc_by(5);
    Scrape::of(&registry);
    wait_past_timeout();
    assert_eq!(requests(&registry, "acme"), None);
    assert_eq!(
        by_tenant.get(&tenant("acme")).map(|c| c.get()),
        Some(5),
        "a dormant series keeps its values"
    );
    assert_eq!(requests(&registry, "acme"), Some(5.0));
}

#[test]
fn a_series_recorded_between_scrapes_stays_however_long_the_scrapes_take() {
    let (registry, metrics) = register(expiring());
    let by_tenant = metrics.resolve(&NoLabels).requests;
    let acme = by_tenant.get_or_create(&tenant("acme"));
    for round in 1..=5 {
        wait_past_timeout();
        acme.inc();
        assert_eq!(requests(&registry, "acme"), Some(f64::from(round)));
    }
    assert_eq!(by_tenant.expired_series(), (0, 0));
}

#[test]
fn without_an_idle_timeout_nothing_expires() {
    let (registry, metrics) = register(RegisterOptions::new());
    let by_tenant = metrics.resolve(&NoLabels).requests;
    by_tenant.get_or_create(&tenant("acme")).inc();
    Scrape::of(&registry);
    wait_past_timeout();
    assert_eq!(by_tenant.expire_idle(), 0);
    assert_eq!(requests(&registry, "acme"), Some(1.0));
}

#[test]
fn a_full_map_drops_its_longest_quiet_dormant_series_for_a_new_label_set_which_restarts_at_zero() {
    let options = expiring().max_series("idle:requests", 2);
    let (registry, metrics) = register(options);
    let by_tenant = metrics.resolve(&NoLabels).requests;
    by_tenant.get_or_create(&tenant("old")).inc_by(7);
    Scrape::of(&registry);
    wait_past_timeout();
    by_tenant.get_or_create(&tenant("newer")).inc_by(2);
    Scrape::of(&registry);
    wait_past_timeout();
    Scrape::of(&registry);
    assert_eq!(by_tenant.len(), 0, "both dormant");

    // A new label set takes the slot of the one quiet for longest, not the overflow series.
    by_tenant.get_or_create(&tenant("third")).inc();
    assert_eq!(by_tenant.expired_series().1, 1);
    assert_eq!(by_tenant.overflowed_lookups(), 0);
    let scrape = Scrape::of(&registry);
    assert_eq!(
        scrape.value("idle:requests_total", &[("tenant", "third")]),
        Some(1.0)
    );
    // `newer` is still dormant, with its counts; `old` was dropped and restarts from zero.
    assert_eq!(by_tenant.get(&tenant("newer")).map(|c| c.get()), Some(2));
    assert!(by_tenant.get(&tenant("old")).is_none());
    // The map is full again. The lookup of `newer` above brought it back, so after one more
    // timeout only `third` is dormant: `old` comes back in its slot, from zero (a counter
    // reset, to `rate()`).
    wait_past_timeout();
    Scrape::of(&registry);
    by_tenant.get_or_create(&tenant("old")).inc();
    assert_eq!(by_tenant.overflowed_lookups(), 0);
    assert_eq!(requests(&registry, "old"), Some(1.0));
    assert!(by_tenant.get(&tenant("third")).is_none());
}

#[test]
fn a_dormant_series_recorded_through_a_kept_handle_keeps_its_slot() {
    let options = expiring().max_series("idle:requests", 1);
    let (registry, metrics) = register(options);
    let by_tenant = metrics.resolve(&NoLabels).requests;
    let acme = by_tenant.get_or_create(&tenant("acme"));
    acme.inc();
    Scrape::of(&registry);
    wait_past_timeout();
    Scrape::of(&registry);
    assert_eq!(by_tenant.len(), 0);
    // Recorded while dormant, and no scrape since: the new label set must not take its slot.
    acme.inc();
    by_tenant.get_or_create(&tenant("other")).inc();
    assert_eq!(by_tenant.overflowed_lookups(), 1);
    assert_eq!(requests(&registry, "acme"), Some(2.0));
}

#[test]
fn an_oversized_label_set_never_takes_a_dormant_series_slot() {
    let options = expiring().max_series("idle:requests", 1);
    let (registry, metrics) = register(options);
    let by_tenant = metrics.resolve(&NoLabels).requests;
    by_tenant.get_or_create(&tenant("acme")).inc();
    Scrape::of(&registry);
    wait_past_timeout();
    Scrape::of(&registry);
    assert_eq!(by_tenant.len(), 0, "dormant");
    let huge = "x".repeat(metric_handles::limits::MAX_LABEL_VALUE_LEN + 1);
    by_tenant.get_or_create(&tenant(&huge)).inc();
    assert_eq!(by_tenant.oversized_lookups(), 1);
    assert_eq!(by_tenant.expired_series(), (1, 0), "nothing dropped for it");
    assert_eq!(by_tenant.get(&tenant("acme")).map(|c| c.get()), Some(1));
}

#[test]
fn a_gauge_goes_dormant_while_its_value_holds_and_returns_when_it_changes() {
    let (registry, metrics) = register(expiring());
    let queued = metrics.resolve(&NoLabels).queued;
    let acme = queued.get_or_create(&tenant("acme"));
    acme.set(4);
    let value =
        |registry: &Registry| Scrape::of(registry).value("idle:queued", &[("tenant", "acme")]);
    assert_eq!(value(&registry), Some(4.0));
    wait_past_timeout();
    acme.set(4);
    assert_eq!(value(&registry), None, "the same value is no change");
    acme.set(5);
    assert_eq!(value(&registry), Some(5.0));
}

#[test]
fn an_idle_timeout_for_a_metric_without_a_dynamic_axis_is_refused() {
    let mut registry = Registry::default();
    let options = RegisterOptions::new().idle_timeout("idle:total", TIMEOUT);
    let error = Tenants::try_register_with(&mut registry, &options).expect_err("refused");
    let RegistrationError::UnknownOverride { option, known, .. } = &error else {
        panic!("unexpected error: {error}");
    };
    assert_eq!(*option, "idle_timeout");
    assert_eq!(known, &["idle:requests", "idle:queued"]);
    assert!(error.to_string().contains("RegisterOptions::idle_timeout"));
}

#[test]
fn a_plug_in_family_expires_idle_series_by_the_same_rules() {
    let mut registry = Registry::default();
    let families: RuntimeFamilies<NoLabels> = RuntimeFamilies::register_in(&mut registry);
    let spec = FamilySpec::counter("plugin:fetches", "Fetches")
        .label_keys(["tier"])
        .idle_timeout(TIMEOUT);
    assert_eq!(spec.expires_idle_after(), Some(TIMEOUT));
    let fetches = families.register::<Counter>(&spec).expect("a valid spec");
    let hot = fetches
        .get_or_create(&NoLabels, &["hot"])
        .expect("one value");
    hot.inc_by(2);
    let value = |registry: &Registry| {
        Scrape::of(registry).value("plugin:fetches_total", &[("tier", "hot")])
    };
    assert_eq!(value(&registry), Some(2.0));
    wait_past_timeout();
    assert_eq!(value(&registry), None);
    assert_eq!(fetches.expired_series(), (1, 0));
    hot.inc();
    assert_eq!(value(&registry), Some(3.0));
}

/// The race between a scrape's sweep and records through kept handles: three threads record
/// into six tenants, half of them quiet for a while in turn (so they expire while their
/// handles are kept), through kept handles and through lookups, while a thread scrapes in a
/// loop. No scrape may ever show a tenant lower than an earlier scrape did (no count of a
/// series that still exists is lost), and at the end every tenant holds every record.
#[test]
fn sweeps_racing_records_through_kept_handles_lose_no_count() {
    const THREADS: u64 = 3;
    const ROUNDS: u64 = 300;
    const PHASE: u64 = 50;
    let names: Vec<String> = (0..6).map(|k| format!("t{k}")).collect();
    let recorded_in = |k: usize, round: u64| (round / PHASE) % 2 == k as u64 % 2;
    let (registry, metrics) =
        register(RegisterOptions::new().idle_timeout("idle:requests", Duration::from_millis(1)));
    let by_tenant = metrics.resolve(&NoLabels).requests;
    let kept_here: Vec<Counter> = names
        .iter()
        .map(|name| by_tenant.get_or_create(&tenant(name)))
        .collect();
    let done = std::sync::atomic::AtomicBool::new(false);
    let mut absences = 0;
    std::thread::scope(|scope| {
        let recorders: Vec<_> = (0..THREADS)
            .map(|_| {
                let by_tenant = by_tenant.clone();
                let names = &names;
                scope.spawn(move || {
                    let kept: Vec<Counter> = names
                        .iter()
                        .map(|name| by_tenant.get_or_create(&tenant(name)))
                        .collect();
                    for round in 0..ROUNDS {
                        for (k, name) in names.iter().enumerate() {
                            if !recorded_in(k, round) {
                                continue;
                            }
                            if (round + k as u64) % 7 == 0 {
                                by_tenant.get_or_create(&tenant(name)).inc();
                            } else {
                                kept[k].inc();
                            }
                        }
                        if round % 10 == 0 {
                            // Long enough for the quiet half to expire now and then.
                            std::thread::sleep(Duration::from_millis(2));
                        }
                    }
                })
            })
            .collect();
        let mut highest = vec![0.0; names.len()];
        while !done.load(std::sync::atomic::Ordering::Relaxed) {
            let scrape = Scrape::of(&registry);
            for (k, name) in names.iter().enumerate() {
                match scrape.value("idle:requests_total", &[("tenant", name)]) {
                    Some(value) => {
                        assert!(
                            value >= highest[k],
                            "{name} went from {} to {value}",
                            highest[k]
                        );
                        highest[k] = value;
                    }
                    None => absences += 1,
                }
            }
            if recorders.iter().all(|r| r.is_finished()) {
                done.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }
        for recorder in recorders {
            recorder.join().expect("recorder");
        }
    });
    // Whatever the last sweep left dormant, one more record through a handle kept since the
    // start brings every tenant back, with every count.
    for kept in &kept_here {
        kept.inc();
    }
    let scrape = Scrape::of(&registry);
    for (k, name) in names.iter().enumerate() {
        let expected = 1 + THREADS * (0..ROUNDS).filter(|&r| recorded_in(k, r)).count() as u64;
        assert_eq!(
            scrape.value("idle:requests_total", &[("tenant", name)]),
            Some(expected as f64),
            "{name}"
        );
    }
    println!(
        "{absences} tenant-scrapes without a tenant; {:?} (expired, evicted)",
        by_tenant.expired_series()
    );
}
