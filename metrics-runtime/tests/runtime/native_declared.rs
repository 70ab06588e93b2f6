//! Native buckets declared rather than constructed: a descriptor's `native` builder, a
//! `RegisterOptions` override of a derived struct's histogram, and a plug-in `FamilySpec`.

use metric_handles::descriptor::{MetricDescriptor, MetricKind};
use metric_handles::family::{FamilyError, FamilySpec, RuntimeFamilies};
use metric_handles::histogram::NativeConfig;
use metric_handles::{Family, Histogram, MetricHandles, NoLabels, RegisterOptions, Registry};

#[derive(Debug, MetricHandles)]
pub struct Timed {
    /// Request latency
    #[metric(name = "app:latency", buckets = [0.1, 1.0])]
    pub latency: Family<NoLabels, Histogram>,
}

#[test]
fn an_override_gives_a_derived_histogram_native_buckets_beside_its_declared_bounds() {
    let native = NativeConfig::from_factor(1.1).max_buckets(20);
    let mut registry = Registry::default();
    let options = RegisterOptions::new().native("app:latency", Some(native));
    let timed = Timed::try_register_with(&mut registry, &options).expect("registers");
    let latency = timed.resolve(&NoLabels).latency;
    latency.observe(0.5);
    assert_eq!(latency.native_config(), Some(native));
    assert_eq!(latency.bounds(), &[0.1, 1.0]);
    assert_eq!(latency.snapshot().native().map(|n| n.count()), Some(1));
    // Without the override, the declaration: classic only.
    let plain = Timed::register(&mut Registry::default());
    assert_eq!(plain.resolve(&NoLabels).latency.native_config(), None);
}

#[test]
fn a_native_override_naming_no_metric_is_refused() {
    let options = RegisterOptions::new().native("app:latence", Some(NativeConfig::default()));
    let err = Timed::try_register_with(&mut Registry::default(), &options).expect_err("refused");
    assert!(
        err.to_string().contains("`RegisterOptions::native`"),
        "{err}"
    );
}

#[test]
fn a_descriptor_declares_native_buckets_with_a_const_builder() {
    const LATENCY: MetricDescriptor = MetricDescriptor::new(
        "job:latency",
        "latency",
        MetricKind::Histogram,
        "Histogram",
        "Latency",
    )
    .native(NativeConfig::with_schema(2).max_buckets(10));
    assert_eq!(
        LATENCY.native.map(|n| (n.schema(), n.bucket_limit())),
        Some((2, 10))
    );
    // A plug-in family from it has native buckets only.
    let spec = FamilySpec::from_descriptor(&LATENCY);
    assert_eq!(spec.native_config(), LATENCY.native);
    let mut registry = Registry::default();
    let families = RuntimeFamilies::<NoLabels>::register_in(&mut registry);
    let family = families
        .register::<Histogram>(&spec)
        .expect("native only is complete");
    let series = family
        .get_or_create(&NoLabels, &[])
        .expect("no extra labels");
    series.observe(3.0);
    let snapshot = series.snapshot();
    assert_eq!(snapshot.bounds(), &[] as &[f64]);
    assert_eq!(
        snapshot.native().map(|n| (n.schema(), n.count())),
        Some((2, 1))
    );
}

#[test]
fn native_buckets_on_a_counter_family_are_refused() {
    let (mut registry, spec) = (
        Registry::default(),
        FamilySpec::counter("jobs", "Jobs").native(NativeConfig::default()),
    );
    let families = RuntimeFamilies::<NoLabels>::register_in(&mut registry);
    assert!(matches!(
        families.register::<metric_handles::Counter>(&spec),
        Err(FamilyError::UnexpectedBuckets { .. })
    ));
}
