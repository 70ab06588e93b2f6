//! [`LateFamilies`]: families of this crate created while the registry is already shared with
//! the `/metrics` handler, written by the same text and protobuf writers as the families
//! registered before it was.
//!
//! A family registered through `&mut Registry` has its header lines and sample heads rendered
//! into the level's list of parts. A recorder that learns its families as the program runs
//! (the `metrics` facade's, which meets a name at its first `counter!`) holds the registry
//! only through a shared reference by then. It takes a place in the list once, with
//! [`Registry::late_families`](super::Registry::late_families), and adds families there: each
//! claims its names in the tree's ledger, as any registration does, and is rendered with the
//! level's prefix and const labels.

use std::fmt;
use std::sync::RwLock;

use prometheus_client::registry::Metric;

use super::error::RegistrationError;
use super::ledger::FamilyClaim;
use super::part::{Level, TextPart};
use super::scope::ScopedLedger;
use crate::descriptor::{type_name, MetricKind};
use crate::render::TextFamily;
use crate::sync;

/// A place in one level's list of families where families are added through `&self`.
///
/// A scrape reads the list under a read lock while it writes these families; adding one (the
/// first record of a new name, a rare event) waits for a scrape under way. Recording never
/// touches the list.
pub(crate) struct LateFamilies {
    /// The level's const labels as a sample line carries them.
    const_labels: Box<str>,
    /// The tree's ledger, with the level's prefix and const labels.
    ledger: ScopedLedger,
    parts: RwLock<Vec<TextPart>>,
}

/// A family added to [`LateFamilies`], as its header lines describe it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LateFamily<'a> {
    /// Its name, which the exposition writes after the level's prefix and before the unit.
    pub(crate) name: &'a str,
    pub(crate) unit: Option<&'a str>,
    pub(crate) kind: MetricKind,
    /// Its help text (the exposition adds a final `.`, as prometheus-client does).
    pub(crate) help: &'a str,
}

/// Where [`LateFamilies::add`] put a family, to re-render its header lines later.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LateSlot(usize);

impl LateFamilies {
    pub(crate) fn new(const_labels: Box<str>, ledger: ScopedLedger) -> Self {
        LateFamilies {
            const_labels,
            ledger,
            parts: RwLock::new(Vec::new()),
        }
    }

    fn level(&self) -> Level<'_> {
        Level {
            scope: &self.ledger.scope,
            const_labels: &self.const_labels,
        }
    }

    /// Claims every name the family `about` describes writes (for `registered_by`, as an
    /// error names it) and adds `family` under it, written after the families added before
    /// it. Nothing is added on error.
    pub(crate) fn add<F>(
        &self,
        about: &LateFamily<'_>,
        family: F,
        registered_by: &str,
    ) -> Result<LateSlot, RegistrationError>
    where
        F: TextFamily + Metric + Clone,
    {
        let claim = FamilyClaim {
            family: self.ledger.scope.family(
                about.name,
                about.unit,
                type_name(about.kind.metric_type()),
                registered_by.to_owned(),
            ),
            label_keys: Vec::new(),
        };
        // The claim checks the name first: rendering a valid one cannot fail.
        self.ledger.claim(vec![claim.clone()])?;
        let part = self
            .render(about, family)
            .map_err(|_| RegistrationError::InvalidName {
                family: Box::new(claim.family),
            })?;
        let mut parts = sync::write(&self.parts);
        parts.push(part);
        Ok(LateSlot(parts.len() - 1))
    }

    /// Renders the header lines of the family at `slot` again, as `about` now describes it
    /// (its help text, and its unit if it is the end of its name; the name it is written
    /// under cannot change). `family` is a clone of the one added there: it shares its series.
    pub(crate) fn describe<F>(&self, slot: LateSlot, about: &LateFamily<'_>, family: F)
    where
        F: TextFamily + Metric + Clone,
    {
        if let Ok(part) = self.render(about, family) {
            if let Some(existing) = sync::write(&self.parts).get_mut(slot.0) {
                *existing = part;
            }
        }
    }

    /// `family` as the encoders write it.
    fn render<F>(&self, about: &LateFamily<'_>, family: F) -> Result<TextPart, F>
    where
        F: TextFamily + Metric + Clone,
    {
        self.level()
            .text_part(about.name, about.help, about.unit, about.kind, family)
    }

    /// Calls `f` for every family, in the order they were added.
    pub(crate) fn for_each<E>(&self, f: impl FnMut(&TextPart) -> Result<(), E>) -> Result<(), E> {
        sync::read(&self.parts).iter().try_for_each(f)
    }
}

impl fmt::Debug for LateFamilies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LateFamilies")
            .field("families", &sync::read(&self.parts).len())
            .finish_non_exhaustive()
    }
}
