//! [`Families`]: the recorder's slow path. A name met for the first time becomes a family in
//! the registry (its names claimed in the registry's ledger, as any registration's); a label
//! set met for the first time becomes a series of it.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::cache::{CachedKey, Evictions, Guard};
use super::handles::FacadeGauge;
use super::labels::{metric_name, FacadeLabels};
use super::options::FacadeBuilder;
use crate::descriptor::MetricKind;
use crate::family::Family;
use crate::histogram::Histogram;
use crate::member::{FamilyMember, SeriesSpec};
use crate::registry::{LateFamilies, LateFamily, LateSlot, Registry};
use crate::render::TextFamily;
use crate::sanitize::help_line;
use crate::sync;
use crate::{ByLabel, Counter, LabelEnum, MetricHandles, NoLabels};

/// What a registration error names as the family's origin.
const REGISTERED_BY: &str = "the `metrics` facade (`counter!`, `gauge!`, `histogram!`)";

/// Why the recorder refused a name: every record through it is dropped, and counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum Refusal {
    /// The name, or a sample name it would write, is another family's: one the program
    /// registered (a derived struct's, say), or the facade's under another kind.
    NameTaken,
    /// The recorder has [`FacadeBuilder::max_families`] names already.
    TooManyFamilies,
}

/// The recorder's own figures, in the same registry.
#[derive(Debug, MetricHandles)]
#[metric_handles(handles = FacadeStatsHandles, labels = NoLabels)]
struct FacadeStats {
    /// Registrations through the metrics facade that were refused, by reason (each record through a refused name is dropped)
    #[metric(name = "metric_handles_facade_refused_registrations", label = "reason")]
    refused: Family<NoLabels, ByLabel<Refusal, Counter>>,
}

/// A family the facade created, of one of the three kinds it records.
pub(crate) type FacadeFamily<M> = Family<FacadeLabels, M>;

impl<M: FamilyMember> Evictions for FacadeFamily<M> {
    fn evictions(&self) -> u64 {
        Family::evictions(self)
    }
}

/// The series a lookup found, and whether its handle may be cached.
pub(crate) struct Found<M> {
    pub(crate) member: M,
    /// What the handle cache keeps of the key; `None` for the overflow series, which is never
    /// cached.
    pub(crate) cache: Option<ToCache<M>>,
    /// The series limit of the family, if this lookup created it.
    pub(crate) created_with_limit: Option<usize>,
}

/// What the handle cache keeps beside a handle.
pub(crate) struct ToCache<M> {
    /// How it recognises the key.
    pub(crate) key: CachedKey,
    /// For a family with idle expiry: how it sees the series evicted.
    pub(crate) guard: Option<Guard<FacadeFamily<M>>>,
}

/// One name the facade met.
enum Named {
    Counter(FacadeFamily<Counter>, LateSlot),
    Gauge(FacadeFamily<FacadeGauge>, LateSlot),
    Histogram(FacadeFamily<Histogram>, LateSlot),
    /// Refused when it was met: records through it are dropped.
    Refused,
}

/// The names the recorder met, and what it does with a new one.
pub(crate) struct Families {
    options: FacadeBuilder,
    late: Arc<LateFamilies>,
    /// The registry level's const label keys: a facade label of the same key is renamed.
    const_keys: Vec<String>,
    state: Mutex<State>,
    stats: FacadeStatsHandles,
    refused_records: AtomicU64,
    /// Whether the family limit was announced on standard error (once).
    limit_announced: AtomicBool,
}

#[derive(Default)]
struct State {
    /// By the name the family is exposed under.
    named: HashMap<String, Named>,
    /// The names refused, with why: each is announced once.
    refused: BTreeMap<String, Refusal>,
    /// What `describe_counter!` and the like said, by exposed name: a family created later
    /// takes its help and unit from here.
    described: HashMap<String, Described>,
    families: usize,
}

impl Families {
    pub(crate) fn new(options: FacadeBuilder, registry: &mut Registry) -> Self {
        let stats = FacadeStats::try_register(registry)
            .map(|stats| stats.resolve(&NoLabels))
            // A second recorder on one registry counts its refusals in handles nobody
            // exports rather than fail: the first recorder's are exported.
            .unwrap_or_else(|_| FacadeStats::register(&mut Registry::default()).resolve(&NoLabels));
        Families {
            options,
            const_keys: registry
                .const_labels()
                .map(|(key, _)| key.to_owned())
                .collect(),
            late: registry.late_families(),
            state: Mutex::new(State::default()),
            stats,
            refused_records: AtomicU64::new(0),
            limit_announced: AtomicBool::new(false),
        }
    }

    /// Describes the family `name` (as the program spells it) of `kind`: its help text, and
    /// its unit if the name ends with it (the unit never renames a family).
    pub(crate) fn describe(
        &self,
        name: &str,
        kind: MetricKind,
        unit: Option<metrics::Unit>,
        help: &str,
    ) {
        let exposed = exposed_name(name, kind);
        let described = Described {
            help: help_line(help.trim()).into_owned(),
            unit: unit.and_then(prometheus_unit),
        };
        let mut state = sync::lock(&self.state);
        let about = described.about(&exposed, kind);
        match state.named.get(&exposed) {
            Some(Named::Counter(family, slot)) if kind == MetricKind::Counter => {
                self.late.describe(*slot, &about, family.clone());
            }
            Some(Named::Gauge(family, slot)) if kind == MetricKind::Gauge => {
                self.late.describe(*slot, &about, family.clone());
            }
            Some(Named::Histogram(family, slot)) if kind == MetricKind::Histogram => {
                self.late.describe(*slot, &about, family.clone());
            }
            _ => {}
        }
        state.described.insert(exposed, described);
    }

    pub(crate) fn counter(&self, key: &metrics::Key) -> Option<Found<Counter>> {
        let family = self.family(
            key.name(),
            MetricKind::Counter,
            |named| match named {
                Named::Counter(family, _) => Some(family.clone()),
                _ => None,
            },
            Named::Counter,
        )?;
        Some(self.series(family, key))
    }

    pub(crate) fn gauge(&self, key: &metrics::Key) -> Option<Found<FacadeGauge>> {
        let family = self.family(
            key.name(),
            MetricKind::Gauge,
            |named| match named {
                Named::Gauge(family, _) => Some(family.clone()),
                _ => None,
            },
            Named::Gauge,
        )?;
        Some(self.series(family, key))
    }

    pub(crate) fn histogram(&self, key: &metrics::Key) -> Option<Found<Histogram>> {
        let family = self.family(
            key.name(),
            MetricKind::Histogram,
            |named| match named {
                Named::Histogram(family, _) => Some(family.clone()),
                _ => None,
            },
            Named::Histogram,
        )?;
        Some(self.series(family, key))
    }

    /// How many records went to refused names (each dropped).
    pub(crate) fn refused_records(&self) -> u64 {
        self.refused_records.load(Ordering::Relaxed)
    }

    /// The names refused, with why, sorted by name.
    pub(crate) fn refused_names(&self) -> Vec<(String, Refusal)> {
        let state = sync::lock(&self.state);
        state
            .refused
            .iter()
            .map(|(name, why)| (name.clone(), *why))
            .collect()
    }

    /// How many names have a family.
    pub(crate) fn len(&self) -> usize {
        sync::lock(&self.state).families
    }

    /// The series of `key`'s labels in `family`.
    fn series<M: FamilyMember>(
        &self,
        (family, created): (FacadeFamily<M>, bool),
        key: &metrics::Key,
    ) -> Found<M> {
        let (labels, own) = FacadeLabels::of(key, &self.const_keys);
        let evictions = family.evictions();
        let (member, overflow) = family.get_or_create_or_overflow(&labels);
        let cache = (!overflow).then(|| ToCache {
            // A new series keeps `labels` as its key: the cache shares it.
            key: if own {
                CachedKey::Own {
                    name: key.name_shared(),
                    order: labels.order_of(key.labels().as_slice()),
                    labels,
                }
            } else {
                CachedKey::Copy(Box::new(key.clone()))
            },
            guard: family
                .expires_idle()
                .then(|| Guard::new(family.clone(), evictions)),
        });
        Found {
            member,
            cache,
            created_with_limit: created.then(|| self.options.max_series_of(key.name())),
        }
    }

    /// The family `name` of `kind` (`existing` reads it out of what the name holds): found,
    /// or created now (`named` wraps it; `true`), or `None` if the name is refused.
    fn family<M>(
        &self,
        name: &str,
        kind: MetricKind,
        existing: impl Fn(&Named) -> Option<FacadeFamily<M>>,
        named: impl FnOnce(FacadeFamily<M>, LateSlot) -> Named,
    ) -> Option<(FacadeFamily<M>, bool)>
    where
        M: FamilyMember,
        FacadeFamily<M>: TextFamily,
    {
        let exposed = exposed_name(name, kind);
        let mut state = sync::lock(&self.state);
        if let Some(found) = state.named.get(&exposed) {
            if let Some(family) = existing(found) {
                return Some((family, false));
            }
            let other = match found {
                Named::Counter(..) => Some(MetricKind::Counter),
                Named::Gauge(..) => Some(MetricKind::Gauge),
                Named::Histogram(..) => Some(MetricKind::Histogram),
                Named::Refused => None,
            };
            let first = state
                .refused
                .insert(exposed.clone(), Refusal::NameTaken)
                .is_none();
            drop(state);
            let announce = match other {
                Some(other) => format!(
                    "the facade records `{exposed}` as a {} already, and this is a {}",
                    other.as_str(),
                    kind.as_str()
                ),
                None => String::new(),
            };
            self.refuse(
                Refusal::NameTaken,
                (first && other.is_some()).then_some((&exposed, &announce)),
            );
            return None;
        }
        if state.families >= self.options.max_families {
            drop(state);
            // Not kept: a program making names from data would grow the map.
            let first = !self.limit_announced.swap(true, Ordering::Relaxed);
            let announce = format!(
                "the recorder has {} names already (FacadeBuilder::max_families); every new \
                 name is dropped",
                self.options.max_families
            );
            self.refuse(
                Refusal::TooManyFamilies,
                first.then_some((&*exposed, &announce)),
            );
            return None;
        }
        let family = FacadeFamily::<M>::expiring(self.spec(name, &exposed, kind));
        let undescribed = Described::default();
        let described = state.described.get(&exposed).unwrap_or(&undescribed);
        let added = self.late.add(
            &described.about(&exposed, kind),
            family.clone(),
            REGISTERED_BY,
        );
        match added {
            Ok(slot) => {
                state.families += 1;
                state.named.insert(exposed, named(family.clone(), slot));
                Some((family, true))
            }
            Err(error) => {
                state.named.insert(exposed.clone(), Named::Refused);
                state.refused.insert(exposed.clone(), Refusal::NameTaken);
                drop(state);
                self.refuse(Refusal::NameTaken, Some((&exposed, &error.to_string())));
                None
            }
        }
    }

    /// What a family of `kind` the program calls `name` is built with.
    fn spec(&self, name: &str, exposed: &str, kind: MetricKind) -> SeriesSpec {
        let spec = SeriesSpec::new()
            .with_family_name(exposed)
            .with_max_series(self.options.max_series_of(name))
            .with_idle_timeout(self.options.idle_timeout_of(kind));
        if kind == MetricKind::Histogram {
            spec.with_buckets(self.options.buckets_of(name).to_vec())
                .with_native(self.options.native_of(name))
        } else {
            spec
        }
    }

    /// Counts a refused record; the first time a name is refused (`first`), says why on
    /// standard error.
    fn refuse(&self, why: Refusal, first: Option<(&str, &str)>) {
        self.refused_records.fetch_add(1, Ordering::Relaxed);
        self.stats.refused.get(why).inc();
        if let Some((name, reason)) = first {
            eprintln!("metric_handles::metrics_facade: records of `{name}` are dropped: {reason}");
        }
    }
}

/// What the program described of a family.
#[derive(Default)]
struct Described {
    /// One line; empty for none.
    help: String,
    /// The unit as the exposition names it, if it has a name there.
    unit: Option<&'static str>,
}

impl Described {
    /// The family exposed as `exposed`, as described: with the unit when the name ends with
    /// it (`read_bytes` and the unit bytes: `read` in bytes).
    fn about<'a>(&'a self, exposed: &'a str, kind: MetricKind) -> LateFamily<'a> {
        let stem = self.unit.and_then(|unit| {
            exposed
                .strip_suffix(unit)
                .and_then(|stem| stem.strip_suffix('_'))
                .filter(|stem| !stem.is_empty())
        });
        LateFamily {
            name: stem.unwrap_or(exposed),
            unit: stem.and(self.unit),
            kind,
            help: &self.help,
        }
    }
}

/// The exposition's name of a facade unit: the base units Prometheus names (seconds, bytes);
/// the others (`count`, `milliseconds`, `percent`, ...) have none.
fn prometheus_unit(unit: metrics::Unit) -> Option<&'static str> {
    match unit {
        metrics::Unit::Seconds => Some("seconds"),
        metrics::Unit::Bytes => Some("bytes"),
        _ => None,
    }
}

/// The name a family the program calls `name` is exposed under: a valid metric name, without
/// a counter's `_total` (the exposition adds it to the sample: `requests_total` is written
/// `requests_total` either way).
fn exposed_name(name: &str, kind: MetricKind) -> String {
    let mut exposed = metric_name(name);
    if kind == MetricKind::Counter {
        if let Some(stripped) = exposed.strip_suffix("_total") {
            if !stripped.is_empty() {
                exposed.truncate(stripped.len());
            }
        }
    }
    exposed
}
