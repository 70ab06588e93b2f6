//! Families: a metric's series by label set.
//!
//! * [`Family`]: the field type of a `#[derive(MetricHandles)]` struct, one member per common
//!   label set, registered from a [`MetricDescriptor`](crate::descriptor::MetricDescriptor) (name, kind, help, unit, label keys).
//! * Families only known at run time: [`FamilySpec`] describes one, [`RuntimeFamilies`]
//!   registers it and [`RuntimeFamily`] hands out the same cached handles.
//!
//! # Families described at run time
//!
//! A `#[derive(MetricHandles)]` struct fixes its families at compile time. Some families are
//! only known when the program runs: a KV connector loaded by name describes its own metrics
//! when it starts, a configuration file lists business counters. [`RuntimeFamilies`] takes a
//! [`FamilySpec`] (name, kind, help, unit, buckets, extra label keys), validates it with the
//! derive's rules ([`FamilyError`], never a panic) and registers it into the same
//! prometheus-client `Registry`. [`RuntimeFamily::get_or_create`] returns the same handle types the
//! derive hands out (`Counter`, `Gauge`, this crate's `Histogram`): resolve once per label
//! values, keep the handle, and every record is an atomic operation, as with a derived field.
//!
//! ```
//! use metric_handles::family::{FamilySpec, RuntimeFamilies};
//! use metric_handles::Registry;
//! use metric_handles::{Counter, Histogram, LabelSet};
//!
//! #[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
//! struct EngineLabels {
//!     model_name: String,
//!     engine: u32,
//! }
//!
//! let mut registry = Registry::default();
//! let plugins = RuntimeFamilies::<EngineLabels>::register_in(&mut registry);
//!
//! // Later, when a connector describes its metrics:
//! let fetches = plugins
//!     .register::<Counter>(
//!         &FamilySpec::counter("acme:cache_fetches", "Blocks fetched from the ACME cache")
//!             .label_keys(["tier"]),
//!     )
//!     .expect("a valid spec");
//! let bad = plugins.register::<Histogram>(&FamilySpec::histogram(
//!     "acme:fetch_seconds",
//!     "Fetch time.",
//!     vec![0.1, 1.0],
//! ));
//! assert!(bad.is_err(), "help text must not end in '.'");
//!
//! // Resolve once per label values (the slow path), then record with atomics only.
//! let engine0 = EngineLabels { model_name: "m".into(), engine: 0 };
//! let host_fetches = fetches.get_or_create(&engine0, &["host"]).expect("one value per extra key");
//! host_fetches.inc_by(3);
//!
//! let text = metric_handles::ExpositionFormat::PrometheusText.encode(&registry).unwrap();
//! assert!(text.contains(r#"acme:cache_fetches_total{model_name="m",engine="0",tier="host"} 3"#));
//! ```
//!
//! Families known as the program is written are declared with `#[derive(MetricHandles)]`, as any
//! other struct of metrics, and registered in the set with the struct's generated
//! `try_register_in`: their names are claimed together, each gets the series of every common
//! label set present, and a family breaking a rule fails compilation (the derive's checks).

pub(crate) mod declared;
mod error;
pub(crate) mod register;
mod runtime;
mod runtime_set;
mod spec;
mod validate;

pub use error::FamilyError;
pub use runtime::{RuntimeFamily, RuntimeMember};
pub use runtime_set::RuntimeFamilies;
pub use series::Family;
pub use spec::FamilySpec;
mod series;
