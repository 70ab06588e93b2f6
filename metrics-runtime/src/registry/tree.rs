//! The [`Registry`] type: one prometheus-client registry per level of the tree, with the
//! level's prefix and const labels, and the tree's one ledger.
use std::fmt;
use std::sync::{Arc, Mutex};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{text, DescriptorEncoder};
use prometheus_client::registry::{Metric, Unit};

use super::error::{RegisteredFamily, RegistrationError};
#[cfg(feature = "metrics-facade")]
use super::late::LateFamilies;
use super::ledger::{declared_families, FamilyClaim, Ledger};
use super::part::{unit_from_str, Level, TextPart};
use super::scope::{ConstLabel, Inner, Scope, ScopedLedger};
use crate::descriptor::{type_name, MetricKind};
use crate::render::once;
use crate::render::TextFamily;
use crate::sync::lock;

/// The registry every family of this crate registers into: a derived struct's `register`,
/// [`HttpMetrics::register`](crate::http::HttpMetrics::register), the
/// [plug-in families](crate::family), and any prometheus-client metric, collector or whole
/// registry beside them.
///
/// Its methods are prometheus-client's (`register`, `register_with_unit`,
/// `register_collector`, `sub_registry_with_prefix`, `sub_registry_with_label(s)`), so switching
/// is one line. What it adds: before anything is registered, every name the new family would
/// write (its name with prefix and unit, and each sample name of its type: `_total`,
/// `_bucket`, `_count`, `_sum`, `_created`, `_info`) is checked against every family of the
/// whole tree, sub-registries and const labels included. A clash is a [`RegistrationError`]
/// naming both families; the `register...` methods panic with it (at start-up, where a
/// broken exposition would otherwise be found by the first scrape), the `try_register...`
/// methods return it.
///
/// The name each family is exposed under (prefix, name and unit joined by `_`) must match
/// `[a-zA-Z_:][a-zA-Z0-9_:]*`, and a state set's, which is also the label key of its states,
/// `[a-zA-Z_][a-zA-Z0-9_]*`: anything else (`""`, `a b`, `a.b`, a quote, a non-ASCII letter
/// such as `é`) is [`RegistrationError::InvalidName`]. The text formats write names unquoted
/// (this crate does not write Prometheus 3's quoted UTF-8 names), so such a name would make
/// the parsers reject the whole scrape.
///
/// Encode it with [`ExpositionFormat::encode`](crate::ExpositionFormat::encode).
///
/// ```
/// use metric_handles::prometheus_client::metrics::gauge::Gauge;
/// use metric_handles::{ExpositionFormat, Registry};
///
/// let mut registry = Registry::default();
/// registry.register("acme_kv_keys", "Keys stored", Gauge::<i64>::default());
/// let acme = registry.sub_registry_with_prefix("acme");
/// // `kv_keys` under the prefix `acme` is the name taken above.
/// let err = acme
///     .try_register("kv_keys", "Keys stored", Gauge::<i64>::default())
///     .unwrap_err();
/// assert!(err.to_string().contains("`acme_kv_keys`"));
/// assert_eq!(
///     ExpositionFormat::PrometheusText.encode(&registry).unwrap().matches("# TYPE").count(),
///     1
/// );
/// ```
pub struct Registry {
    /// The families registered at this level, in registration order: this crate's, written by
    /// its text encoder, and runs of other metrics in prometheus-client registries carrying
    /// this level's prefix and const labels.
    parts: Vec<Part>,
    /// The collectors registered at this level, encoded after its families (as
    /// prometheus-client orders them).
    collectors: Inner,
    /// Whether a collector was registered at this level (an empty `collectors` is skipped).
    has_collectors: bool,
    /// This level's const labels as a sample line carries them (`k="v",...`), rendered once
    /// for the sample heads of the families registered here.
    const_labels: Box<str>,
    /// Whole prometheus-client registries included with [`Registry::include`].
    included: Vec<Inner>,
    subs: Vec<Registry>,
    scope: Scope,
    ledger: Arc<Mutex<Ledger>>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry::from_scope(Scope::default())
    }
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty registry whose every name starts with `prefix` and `_`.
    ///
    /// The prefix is checked with each name registered under it: one that makes an invalid
    /// name (a `.`, a space, a non-ASCII letter; a `:` for a state set) makes every such
    /// registration fail with [`RegistrationError::InvalidName`].
    pub fn with_prefix(prefix: impl Into<String>) -> Self {
        Registry::from_scope(Scope {
            prefix: Some(prefix.into()),
            labels: Vec::new(),
        })
    }

    /// An empty registry whose every series carries the const labels `labels`.
    pub fn with_labels(labels: impl Iterator<Item = ConstLabel>) -> Self {
        Registry::from_scope(Scope {
            prefix: None,
            labels: labels.collect(),
        })
    }

    /// An empty registry with a prefix and const labels.
    pub fn with_prefix_and_labels(
        prefix: impl Into<String>,
        labels: impl Iterator<Item = ConstLabel>,
    ) -> Self {
        Registry::from_scope(Scope {
            prefix: Some(prefix.into()),
            labels: labels.collect(),
        })
    }

    fn from_scope(scope: Scope) -> Self {
        Registry::level(scope, Arc::new(Mutex::new(Ledger::default())))
    }

    /// An empty level of the tree whose ledger is `ledger`.
    fn level(scope: Scope, ledger: Arc<Mutex<Ledger>>) -> Self {
        Registry {
            parts: Vec::new(),
            collectors: scope.inner(),
            has_collectors: false,
            // The label encoder of strings never fails.
            const_labels: once::const_labels(Inner::with_labels(scope.labels.clone().into_iter()))
                .unwrap_or_default(),
            included: Vec::new(),
            subs: Vec::new(),
            ledger,
            scope,
        }
    }

    /// `name` with `unit` as a family registered here is exposed: prefix, name and unit
    /// joined by `_`.
    pub(crate) fn exposed_name(&self, name: &str, unit: Option<&str>) -> String {
        self.scope.full_name(name, unit)
    }

    /// The prefix every name registered here starts with (joined by `_`), if any.
    pub fn prefix(&self) -> Option<&str> {
        self.scope.prefix.as_deref()
    }

    /// The const labels every series registered here carries, outermost first.
    pub fn const_labels(&self) -> impl Iterator<Item = (&str, &str)> {
        self.scope
            .labels
            .iter()
            .map(|(k, v)| (k.as_ref(), v.as_ref()))
    }

    /// Registers a prometheus-client metric (or any [`Metric`]) as `name`, as
    /// prometheus-client's `Registry::register` does (its help gets a final `.`).
    ///
    /// # Panics
    ///
    /// If a name the metric would write is taken, or is not a valid metric name (see
    /// [`Registry`]); [`try_register`](Self::try_register) returns the error instead.
    #[track_caller]
    pub fn register(
        &mut self,
        name: impl Into<String>,
        help: impl Into<String>,
        metric: impl Metric,
    ) {
        unwrap_registration(self.try_register(name, help, metric));
    }

    /// [`register`](Self::register), returning a clash or an invalid name
    /// ([`RegistrationError::InvalidName`]) instead of panicking; nothing is registered on
    /// error.
    pub fn try_register(
        &mut self,
        name: impl Into<String>,
        help: impl Into<String>,
        metric: impl Metric,
    ) -> Result<(), RegistrationError> {
        self.try_register_with_optional_unit(name.into(), help.into(), None, metric)
    }

    /// Registers a metric as `name` with `unit` appended (`name_unit`), as
    /// prometheus-client's `Registry::register_with_unit` does. The whole name must be valid:
    /// a `Unit::Other` with a space or a `.` in it is refused as a bad name is.
    ///
    /// # Panics
    ///
    /// As [`register`](Self::register).
    #[track_caller]
    pub fn register_with_unit(
        &mut self,
        name: impl Into<String>,
        help: impl Into<String>,
        unit: Unit,
        metric: impl Metric,
    ) {
        unwrap_registration(self.try_register_with_unit(name, help, unit, metric));
    }

    /// [`register_with_unit`](Self::register_with_unit), returning a clash or an invalid name
    /// instead of panicking.
    pub fn try_register_with_unit(
        &mut self,
        name: impl Into<String>,
        help: impl Into<String>,
        unit: Unit,
        metric: impl Metric,
    ) -> Result<(), RegistrationError> {
        self.try_register_with_optional_unit(name.into(), help.into(), Some(unit), metric)
    }

    fn try_register_with_optional_unit(
        &mut self,
        name: String,
        help: String,
        unit: Option<Unit>,
        metric: impl Metric,
    ) -> Result<(), RegistrationError> {
        let family = self.scope.family(
            &name,
            unit.as_ref().map(Unit::as_str),
            type_name(metric.metric_type()),
            "`Registry::register`".to_owned(),
        );
        self.claim(vec![FamilyClaim {
            family,
            label_keys: Vec::new(),
        }])?;
        self.register_claimed(name, help, unit, metric);
        Ok(())
    }

    /// Registers `metric`, whose names are claimed, to be encoded by prometheus-client's
    /// encoders after the families registered before it.
    pub(crate) fn register_claimed(
        &mut self,
        name: impl Into<String>,
        help: impl Into<String>,
        unit: Option<Unit>,
        metric: impl Metric,
    ) {
        let metrics = match self.parts.last_mut() {
            Some(Part::Foreign(metrics)) => metrics,
            _ => {
                self.parts.push(Part::Foreign(self.scope.inner()));
                match self.parts.last_mut() {
                    Some(Part::Foreign(metrics)) => metrics,
                    _ => unreachable!("a run of foreign metrics was just pushed"),
                }
            }
        };
        match unit {
            Some(unit) => metrics.register_with_unit(name, help, unit, metric),
            None => metrics.register(name, help, metric),
        }
    }

    /// Registers `family`, a family of this crate whose names are claimed, to be written by
    /// the text encoder: its header lines are rendered now, once per text format.
    pub(crate) fn register_claimed_text<F>(
        &mut self,
        name: &str,
        help: &str,
        unit: Option<&str>,
        kind: MetricKind,
        family: F,
    ) where
        F: TextFamily + Metric + Clone,
    {
        let rendered = self
            .rendering_level()
            .text_part(name, help, unit, kind, family);
        match rendered {
            Ok(part) => self.parts.push(Part::Text(Box::new(part))),
            // Rendering a descriptor cannot fail; should it, prometheus-client encodes it.
            Err(family) => self.register_claimed(name, help, unit.map(unit_from_str), family),
        }
    }

    /// This level's prefix and const labels, as a family registered here is rendered with.
    fn rendering_level(&self) -> Level<'_> {
        Level {
            scope: &self.scope,
            const_labels: &self.const_labels,
        }
    }

    /// A place in this level's list of families where families created later, while the
    /// registry is shared with a scraper, are written (see [`LateFamilies`]).
    #[cfg(feature = "metrics-facade")]
    pub(crate) fn late_families(&mut self) -> Arc<LateFamilies> {
        let late = Arc::new(LateFamilies::new(
            self.const_labels.clone(),
            self.scoped_ledger(),
        ));
        self.parts.push(Part::Late(Arc::clone(&late)));
        late
    }

    /// Registers a collector, whose families are encoded at each scrape.
    ///
    /// The names it writes are read from one encode of it now and claimed; a collector that
    /// later writes other families is not checked again.
    ///
    /// # Panics
    ///
    /// As [`register`](Self::register).
    #[track_caller]
    pub fn register_collector(&mut self, collector: Box<dyn Collector>) {
        unwrap_registration(self.try_register_collector(collector));
    }

    /// [`register_collector`](Self::register_collector), returning a clash instead of
    /// panicking.
    pub fn try_register_collector(
        &mut self,
        collector: Box<dyn Collector>,
    ) -> Result<(), RegistrationError> {
        let collector: Arc<dyn Collector> = Arc::from(collector);
        let mut probe = self.scope.inner();
        probe.register_collector(Box::new(Shared(Arc::clone(&collector))));
        self.claim_exposition(&probe, "a collector")?;
        self.claimed_collectors()
            .register_collector(Box::new(Shared(collector)));
        Ok(())
    }

    /// Exposes a whole prometheus-client registry (one another library registered its
    /// metrics into, say) as part of this one, after its families: its names are claimed
    /// from its exposition now, with its own prefix and const labels as it encodes them.
    ///
    /// # Panics
    ///
    /// As [`register`](Self::register).
    #[track_caller]
    pub fn include(&mut self, registry: prometheus_client::registry::Registry) {
        unwrap_registration(self.try_include(registry));
    }

    /// [`include`](Self::include), returning a clash instead of panicking.
    pub fn try_include(
        &mut self,
        registry: prometheus_client::registry::Registry,
    ) -> Result<(), RegistrationError> {
        self.claim_exposition(&registry, "an included prometheus-client registry")?;
        self.included.push(registry);
        Ok(())
    }

    /// A sub-registry whose names start with this one's prefix, `_`, and `prefix`.
    ///
    /// The prefix is checked with each name registered under it, as for
    /// [`with_prefix`](Self::with_prefix). It also enters the label key of a state set's
    /// states, which is the family's exposed name (`acme_gw_phase{acme_gw_phase="serving"}`).
    pub fn sub_registry_with_prefix(&mut self, prefix: impl AsRef<str>) -> &mut Registry {
        let scope = self.scope.sub(Some(prefix.as_ref()), std::iter::empty());
        self.push_sub(scope)
    }

    /// A sub-registry whose series carry the const label `label` after this one's.
    pub fn sub_registry_with_label(&mut self, label: ConstLabel) -> &mut Registry {
        self.sub_registry_with_labels(std::iter::once(label))
    }

    /// A sub-registry whose series carry the const labels `labels` after this one's.
    pub fn sub_registry_with_labels(
        &mut self,
        labels: impl Iterator<Item = ConstLabel>,
    ) -> &mut Registry {
        let scope = self.scope.sub(None, labels);
        self.push_sub(scope)
    }

    fn push_sub(&mut self, scope: Scope) -> &mut Registry {
        self.subs
            .push(Registry::level(scope, Arc::clone(&self.ledger)));
        self.subs
            .last_mut()
            .expect("a sub-registry was just pushed")
    }

    /// Claims the families `exposition` of `registry` declares, as registered by `by`.
    fn claim_exposition(&self, registry: &Inner, by: &str) -> Result<(), RegistrationError> {
        let mut exposition = String::new();
        // A collector that fails to encode fails every scrape too; what it wrote before
        // failing is what can clash.
        let _ = text::encode_registry(&mut exposition, registry);
        let claims = declared_families(&exposition)
            .map(|(name, metric_type)| FamilyClaim {
                family: RegisteredFamily {
                    name: name.to_owned(),
                    metric_type,
                    registered_by: by.to_owned(),
                    const_labels: Vec::new(),
                },
                label_keys: Vec::new(),
            })
            .collect();
        self.claim(claims)
    }

    /// Claims `claims` in the tree's ledger, all or nothing.
    pub(crate) fn claim(&self, claims: Vec<FamilyClaim>) -> Result<(), RegistrationError> {
        lock(&self.ledger).claim(claims)
    }

    /// Checks `claims` against the tree's ledger without recording them.
    pub(crate) fn check(&self, claims: &[FamilyClaim]) -> Result<(), RegistrationError> {
        lock(&self.ledger).check(claims)
    }

    /// This level's prefix and const labels.
    pub(crate) fn scope(&self) -> &Scope {
        &self.scope
    }

    /// The tree's ledger, seen from this level.
    pub(crate) fn scoped_ledger(&self) -> ScopedLedger {
        ScopedLedger {
            scope: self.scope.clone(),
            ledger: Arc::clone(&self.ledger),
        }
    }

    /// Where collectors whose names are already claimed are registered at this level.
    pub(crate) fn claimed_collectors(&mut self) -> &mut Inner {
        self.has_collectors = true;
        &mut self.collectors
    }

    /// Everything the tree encodes, in exposition order: this level's families (this crate's
    /// and runs of other metrics, in registration order), its collectors, the included
    /// registries, then each sub-registry in turn.
    pub(crate) fn for_each_part<E>(
        &self,
        f: &mut impl FnMut(ExposedPart<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        for part in &self.parts {
            match part {
                Part::Text(family) => f(ExposedPart::Text(family))?,
                Part::Foreign(metrics) => f(ExposedPart::Foreign(metrics))?,
                #[cfg(feature = "metrics-facade")]
                Part::Late(late) => late.for_each(|family| f(ExposedPart::Text(family)))?,
            }
        }
        if self.has_collectors {
            f(ExposedPart::Foreign(&self.collectors))?;
        }
        for included in &self.included {
            f(ExposedPart::Foreign(included))?;
        }
        for sub in &self.subs {
            sub.for_each_part(f)?;
        }
        Ok(())
    }
}

/// The panic of the `register...` methods: the error's message, naming both families.
#[track_caller]
fn unwrap_registration(result: Result<(), RegistrationError>) {
    if let Err(error) = result {
        panic!("{error}");
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("prefix", &self.scope.prefix)
            .field("const_labels", &self.scope.labels)
            .field("families", &self.parts)
            .field("collectors", &self.collectors)
            .field("included", &self.included)
            .field("sub_registries", &self.subs)
            .finish()
    }
}

/// One entry of a level's ordered list of families.
#[derive(Debug)]
enum Part {
    /// A family of this crate, written by the text encoder (boxed: its rendered headers and
    /// line starts, and with `protobuf` its protobuf fields, dwarf a run of foreign metrics).
    Text(Box<TextPart>),
    /// Metrics registered one after another from outside this crate's families, encoded by
    /// prometheus-client's encoders.
    Foreign(Inner),
    /// Families of this crate created while the registry is shared with a scraper, written
    /// as [`Text`](Self::Text) ones are, in the order they were created.
    #[cfg(feature = "metrics-facade")]
    Late(Arc<LateFamilies>),
}

/// What [`Registry::for_each_part`] hands the encoder.
pub(crate) enum ExposedPart<'a> {
    /// A family of this crate.
    Text(&'a TextPart),
    /// A prometheus-client registry, encoded by its encoders.
    Foreign(&'a Inner),
}

/// A collector registered twice: once in a probe registry to read its names, once for good.
#[derive(Debug)]
struct Shared(Arc<dyn Collector>);

impl Collector for Shared {
    fn encode(&self, encoder: DescriptorEncoder) -> Result<(), fmt::Error> {
        self.0.encode(encoder)
    }
}

#[cfg(test)]
mod tests;
