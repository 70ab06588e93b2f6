//! The [`Registry`] type: one prometheus-client registry per level of the tree, with the
//! level's prefix and const labels, and the tree's one ledger.
use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, Mutex};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{text, DescriptorEncoder};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Metric, Unit};

use super::error::{RegisteredFamily, RegistrationError};
use super::ledger::{declared_families, FamilyClaim, Ledger};
use crate::descriptor::{type_name, MetricKind};
use crate::render::once::{self, Headers};
use crate::render::{SampleHeads, TextFamily, TextFormat};
use crate::sync::lock;

/// prometheus-client's registry, which stores and encodes each level of the tree.
type Inner = prometheus_client::registry::Registry;

/// A const label, as prometheus-client takes it.
type ConstLabel = (Cow<'static, str>, Cow<'static, str>);

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

/// The prefix and const labels of one level of the tree, as the encoder applies them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scope {
    prefix: Option<String>,
    labels: Vec<ConstLabel>,
}

impl Scope {
    /// The family `name` (with `unit`) of `metric_type` at this level, registered by
    /// `registered_by`.
    pub(crate) fn family(
        &self,
        name: &str,
        unit: Option<&str>,
        metric_type: &'static str,
        registered_by: String,
    ) -> RegisteredFamily {
        RegisteredFamily {
            name: self.full_name(name, unit),
            metric_type,
            registered_by,
            const_labels: self
                .labels
                .iter()
                .map(|(k, v)| (k.clone().into_owned(), v.clone().into_owned()))
                .collect(),
        }
    }

    /// `name` as written at this level: prefix, name and unit joined by `_`.
    pub(crate) fn full_name(&self, name: &str, unit: Option<&str>) -> String {
        let mut full = String::new();
        if let Some(prefix) = &self.prefix {
            full.push_str(prefix);
            full.push('_');
        }
        full.push_str(name);
        if let Some(unit) = unit {
            full.push('_');
            full.push_str(unit);
        }
        full
    }

    fn inner(&self) -> Inner {
        match &self.prefix {
            Some(prefix) => {
                Inner::with_prefix_and_labels(prefix.clone(), self.labels.clone().into_iter())
            }
            None => Inner::with_labels(self.labels.clone().into_iter()),
        }
    }

    fn sub(&self, prefix: Option<&str>, labels: impl Iterator<Item = ConstLabel>) -> Scope {
        let prefix = match (&self.prefix, prefix) {
            (Some(outer), Some(inner)) => Some(format!("{outer}_{inner}")),
            (None, Some(inner)) => Some(inner.to_owned()),
            (outer, None) => outer.clone(),
        };
        let mut all = self.labels.clone();
        all.extend(labels);
        Scope {
            prefix,
            labels: all,
        }
    }
}

/// The ledger of a registry tree with the scope of one of its levels: what a set of families
/// registered at run time (the plug-in families) keeps to claim names after registration.
#[derive(Clone, Debug)]
pub(crate) struct ScopedLedger {
    pub(crate) scope: Scope,
    ledger: Arc<Mutex<Ledger>>,
}

impl ScopedLedger {
    /// Claims `claims` in the tree's ledger (all or nothing).
    pub(crate) fn claim(&self, claims: Vec<FamilyClaim>) -> Result<(), RegistrationError> {
        lock(&self.ledger).claim(claims)
    }
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
        let headers = once::headers(
            self.scope.inner(),
            name,
            help,
            unit.map(unit_from_str),
            kind,
        );
        match headers {
            Ok(headers) => {
                #[cfg(feature = "protobuf")]
                let protobuf = self.protobuf_part(name, help, unit, kind.metric_type(), &family);
                let unprefixed = name_with_unit(name, unit);
                let name = self.scope.full_name(name, unit);
                let heads = |format| {
                    let le = family.bucket_labels(format);
                    SampleHeads::new(format, &name, &self.const_labels, le)
                };
                let mut classic = heads(TextFormat::Prometheus);
                if kind == MetricKind::GaugeHistogram {
                    let [gcount, gsum] = ["_gcount", "_gsum"]
                        .map(|suffix| self.gauge_part_headers(&unprefixed, suffix, help));
                    classic = classic.with_gauge_histogram_parts(gcount, gsum);
                }
                let heads = [heads(TextFormat::OpenMetrics), classic];
                self.parts.push(Part::Text(Box::new(TextPart {
                    headers,
                    heads,
                    family: Box::new(family),
                    #[cfg(feature = "protobuf")]
                    protobuf,
                })))
            }
            // Rendering a descriptor cannot fail; should it, prometheus-client encodes it.
            Err(_) => self.register_claimed(name, help, unit.map(unit_from_str), family),
        }
    }

    /// How the protobuf exposition writes `family`: from its series, with its fields rendered
    /// now; or, for a family holding a member kind the protobuf writer does not know (or
    /// should rendering fail), through prometheus-client's protobuf encoder, from a registry
    /// of its own at this level's prefix and const labels (a clone of the family shares its
    /// series).
    #[cfg(feature = "protobuf")]
    fn protobuf_part<F>(
        &self,
        name: &str,
        help: &str,
        unit: Option<&str>,
        metric_type: MetricType,
        family: &F,
    ) -> ProtobufPart
    where
        F: TextFamily + Metric + Clone,
    {
        if family.writes_protobuf() {
            let heads = crate::render::protobuf::heads::family_heads(
                self.scope.inner(),
                name,
                help,
                unit.map(unit_from_str),
                metric_type,
                &self.scope.labels,
            );
            if let Ok(heads) = heads {
                return ProtobufPart::Written(heads);
            }
        }
        // Registered under its own name: the full name is the prefix's and unit's to add.
        let mut metrics = self.scope.inner();
        match unit.map(unit_from_str) {
            Some(unit) => metrics.register_with_unit(name, help, unit, family.clone()),
            None => metrics.register(name, help, family.clone()),
        }
        ProtobufPart::Encoded(metrics)
    }

    /// The classic-text header lines of the gauge family `name` + `suffix` (a gauge
    /// histogram's `_gcount` or `_gsum`) at this level; empty if they cannot be rendered,
    /// which prometheus-client's encoder never fails to do.
    fn gauge_part_headers(&self, name: &str, suffix: &str, help: &str) -> Box<str> {
        once::typed_headers(
            self.scope.inner(),
            &format!("{name}{suffix}"),
            help,
            None,
            MetricType::Gauge,
        )
        .map(|headers| headers.prometheus)
        .unwrap_or_default()
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
            f(match part {
                Part::Text(family) => ExposedPart::Text(family),
                Part::Foreign(metrics) => ExposedPart::Foreign(metrics),
            })?;
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
}

/// A family of this crate as the text encoder writes it.
#[derive(Debug)]
pub(crate) struct TextPart {
    /// Its `# HELP`/`# TYPE`/`# UNIT` lines, rendered at registration.
    pub(crate) headers: Headers,
    /// The start of its sample lines (name, const labels), rendered at registration: for
    /// OpenMetrics, then for the classic text.
    heads: [SampleHeads; 2],
    pub(crate) family: Box<dyn TextFamily>,
    /// How the protobuf exposition writes the family.
    #[cfg(feature = "protobuf")]
    pub(crate) protobuf: ProtobufPart,
}

/// How the protobuf exposition writes a family of this crate.
#[cfg(feature = "protobuf")]
#[derive(Debug)]
pub(crate) enum ProtobufPart {
    /// From its series, with the fields rendered at registration.
    Written(crate::render::protobuf::FamilyHeads),
    /// Through prometheus-client's protobuf encoder: a family holding a member kind the
    /// protobuf writer does not know, in a registry of its own.
    Encoded(Inner),
}

impl TextPart {
    /// The header lines and sample heads of `format`.
    pub(crate) fn rendered(&self, format: TextFormat) -> (&str, &SampleHeads) {
        match format {
            TextFormat::OpenMetrics => (&self.headers.openmetrics, &self.heads[0]),
            TextFormat::Prometheus => (&self.headers.prometheus, &self.heads[1]),
        }
    }
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

/// prometheus-client's `Unit` for a unit suffix.
pub(crate) fn unit_from_str(unit: &str) -> Unit {
    match unit {
        "amperes" => Unit::Amperes,
        "bytes" => Unit::Bytes,
        "celsius" => Unit::Celsius,
        "grams" => Unit::Grams,
        "joules" => Unit::Joules,
        "meters" => Unit::Meters,
        "ratios" => Unit::Ratios,
        "seconds" => Unit::Seconds,
        "volts" => Unit::Volts,
        other => Unit::Other(other.to_owned()),
    }
}

/// `name` and `unit` joined by `_`, as a family's name is written before the level's prefix.
fn name_with_unit(name: &str, unit: Option<&str>) -> String {
    match unit {
        Some(unit) => format!("{name}_{unit}"),
        None => name.to_owned(),
    }
}
