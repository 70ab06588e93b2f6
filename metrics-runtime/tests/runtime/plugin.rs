//! Plug-in families (`metric_handles::family`) through their public API: one test per
//! validation rule, and the behaviour of registered families.

use std::sync::atomic::AtomicU64;
use std::time::Duration;

use metric_handles::buckets::BucketError;
use metric_handles::family::{FamilyError, FamilySpec, RuntimeFamilies};
use metric_handles::testing::Scrape;
use metric_handles::Registry;

use metric_handles::descriptor::MetricKind;
use metric_handles::{Counter, Dynamic, Family, Gauge, Histogram, LabelSet, MetricHandles};

use crate::support::exposition::{assert_has_lines, encode_text as exposition};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
struct Engine {
    model_name: String,
    engine: u32,
}

fn engine(engine: u32) -> Engine {
    Engine {
        model_name: "m".into(),
        engine,
    }
}

fn families() -> (Registry, RuntimeFamilies<Engine>) {
    let mut registry = Registry::default();
    let families = RuntimeFamilies::register_in(&mut registry);
    (registry, families)
}

fn counter_error(spec: FamilySpec) -> FamilyError {
    let (_registry, families) = families();
    families
        .register::<Counter>(&spec)
        .expect_err("the spec breaks a rule")
}

fn histogram_error(spec: FamilySpec) -> FamilyError {
    let (_registry, families) = families();
    families
        .register::<Histogram>(&spec)
        .expect_err("the spec breaks a rule")
}

#[test]
fn an_invalid_name_is_rejected() {
    for name in ["", "1st", "has-dash", "has space", "é"] {
        assert_eq!(
            counter_error(FamilySpec::counter(name, "help")),
            FamilyError::InvalidName { name: name.into() },
            "{name:?}"
        );
    }
}

#[test]
fn a_counter_ending_in_total_is_rejected_but_a_histogram_may() {
    let error = counter_error(FamilySpec::counter("x_total", "help"));
    assert_eq!(
        error,
        FamilyError::CounterNameEndsInTotal {
            name: "x_total".into()
        }
    );
    assert!(error.to_string().contains("register it as `x`"), "{error}");
    let (_registry, families) = families();
    families
        .register::<Histogram>(&FamilySpec::histogram(
            "vllm:iteration_tokens_total",
            "help",
            vec![1.0],
        ))
        .expect("vLLM's histogram ends in _total");
}

#[test]
fn empty_help_is_rejected() {
    assert_eq!(
        counter_error(FamilySpec::counter("x", " ")),
        FamilyError::EmptyHelp { name: "x".into() }
    );
}

#[test]
fn help_ending_in_a_period_is_rejected_whatever_whitespace_follows_it() {
    // The exposition writes the help trimmed and then its own `.`: each of these would come
    // out as `Counts things..`.
    for help in [
        "Counts things.",
        "Counts things. ",
        "Counts things.\n",
        "Counts things.\r\n",
        "Counts things.\t",
        "Counts things. \n \t",
        "Counts things.\u{85}",
        "Counts things.\u{2028}",
        ".",
        ". ",
    ] {
        assert_eq!(
            counter_error(FamilySpec::counter("x", help)),
            FamilyError::HelpEndsWithPeriod { name: "x".into() },
            "{help:?}"
        );
    }
}

#[test]
fn help_with_a_period_inside_or_trailing_whitespace_alone_is_kept_trimmed() {
    let (registry, families) = families();
    for (name, help, written) in [
        (
            "a",
            "Version 1.2 requests",
            "# HELP a_total Version 1.2 requests.",
        ),
        ("b", "Counts things ", "# HELP b_total Counts things."),
        ("c", "  Counts things\n", "# HELP c_total Counts things."),
        ("d", "Counts. Things\t", "# HELP d_total Counts. Things."),
        ("e", "...and more", "# HELP e_total ...and more."),
    ] {
        families
            .register::<Counter>(&FamilySpec::counter(name, help))
            .unwrap_or_else(|error| panic!("{help:?}: {error}"));
        let text = exposition(&registry);
        assert!(text.contains(&format!("{written}\n")), "{help:?}:\n{text}");
    }
}

#[test]
fn an_invalid_unit_is_rejected() {
    assert_eq!(
        counter_error(FamilySpec::counter("x", "help").unit("Seconds")),
        FamilyError::InvalidUnit {
            name: "x".into(),
            unit: "Seconds".into()
        }
    );
}

#[test]
fn a_histogram_without_buckets_is_rejected() {
    assert_eq!(
        histogram_error(FamilySpec::new("x", MetricKind::Histogram, "help")),
        FamilyError::MissingBuckets { name: "x".into() }
    );
}

#[test]
fn buckets_on_a_counter_are_rejected() {
    assert_eq!(
        counter_error(FamilySpec::counter("x", "help").buckets(vec![1.0])),
        FamilyError::UnexpectedBuckets {
            name: "x".into(),
            kind: MetricKind::Counter
        }
    );
}

#[test]
fn invalid_buckets_are_rejected_naming_the_bound() {
    for (bounds, error) in [
        (vec![], BucketError::Empty),
        (vec![1.0, f64::NAN], BucketError::NotFinite { index: 1 }),
        (vec![f64::INFINITY], BucketError::NotFinite { index: 0 }),
        (vec![1.0, 2.0, 2.0], BucketError::NotIncreasing { index: 2 }),
        (vec![2.0, 1.0], BucketError::NotIncreasing { index: 1 }),
    ] {
        assert_eq!(
            histogram_error(FamilySpec::histogram("x", "help", bounds.clone())),
            FamilyError::InvalidBuckets {
                name: "x".into(),
                error
            },
            "{bounds:?}"
        );
    }
}

#[test]
fn an_invalid_label_key_is_rejected() {
    for key in ["", "1a", "a-b", "a:b"] {
        assert_eq!(
            counter_error(FamilySpec::counter("x", "help").label_keys([key])),
            FamilyError::InvalidLabelKey {
                name: "x".into(),
                key: key.into()
            },
            "{key:?}"
        );
    }
}

#[test]
fn a_reserved_label_key_is_rejected() {
    for key in ["le", "quantile", "otel_metric_overflow", "__name__", "__x"] {
        assert_eq!(
            counter_error(FamilySpec::counter("x", "help").label_keys([key])),
            FamilyError::ReservedLabelKey {
                name: "x".into(),
                key: key.into()
            },
            "{key:?}"
        );
    }
}

#[test]
fn a_repeated_label_key_is_rejected_among_extras_and_against_common_keys() {
    assert_eq!(
        counter_error(FamilySpec::counter("x", "help").label_keys(["op", "op"])),
        FamilyError::DuplicateLabelKey {
            name: "x".into(),
            key: "op".into()
        }
    );
    assert_eq!(
        counter_error(FamilySpec::counter("x", "help").label_keys(["engine"])),
        FamilyError::DuplicateLabelKey {
            name: "x".into(),
            key: "engine".into()
        }
    );
}

#[test]
fn a_duplicate_or_reserved_name_is_rejected_and_the_first_family_survives() {
    let (registry, families) = families();
    families.reserve_names(["vllm:num_requests_running"]);
    let first = families
        .register::<Counter>(&FamilySpec::counter("x", "first"))
        .expect("valid");
    // A name taken by a registered family, then a reserved one.
    for name in ["x", "vllm:num_requests_running"] {
        assert!(
            matches!(
                families.register::<Gauge>(&FamilySpec::gauge(name, "second")),
                Err(FamilyError::NameTaken(..))
            ),
            "{name}"
        );
    }
    first
        .get_or_create(&engine(0), &[])
        .expect("no extras")
        .inc();
    let text = exposition(&registry);
    assert_eq!(text.matches("# TYPE x").count(), 1, "{text}");
    assert!(text.contains("# HELP x_total first."), "{text}");
    assert_eq!(families.len(), 1);
}

#[test]
fn a_member_type_of_another_kind_is_rejected() {
    let (_registry, families) = families();
    assert_eq!(
        families
            .register::<Gauge>(&FamilySpec::counter("x", "help"))
            .map(|_| ()),
        Err(FamilyError::KindMismatch {
            name: "x".into(),
            declared: MetricKind::Counter,
            requested: MetricKind::Gauge
        })
    );
    // Nothing was registered: the name is still free.
    families
        .register::<Counter>(&FamilySpec::counter("x", "help"))
        .expect("name still free");
}

#[test]
fn resolve_rejects_the_wrong_number_of_label_values() {
    let (_registry, families) = families();
    let family = families
        .register::<Counter>(&FamilySpec::counter("x", "help").label_keys(["op", "status"]))
        .expect("valid");
    for values in [&[][..], &["save"][..], &["save", "ok", "extra"][..]] {
        assert_eq!(
            family.get_or_create(&engine(0), values).map(|_| ()),
            Err(FamilyError::LabelValueCount {
                name: "x".into(),
                expected: 2,
                got: values.len()
            })
        );
    }
    assert!(family.is_empty());
}

#[test]
fn every_kind_records_through_the_resolved_handle_and_encodes_like_a_derived_family() {
    let (registry, families) = families();
    let ops = families
        .register::<Counter>(
            &FamilySpec::counter("store_ops", "Store operations").label_keys(["op", "status"]),
        )
        .expect("valid");
    let bytes = families
        .register::<Counter<f64, AtomicU64>>(
            &FamilySpec::counter("moved", "Data moved").unit("bytes"),
        )
        .expect("valid");
    let level = families
        .register::<Gauge>(&FamilySpec::gauge("level", "Current level"))
        .expect("valid");
    let latency = families
        .register::<Histogram>(
            &FamilySpec::histogram("latency", "Latency", vec![0.1, 1.0]).unit("seconds"),
        )
        .expect("valid");
    let e0 = engine(0);
    let handle = ops.get_or_create(&e0, &["save", "ok"]).expect("two values");
    handle.inc();
    handle.inc_by(2);
    ops.get_or_create(&e0, &["save", "ok"])
        .expect("same series")
        .inc();
    ops.get_or_create(&engine(1), &["load", "error"])
        .expect("two values")
        .inc();
    bytes
        .get_or_create(&e0, &[])
        .expect("no extras")
        .inc_by(1.5);
    level.get_or_create(&e0, &[]).expect("no extras").set(-4);
    latency
        .get_or_create(&e0, &[])
        .expect("no extras")
        .observe(0.5);
    assert_eq!(ops.len(), 2);

    let text = exposition(&registry);
    assert_has_lines(
        &text,
        &[
            "# HELP store_ops_total Store operations.",
            "# TYPE store_ops_total counter",
            r#"store_ops_total{model_name="m",engine="0",op="save",status="ok"} 4"#,
            r#"store_ops_total{model_name="m",engine="1",op="load",status="error"} 1"#,
            r#"moved_bytes_total{model_name="m",engine="0"} 1.5"#,
            r#"level{model_name="m",engine="0"} -4"#,
            "# TYPE latency_seconds histogram",
            r#"latency_seconds_bucket{model_name="m",engine="0",le="0.1"} 0"#,
            r#"latency_seconds_bucket{model_name="m",engine="0",le="1"} 1"#,
            r#"latency_seconds_count{model_name="m",engine="0"} 1"#,
        ],
    );
}

#[test]
fn families_registered_after_the_registry_is_shared_are_exported() {
    let (registry, families) = families();
    let registry = std::sync::Arc::new(registry);
    let before = exposition(&registry);
    assert!(!before.contains("late"), "{before}");
    let late = families
        .register::<Gauge>(&FamilySpec::gauge("late", "Registered after sharing"))
        .expect("valid");
    late.get_or_create(&engine(3), &[])
        .expect("no extras")
        .set(7);
    let after = exposition(&registry);
    assert!(
        after.contains(r#"late{model_name="m",engine="3"} 7"#),
        "{after}"
    );
}

#[test]
fn removing_a_common_label_set_drops_its_series_in_every_family_and_nothing_else() {
    let (registry, families) = families();
    let a = families
        .register::<Counter>(&FamilySpec::counter("a", "help").label_keys(["op"]))
        .expect("valid");
    let b = families
        .register::<Gauge>(&FamilySpec::gauge("b", "help"))
        .expect("valid");
    for e in [0, 1] {
        a.get_or_create(&engine(e), &["x"]).expect("ok").inc();
        a.get_or_create(&engine(e), &["y"]).expect("ok").inc();
        b.get_or_create(&engine(e), &[]).expect("ok").set(1);
    }
    assert_eq!(families.remove_common(&engine(0)), 3);
    let text = exposition(&registry);
    assert!(!text.contains(r#"engine="0""#), "{text}");
    assert_eq!(text.matches(r#"engine="1""#).count(), 3, "{text}");
    assert!(a.remove(&engine(1), &["x"]));
    assert!(!a.remove(&engine(1), &["x"]));
}

#[test]
fn a_full_family_sends_new_label_values_to_the_overflow_series() {
    let (registry, families) = families();
    let family = families
        .register::<Counter>(
            &FamilySpec::counter("c", "help")
                .label_keys(["k"])
                .max_series(2),
        )
        .expect("valid");
    for value in ["a", "b", "c", "d"] {
        family
            .get_or_create(&engine(0), &[value])
            .expect("ok")
            .inc();
    }
    assert_eq!(family.len(), 2);
    assert_eq!(family.overflowed_lookups(), 2);
    let text = exposition(&registry);
    assert!(
        text.contains(r#"c_total{otel_metric_overflow="true"} 2"#),
        "{text}"
    );
}

/// A gauge family with the extra key `path` whose values `local` and `remote` are known at
/// registration.
fn path_gauge() -> FamilySpec {
    FamilySpec::gauge("fake_gauge", "gauge")
        .label_keys(["path"])
        .precreate(["local"])
        .precreate(["remote"])
}

/// The samples of `fake_gauge` in `scrape`, as (engine, path, value), in the order written.
fn path_gauge_samples(scrape: &Scrape) -> Vec<(String, String, f64)> {
    scrape
        .samples()
        .filter(|sample| sample.name == "fake_gauge")
        .map(|sample| {
            let label = |key| sample.label(key).unwrap_or("(none)").to_owned();
            (label("engine"), label("path"), sample.value)
        })
        .collect()
}

fn row(engine: &str, path: &str, value: f64) -> (String, String, f64) {
    (engine.to_owned(), path.to_owned(), value)
}

#[test]
fn precreated_label_values_are_exposed_at_zero_for_every_present_common_set_from_the_first_scrape()
{
    let (registry, families) = families();
    families.add_common(&engine(0));
    families.add_common(&engine(1));
    let gauge = families.register::<Gauge>(&path_gauge()).expect("valid");
    assert_eq!(
        path_gauge_samples(&Scrape::of(&registry)),
        [
            row("0", "local", 0.0),
            row("0", "remote", 0.0),
            row("1", "local", 0.0),
            row("1", "remote", 0.0),
        ]
    );
    assert_eq!(gauge.len(), 4);
}

#[test]
fn a_common_set_added_later_gets_the_precreated_series_and_they_leave_with_it() {
    let (registry, families) = families();
    families.add_common(&engine(0));
    let _gauge = families.register::<Gauge>(&path_gauge()).expect("valid");
    families.add_common(&engine(2));
    let scrape = Scrape::of(&registry);
    assert_eq!(
        scrape.value(
            "fake_gauge",
            &[("model_name", "m"), ("engine", "2"), ("path", "local")]
        ),
        Some(0.0)
    );
    assert_eq!(path_gauge_samples(&scrape).len(), 4);

    assert_eq!(families.remove_common(&engine(0)), 2);
    assert_eq!(
        path_gauge_samples(&Scrape::of(&registry)),
        [row("2", "local", 0.0), row("2", "remote", 0.0)]
    );
    // Adding it back pre-creates them afresh.
    families.add_common(&engine(0));
    assert_eq!(path_gauge_samples(&Scrape::of(&registry)).len(), 4);
}

#[test]
fn a_record_into_precreated_label_values_lands_in_the_precreated_series() {
    let (registry, families) = families();
    families.add_common(&engine(0));
    let gauge = families.register::<Gauge>(&path_gauge()).expect("valid");
    gauge
        .get_or_create(&engine(0), &["local"])
        .expect("one value")
        .set(5);
    gauge
        .get_or_create(&engine(0), &["disk"])
        .expect("one value")
        .set(1);
    assert_eq!(
        path_gauge_samples(&Scrape::of(&registry)),
        [
            row("0", "local", 5.0),
            row("0", "remote", 0.0),
            row("0", "disk", 1.0),
        ]
    );
    assert_eq!(gauge.len(), 3);
}

#[test]
fn precreated_series_are_exempt_from_idle_expiry_while_recorded_ones_expire() {
    let (registry, families) = families();
    families.add_common(&engine(0));
    let gauge = families
        .register::<Gauge>(&path_gauge().idle_timeout(Duration::from_millis(1)))
        .expect("valid");
    gauge
        .get_or_create(&engine(0), &["disk"])
        .expect("one value")
        .set(1);
    gauge.expire_idle();
    std::thread::sleep(Duration::from_millis(5));
    assert_eq!(
        gauge.expire_idle(),
        1,
        "only `disk` was idle for long enough"
    );
    assert_eq!(
        path_gauge_samples(&Scrape::of(&registry)),
        [row("0", "local", 0.0), row("0", "remote", 0.0)]
    );
}

#[test]
fn precreated_label_values_breaking_a_rule_are_refused_and_register_nothing() {
    let (registry, families) = families();
    families.add_common(&engine(0));
    let gauge_error = |spec: FamilySpec| {
        families
            .register::<Gauge>(&spec)
            .expect_err("the spec breaks a rule")
    };
    let keyed = || FamilySpec::gauge("fake_gauge", "gauge").label_keys(["path", "tier"]);
    for values in [&["local"][..], &["local", "hot", "extra"][..]] {
        assert_eq!(
            gauge_error(keyed().precreate(values.iter().copied())),
            FamilyError::LabelValueCount {
                name: "fake_gauge".into(),
                expected: 2,
                got: values.len()
            }
        );
    }
    // A value the size rule would send to the overflow series, as the second set.
    let long = "x".repeat(metric_handles::limits::MAX_LABEL_VALUE_LEN + 1);
    assert_eq!(
        gauge_error(
            keyed()
                .precreate(["local", "hot"])
                .precreate(["local", long.as_str()])
        ),
        FamilyError::PrecreatedLabelsTooLarge {
            name: "fake_gauge".into(),
            set: 1
        }
    );
    assert_eq!(
        gauge_error(
            keyed()
                .precreate(["local", "hot"])
                .precreate(["remote", "hot"])
                .precreate(["local", "hot"])
        ),
        FamilyError::DuplicatePrecreatedLabels {
            name: "fake_gauge".into(),
            values: vec!["local".into(), "hot".into()]
        }
    );
    assert_eq!(
        gauge_error(path_gauge().max_series(1)),
        FamilyError::TooManyPrecreatedLabels {
            name: "fake_gauge".into(),
            sets: 2,
            max_series: 1
        }
    );
    // A keyless family has one set of no values: a value is one too many.
    assert_eq!(
        gauge_error(FamilySpec::gauge("fake_gauge", "gauge").precreate(["local"])),
        FamilyError::LabelValueCount {
            name: "fake_gauge".into(),
            expected: 0,
            got: 1
        }
    );
    assert!(families.is_empty());
    assert!(Scrape::of(&registry).family("fake_gauge").is_none());
    families
        .register::<Gauge>(&path_gauge())
        .expect("the name is still free");
}

/// The extra label of [`CacheFamilies::fetches`].
#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
struct Tier {
    tier: &'static str,
}

/// A connector's families, declared once each with the derive and registered in the set.
#[derive(MetricHandles)]
#[metric_handles(labels = Engine, handles = CacheHandles)]
struct CacheFamilies {
    /// Blocks fetched from the cache
    #[metric(name = "acme:cache_fetches")]
    fetches: Family<Engine, Dynamic<Tier, Counter>>,
    /// Time to fetch one block
    ///
    /// # Computed
    ///
    /// Observes each fetch's duration.
    #[metric(name = "acme:cache_fetch", unit = "seconds", buckets = [0.01, 0.1])]
    fetch_seconds: Family<Engine, Histogram>,
    /// Share of blocks resident
    #[metric(name = "acme:cache_resident_ratio")]
    resident: Family<Engine, Gauge<f64, AtomicU64>>,
}

/// Two fetches from the host tier, one fetch time and the resident ratio, for engine 0.
fn record_engine_0(cache: &CacheFamilies) {
    let handles = cache.resolve(&engine(0));
    handles
        .fetches
        .get_or_create(&Tier { tier: "host" })
        .inc_by(2);
    handles.fetch_seconds.observe(0.05);
    handles.resident.set(0.5);
}

#[test]
fn a_derived_struct_registers_in_a_set_and_records_through_its_handles() {
    let (registry, families) = families();
    let cache = CacheFamilies::try_register_in(&families).expect("free names");
    assert_eq!(families.len(), 3);
    record_engine_0(&cache);
    assert_has_lines(
        &exposition(&registry),
        &[
            "# HELP acme:cache_fetches_total Blocks fetched from the cache.",
            r#"acme:cache_fetches_total{model_name="m",engine="0",tier="host"} 2"#,
            "# TYPE acme:cache_fetch_seconds histogram",
            r#"acme:cache_fetch_seconds_bucket{model_name="m",engine="0",le="0.01"} 0"#,
            r#"acme:cache_fetch_seconds_bucket{model_name="m",engine="0",le="0.1"} 1"#,
            r#"acme:cache_fetch_seconds_count{model_name="m",engine="0"} 1"#,
            "# TYPE acme:cache_resident_ratio gauge",
            r#"acme:cache_resident_ratio{model_name="m",engine="0"} 0.5"#,
        ],
    );
    // The same families, registered in a registry, write the same text.
    let mut alone = Registry::default();
    let direct = CacheFamilies::register(&mut alone);
    record_engine_0(&direct);
    assert_eq!(exposition(&registry), exposition(&alone));
}

#[test]
fn a_derived_struct_in_a_set_gets_the_series_of_each_present_label_set_and_leaves_with_it() {
    let (registry, families) = families();
    families.add_common(&engine(0));
    let cache = CacheFamilies::try_register_in(&families).expect("free names");
    families.add_common(&engine(1));
    let text = exposition(&registry);
    for engine in ["0", "1"] {
        for line in [
            format!(r#"acme:cache_fetch_seconds_count{{model_name="m",engine="{engine}"}} 0"#),
            format!(r#"acme:cache_resident_ratio{{model_name="m",engine="{engine}"}} 0"#),
        ] {
            assert!(text.contains(&line), "{line} in\n{text}");
        }
    }
    // A dynamic axis's series appear on their first record.
    assert!(!text.contains("acme:cache_fetches_total{"), "{text}");
    assert_eq!(cache.fetch_seconds.len(), 2);

    // The engine leaves: its series go with it, the other engine's stay.
    assert_eq!(families.remove_common(&engine(0)), 3);
    let text = exposition(&registry);
    assert!(!text.contains(r#"engine="0""#), "{text}");
    assert!(text.contains(r#"acme:cache_resident_ratio{model_name="m",engine="1"} 0"#));
}

#[test]
fn a_derived_struct_with_one_taken_name_registers_none_of_its_families_in_a_set() {
    let (registry, families) = families();
    families.reserve_names(["acme:cache_fetch_seconds"]);
    let error = CacheFamilies::try_register_in(&families)
        .err()
        .expect("a reserved name");
    assert!(
        error.to_string().contains("acme:cache_fetch_seconds"),
        "{error}"
    );
    assert_eq!(families.len(), 0);
    assert!(!exposition(&registry).contains("acme:"));
    // The families before the taken one claimed nothing: their names are still free.
    families
        .register::<Counter>(&FamilySpec::counter("acme:cache_fetches", "help"))
        .expect("name still free");
    // A second registration of the same struct clashes with the first.
    let (_registry, families) = self::families();
    CacheFamilies::try_register_in(&families).expect("free names");
    assert!(CacheFamilies::try_register_in(&families).is_err());
    assert_eq!(families.len(), 3);
}

#[test]
fn a_derived_struct_in_a_set_clashes_with_a_name_its_registry_exposes() {
    let (mut registry, families) = families();
    let _direct = CacheFamilies::try_register(&mut registry).expect("free names");
    assert!(CacheFamilies::try_register_in(&families).is_err());
    assert_eq!(families.len(), 0);
}
