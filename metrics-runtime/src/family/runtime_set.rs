//! [`RuntimeFamilies`]: the set of families registered at run time, exported by the registry.

use std::fmt;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::DescriptorEncoder;

use super::error::FamilyError;
use super::runtime::{ErasedFamily, RuntimeFamily, RuntimeMember};
use super::spec::FamilySpec;
use super::validate::validate;
use crate::descriptor::MetricDescriptor;
use crate::labels::LabelSet;
use crate::member::SeriesSpec;
use crate::registry::RegisterOptions;
use crate::registry::{
    declared_claims, unit_from_str, FamilyClaim, Ledger, RegistrationError, Registry, ScopedLedger,
};
use crate::sync;

/// What registered a plug-in family, as a [`RegistrationError`] names it.
const REGISTERED_BY: &str = "a plug-in family (`RuntimeFamilies::register`)";

/// Families described at run time, each with the common label set `L` first and its own extra
/// label keys after.
///
/// [`register_in`](Self::register_in) adds the set to a [`Registry`] once, as a collector;
/// [`register`](Self::register) then adds families at any time, through `&self`, even after
/// the registry is shared with the `/metrics` handler. Each family claims its names in that
/// registry's ledger, so it clashes with nothing the registry tree exposes. Families are
/// listed in the exposition after the registry's own metrics, in registration order.
///
/// Registering and scraping take a lock on the list of families; recording never does: it
/// goes through the handles [`RuntimeFamily::get_or_create`] returns.
///
/// Cloning is cheap; clones share the set.
pub struct RuntimeFamilies<L> {
    shared: Arc<Shared<L>>,
}

struct Shared<L> {
    state: RwLock<State<L>>,
    /// The ledger of the registry the set is registered in, where each family claims its
    /// names.
    ledger: ScopedLedger,
}

struct State<L> {
    families: Vec<Arc<dyn ErasedFamily<L>>>,
    /// Names no family of this set may write, though nothing registers them (yet).
    reserved: Ledger,
    /// The common label sets declared present ([`RuntimeFamilies::add_common`]), and the
    /// families registered through [`RuntimeFamilies::register`], which get a zero series for
    /// each of them.
    zero_series: ZeroSeries<L>,
}

struct ZeroSeries<L> {
    present: Vec<L>,
    families: Vec<Arc<dyn ErasedFamily<L>>>,
}

impl<L: LabelSet> RuntimeFamilies<L> {
    /// An empty set, registered in `registry`.
    pub fn register_in(registry: &mut Registry) -> Self {
        let families = RuntimeFamilies {
            shared: Arc::new(Shared {
                state: RwLock::new(State {
                    families: Vec::new(),
                    reserved: Ledger::default(),
                    zero_series: ZeroSeries {
                        present: Vec::new(),
                        families: Vec::new(),
                    },
                }),
                ledger: registry.scoped_ledger(),
            }),
        };
        // The collector writes only the families registered through the set, each of which
        // claims its names as it registers.
        registry
            .claimed_collectors()
            .register_collector(Box::new(Exported(Arc::clone(&families.shared))));
        families
    }

    /// Marks `names` as family names no family of this set may take (names another part of
    /// the program registers later, say): registering a family of one of these names fails
    /// with [`FamilyError::NameTaken`]. Names the registry already exposes need no reserving.
    pub fn reserve_names<S: Into<String>>(&self, names: impl IntoIterator<Item = S>) {
        let reservations = names.into_iter().map(|name| {
            self.shared.ledger.scope.family(
                &name.into(),
                None,
                "unknown",
                "`RuntimeFamilies::reserve_names`".to_owned(),
            )
        });
        self.write().reserved.record_existing(reservations);
    }

    /// Reserves every name a `#[derive(MetricHandles)]` struct registered elsewhere (in the
    /// registry, or later) writes, given its `DESCRIPTORS`: each family's name with its unit
    /// and every alias, and the sample names its type adds, as the struct `owner` registers
    /// them. A family of this set taking one then fails with [`FamilyError::NameTaken`]
    /// naming `owner`.
    pub fn reserve_declared(&self, owner: &str, descriptors: &[MetricDescriptor]) {
        let reservations = declared_claims(&self.shared.ledger.scope, owner, descriptors, None);
        self.write()
            .reserved
            .record_existing(reservations.into_iter().map(|claim| claim.family));
    }

    /// Validates `spec` and registers it as a family of `M` handles (`Counter`, `Gauge` or
    /// `Histogram`, any value type; `M`'s kind must be the spec's).
    ///
    /// Nothing is registered on error. The rules are the derive's: a valid Prometheus name,
    /// no `_total` on a counter, a non-empty help text not ending in `.`, a valid unit,
    /// buckets on histograms only (non-empty, finite, strictly increasing), extra label keys
    /// valid, not reserved and not repeating each other or a common key, and a name not
    /// already registered or reserved in this set.
    ///
    /// A family without extra label keys, and every label set a spec declares with
    /// [`FamilySpec::precreate`], gets a series at zero for each common label set declared
    /// present ([`add_common`](Self::add_common); each present engine, in
    /// `VllmMetrics::plugin_families`), so a `rate()` works from the first scrape; those
    /// series are exempt from idle expiry and leave with their common label set
    /// ([`remove_common`](Self::remove_common)). The label sets a spec declares are checked
    /// here too: one value per extra key, within the size limits, none twice, no more than
    /// the series limit.
    pub fn register<M: RuntimeMember>(
        &self,
        spec: &FamilySpec,
    ) -> Result<RuntimeFamily<L, M>, FamilyError> {
        validate(spec, L::KEYS)?;
        if spec.kind != M::KIND {
            return Err(FamilyError::KindMismatch {
                name: spec.name.clone(),
                declared: spec.kind,
                requested: M::KIND,
            });
        }
        let family = build::<L, M>(spec);
        let mut state = self.write();
        self.claim_unreserved(&state, vec![self.claim_for(spec)])
            .map_err(|error| FamilyError::NameTaken(Box::new(error)))?;
        state.add_with_zero_series(Arc::new(family.clone()));
        Ok(family)
    }

    /// Exports `family`, a derived struct's family whose names
    /// [`claim_declared`](Self::claim_declared) claimed, with the zero series of every common
    /// label set present, now and later.
    pub(crate) fn add_declared(&self, family: Arc<dyn ErasedFamily<L>>) {
        self.write().add_with_zero_series(family);
    }

    /// `name` (with `unit`) as this set's registry level writes it.
    pub(crate) fn exposed_name(&self, name: &str, unit: Option<&str>) -> String {
        self.shared.ledger.scope.full_name(name, unit)
    }

    /// Declares the common label set `common` present (an engine that joined): every family
    /// registered through [`register`](Self::register) gets its series at zero now for the
    /// labels it knows (no extra label keys, or the sets its spec declares with
    /// [`FamilySpec::precreate`]), and so does every family registered later, until
    /// [`remove_common`](Self::remove_common) removes `common` and those series with it. A
    /// series that exists already is kept as it is. Takes the list's lock, then each family's.
    ///
    /// In `VllmMetrics::plugin_families` each engine's join calls it (and its leave removes
    /// it): call it only on a set you registered yourself, where you decide what is present.
    pub fn add_common(&self, common: &L) {
        let mut state = self.write();
        let zero_series = &mut state.zero_series;
        if !zero_series.present.contains(common) {
            zero_series.present.push(common.clone());
        }
        for family in &zero_series.families {
            family.create_zero_series(common);
        }
    }

    /// The names a family of `spec` writes in this set's registry.
    fn claim_for(&self, spec: &FamilySpec) -> FamilyClaim {
        FamilyClaim {
            family: self.shared.ledger.scope.family(
                &spec.name,
                spec.unit.as_deref(),
                spec.kind.as_str(),
                REGISTERED_BY.to_owned(),
            ),
            label_keys: L::KEYS
                .iter()
                .map(|&key| key.to_owned())
                .chain(spec.extra_label_keys.iter().cloned())
                .collect(),
        }
    }

    /// Removes every series of the common label set `common` from every family (an engine
    /// that left, say); returns how many series were removed. `common` is no longer present:
    /// families registered from now on get no zero series for it.
    pub fn remove_common(&self, common: &L) -> usize {
        let mut state = self.write();
        state
            .zero_series
            .present
            .retain(|present| present != common);
        state
            .families
            .iter()
            .map(|family| family.remove_common(common))
            .sum()
    }

    /// How many families are registered.
    pub fn len(&self) -> usize {
        self.read().families.len()
    }

    /// Whether no family is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

// Without `L: LabelSet`: a derived struct's generated `try_register_in` claims its names
// through these, and its label set's bound is reported once, by the field checks.
impl<L> RuntimeFamilies<L> {
    /// Claims `claims` in the registry's ledger unless one of them is reserved in this set or
    /// taken there: all of them, or none.
    fn claim_unreserved(
        &self,
        state: &State<L>,
        claims: Vec<FamilyClaim>,
    ) -> Result<(), RegistrationError> {
        state
            .reserved
            .check(&claims)
            .and_then(|()| self.shared.ledger.claim(claims))
    }

    /// Claims, as the struct `owner`'s, the names of the derived families `descriptors`
    /// declare (each shown name with its unit, type and sample names), unless one is reserved
    /// in this set or taken in the registry: all of them, or none.
    pub(crate) fn claim_declared(
        &self,
        owner: &str,
        descriptors: &[MetricDescriptor],
    ) -> Result<(), RegistrationError> {
        let claims = declared_claims(
            &self.shared.ledger.scope,
            owner,
            descriptors,
            Some(&RegisterOptions::new()),
        );
        self.claim_unreserved(&self.read(), claims)
    }

    fn read(&self) -> RwLockReadGuard<'_, State<L>> {
        sync::read(&self.shared.state)
    }

    fn write(&self) -> RwLockWriteGuard<'_, State<L>> {
        sync::write(&self.shared.state)
    }
}

impl<L: LabelSet> State<L> {
    /// Exports `family`, and gives it a series at zero for every common label set present,
    /// now and later.
    fn add_with_zero_series(&mut self, erased: Arc<dyn ErasedFamily<L>>) {
        for common in &self.zero_series.present {
            erased.create_zero_series(common);
        }
        self.zero_series.families.push(Arc::clone(&erased));
        self.families.push(erased);
    }
}

impl<L> Clone for RuntimeFamilies<L> {
    fn clone(&self) -> Self {
        RuntimeFamilies {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<L> fmt::Debug for RuntimeFamilies<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.shared, f)
    }
}

impl<L> fmt::Debug for Shared<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = sync::read(&self.state);
        f.debug_struct("RuntimeFamilies")
            .field("families", &state.families)
            .finish()
    }
}

/// The collector the registry holds: encodes every family at scrape time.
struct Exported<L>(Arc<Shared<L>>);

impl<L> fmt::Debug for Exported<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl<L: LabelSet> Collector for Exported<L> {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), fmt::Error> {
        // Clone the list out so that registering never waits for a slow scrape writer.
        let families: Vec<Arc<dyn ErasedFamily<L>>> = sync::read(&self.0.state).families.clone();
        for family in &families {
            family.encode(&mut encoder)?;
        }
        Ok(())
    }
}

/// The family `spec` describes (already validated).
fn build<L: LabelSet, M: RuntimeMember>(spec: &FamilySpec) -> RuntimeFamily<L, M> {
    RuntimeFamily::new(
        spec.name.clone(),
        &spec.help,
        spec.unit.as_deref().map(unit_from_str),
        spec.extra_label_keys.clone(),
        &spec.precreated,
        SeriesSpec::new()
            .with_buckets(spec.buckets.clone().unwrap_or_default())
            .with_native(spec.native)
            .with_max_series(spec.max_series.max(1))
            .with_idle_timeout(spec.idle_timeout),
    )
}
