//! [`Registry`]: where a program registers its families, and the one place that knows every
//! name its exposition writes.
//!
//! prometheus-client's `Registry` accepts any name twice, and a sub-registry cannot see its
//! parent, so a second registration, a prefix that turns `kv_keys` into an existing
//! `acme_kv_keys`, or one struct registered under two const labels all produce an exposition
//! that scrapers reject whole. This registry wraps prometheus-client's (one per level of the
//! tree, carrying that level's prefix and const labels) and keeps one ledger for the whole
//! tree: every registration, whatever registers it (a derived struct, a metric registered by
//! name, a collector, a plug-in family at run time, an included prometheus-client registry),
//! claims its names there first, and a clash is refused before anything is registered.

mod build_info;
pub(crate) mod declared;
mod error;
#[cfg(feature = "metrics-facade")]
mod late;
mod ledger;
mod options;
mod part;
mod scope;
mod tree;

pub use build_info::{register_build_info, try_register_build_info};
pub(crate) use declared::check_registration;
pub(crate) use declared::declared_claims;
pub use error::{RegisteredFamily, RegistrationError};
#[cfg(feature = "metrics-facade")]
pub(crate) use late::{LateFamilies, LateFamily, LateSlot};
pub(crate) use ledger::{FamilyClaim, Ledger};
pub use options::RegisterOptions;
pub(crate) use part::unit_from_str;
#[cfg(feature = "protobuf")]
pub(crate) use part::ProtobufPart;
pub(crate) use scope::{Scope, ScopedLedger};
pub(crate) use tree::ExposedPart;
pub use tree::Registry;
