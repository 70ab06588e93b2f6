//! A `#[derive(MetricHandles)]` struct registered in a [`RuntimeFamilies`] set (its generated
//! `try_register_in`): the struct's names claimed together, then each field's [`Family`]
//! added to the set, where it gets its common label sets' series and leaves with them like
//! the set's other families.

use std::fmt;
use std::sync::Arc;

use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::registry::Unit;

use super::register::series_spec;
use super::runtime::ErasedFamily;
use super::runtime_set::RuntimeFamilies;
use super::Family;
use crate::descriptor::MetricDescriptor;
use crate::labels::LabelSet;
use crate::member::FamilyMember;
use crate::registry::declared::shown_names;
use crate::registry::{unit_from_str, RegisterOptions, RegistrationError};
use crate::sanitize::exposed_help;

/// The families of one derived struct whose names are claimed in a [`RuntimeFamilies`] set:
/// what its generated `try_register_in` builds the struct's fields from.
#[doc(hidden)]
#[derive(Debug)]
pub struct DeclaredFamilies<'a, L> {
    families: &'a RuntimeFamilies<L>,
}

// Without `L: LabelSet`, as the set's claims: the generated code calls this directly, and the
// label set's bound is reported once, by the field checks.
impl<'a, L> DeclaredFamilies<'a, L> {
    /// Claims, as the struct `owner`'s, every name the families `descriptors` declare write
    /// (with their aliases shown by default) in `families`' registry, unless one is taken
    /// there or reserved in the set: then nothing is claimed.
    pub fn claim(
        families: &'a RuntimeFamilies<L>,
        owner: &str,
        descriptors: &[MetricDescriptor],
    ) -> Result<Self, RegistrationError> {
        families.claim_declared(owner, descriptors)?;
        Ok(DeclaredFamilies { families })
    }
}

impl<L: LabelSet> DeclaredFamilies<'_, L> {
    /// Creates the family `descriptor` declares (one of those claimed), with `options`'
    /// overrides, and adds it to the set under each name it shows.
    pub fn add<M: FamilyMember>(
        &self,
        descriptor: &MetricDescriptor,
        options: &RegisterOptions,
    ) -> Family<L, M> {
        let exposed_name = self.families.exposed_name(descriptor.name, descriptor.unit);
        let family = Family::new(series_spec(descriptor, options, &exposed_name));
        for name in shown_names(descriptor, Some(options)) {
            self.families.add_declared(Arc::new(DeclaredFamily {
                name: name.to_owned(),
                help: exposed_help(descriptor.help),
                unit: descriptor.unit.map(unit_from_str),
                family: family.clone(),
            }));
        }
        family
    }
}

/// One name of a derived struct's family, as the set exports it.
struct DeclaredFamily<L, M> {
    name: String,
    help: String,
    unit: Option<Unit>,
    family: Family<L, M>,
}

impl<L: LabelSet, M: FamilyMember> ErasedFamily<L> for DeclaredFamily<L, M> {
    fn encode(&self, encoder: &mut DescriptorEncoder<'_>) -> Result<(), fmt::Error> {
        let metric_encoder = encoder.encode_descriptor(
            &self.name,
            &self.help,
            self.unit.as_ref(),
            self.family.metric_type(),
        )?;
        self.family.encode(metric_encoder)
    }

    fn remove_common(&self, common: &L) -> usize {
        usize::from(self.family.remove(common))
    }

    fn create_zero_series(&self, common: &L) {
        // What the struct's `resolve` creates for `common`, within the family's limit.
        self.family.pin(common);
    }
}

impl<L, M> fmt::Debug for DeclaredFamily<L, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeclaredFamily")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}
