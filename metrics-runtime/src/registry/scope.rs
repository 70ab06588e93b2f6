//! [`Scope`]: the prefix and const labels of one level of a registry tree, and
//! [`ScopedLedger`], the tree's ledger seen from a level.
use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use super::error::RegisteredFamily;
use super::ledger::{FamilyClaim, Ledger};
use super::RegistrationError;
use crate::sync::lock;

/// prometheus-client's registry, which stores and encodes each level of the tree.
pub(crate) type Inner = prometheus_client::registry::Registry;

/// A const label, as prometheus-client takes it.
pub(crate) type ConstLabel = (Cow<'static, str>, Cow<'static, str>);

/// The prefix and const labels of one level of the tree, as the encoder applies them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scope {
    pub(crate) prefix: Option<String>,
    pub(crate) labels: Vec<ConstLabel>,
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

    pub(crate) fn inner(&self) -> Inner {
        match &self.prefix {
            Some(prefix) => {
                Inner::with_prefix_and_labels(prefix.clone(), self.labels.clone().into_iter())
            }
            None => Inner::with_labels(self.labels.clone().into_iter()),
        }
    }

    pub(crate) fn sub(
        &self,
        prefix: Option<&str>,
        labels: impl Iterator<Item = ConstLabel>,
    ) -> Scope {
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
    pub(crate) ledger: Arc<Mutex<Ledger>>,
}

impl ScopedLedger {
    /// Claims `claims` in the tree's ledger (all or nothing).
    pub(crate) fn claim(&self, claims: Vec<FamilyClaim>) -> Result<(), RegistrationError> {
        lock(&self.ledger).claim(claims)
    }
}
