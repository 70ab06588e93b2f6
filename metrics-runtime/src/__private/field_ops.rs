//! The one place where the derive's generated code meets the user's types: [`field_ops`],
//! called once per metric field (in an associated constant), checks the struct's label set,
//! the field's `Family<L, M>` and its member, and returns everything the generated items do
//! with the field as constants and function pointers.
//!
//! Why one call: every requirement on the user's types is a bound of this one function, so a
//! type that misses one is reported once, at the user's token (each type argument of the call
//! carries the span of the token it stands for), instead of at every generated use. A label
//! set whose `#[derive(LabelSet)]` impl is incomplete (a missing `Hash`) is reported by that
//! impl only: here it still implements `LabelSet`, and nothing else asks for `Hash`. A struct
//! label set that is not one at all fails the same bound with the same message at the same
//! span in every field, which the compiler reports once.

use std::fmt;

use crate::descriptor::{MetricDescriptor, MetricKind};
use crate::family::declared::DeclaredFamilies;
use crate::family::register::register_family;
use crate::family::Family;
use crate::labels::LabelSet;
use crate::member::{AxisShape, FamilyMember};
use crate::registry::RegisterOptions;
use crate::registry::Registry;

/// What the generated code needs of one metric field whose struct label set is `S`, whose
/// type is `F` (`Family<L, M>`) and whose member is `M`.
#[derive(Debug)]
pub struct FieldOps<S, F, M> {
    /// The keys of the struct's label set.
    pub common_keys: &'static [&'static str],
    /// The member's kind.
    pub kind: MetricKind,
    /// The member's label axis.
    pub axis: AxisShape,
    /// Creates and registers the field's family.
    pub register: fn(&mut Registry, &MetricDescriptor, &RegisterOptions) -> F,
    /// Creates the field's family and adds it to a set of run-time families.
    pub register_in: fn(&DeclaredFamilies<'_, S>, &MetricDescriptor, &RegisterOptions) -> F,
    /// The member of one label set, created on first sight.
    pub resolve: fn(&F, &S) -> M,
    /// Removes one label set's series; whether they existed.
    pub remove: fn(&F, &S) -> bool,
    /// A handle to the same series.
    pub clone_member: fn(&M) -> M,
    /// The member's `Debug` output.
    pub debug_member: fn(&M, &mut fmt::Formatter<'_>) -> fmt::Result,
}

/// The operations of a metric field, or the one error that says which of the user's types is
/// wrong: `S` is the struct's label set, `F` the field's type, `L` and `M` its type arguments.
pub const fn field_ops<S, F, L, M>() -> FieldOps<S, F, M>
where
    S: LabelSet,
    F: FieldFamily<L, M>,
    L: FieldLabels<S>,
    M: FamilyMember,
{
    FieldOps {
        common_keys: S::KEYS,
        kind: M::KIND,
        axis: M::AXIS,
        register: register::<S, F, L, M>,
        register_in: register_in::<S, F, L, M>,
        resolve: resolve::<S, F, L, M>,
        remove: remove::<S, F, L, M>,
        clone_member: M::clone,
        debug_member: <M as fmt::Debug>::fmt,
    }
}

fn register<S, F, L, M>(
    registry: &mut Registry,
    descriptor: &MetricDescriptor,
    options: &RegisterOptions,
) -> F
where
    S: LabelSet,
    F: FieldFamily<L, M>,
    L: FieldLabels<S>,
    M: FamilyMember,
{
    F::from_family(L::from_struct_family(register_family::<S, M>(
        registry, descriptor, options,
    )))
}

fn register_in<S, F, L, M>(
    declared: &DeclaredFamilies<'_, S>,
    descriptor: &MetricDescriptor,
    options: &RegisterOptions,
) -> F
where
    S: LabelSet,
    F: FieldFamily<L, M>,
    L: FieldLabels<S>,
    M: FamilyMember,
{
    F::from_family(L::from_struct_family(
        declared.add::<M>(descriptor, options),
    ))
}

fn resolve<S, F, L, M>(family: &F, labels: &S) -> M
where
    S: LabelSet,
    F: FieldFamily<L, M>,
    L: FieldLabels<S>,
    M: FamilyMember,
{
    L::struct_family(family.family()).get_or_create(labels)
}

fn remove<S, F, L, M>(family: &F, labels: &S) -> bool
where
    S: LabelSet,
    F: FieldFamily<L, M>,
    L: FieldLabels<S>,
    M: FamilyMember,
{
    L::struct_family(family.family()).remove(labels)
}

/// Implemented only for this crate's [`Family`]: a field whose type is another `Family` (most
/// likely prometheus-client's, imported by mistake) is reported at the field's type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `metric_handles::Family`",
    label = "not `metric_handles::Family`",
    note = "a `#[derive(MetricHandles)]` field is `metric_handles::Family<Labels, Member>`, which resolves a label set once and records through cached handles; prometheus-client's `Family` hashes the labels and takes a lock on every record: import `metric_handles::Family` instead"
)]
pub trait FieldFamily<L, M>: Sized {
    /// The field's value, from the family `register` made.
    fn from_family(family: Family<L, M>) -> Self;
    /// The family the field holds.
    fn family(&self) -> &Family<L, M>;
}

impl<L, M> FieldFamily<L, M> for Family<L, M> {
    fn from_family(family: Family<L, M>) -> Self {
        family
    }

    fn family(&self) -> &Family<L, M> {
        self
    }
}

/// Implemented for every [`Family`]: the error stubs check with it a field type the compiler
/// rejects by itself (a `Family` with one type argument), in case it does not.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `metric_handles::Family<Labels, Member>`",
    label = "not `metric_handles::Family<Labels, Member>`"
)]
pub trait AnyFamily {}

impl<L, M> AnyFamily for Family<L, M> {}

/// Compiles only for a [`Family`].
pub const fn assert_family<F: AnyFamily>() {}

/// Implemented only for `S` itself: a field whose `Family<L, _>` uses another label set than
/// the struct's is reported once, at that field's `L`.
#[diagnostic::on_unimplemented(
    message = "this field's `Family` uses label set `{Self}`, but the struct's label set is `{S}`",
    label = "expected `{S}` here",
    note = "every field of a `#[derive(MetricHandles)]` struct uses the struct's label set: `#[metric_handles(labels = ...)]`, or without it the label set of the first metric field"
)]
pub trait FieldLabels<S>: Sized {
    /// The field's family, as a family of the struct's label set.
    fn struct_family<M>(family: &Family<Self, M>) -> &Family<S, M>;
    /// A family of the struct's label set, as the field's.
    fn from_struct_family<M>(family: Family<S, M>) -> Family<Self, M>;
}

impl<S> FieldLabels<S> for S {
    fn struct_family<M>(family: &Family<S, M>) -> &Family<S, M> {
        family
    }

    fn from_struct_family<M>(family: Family<S, M>) -> Family<S, M> {
        family
    }
}

/// A member printed through [`FieldOps::debug_member`], for the handles struct's `Debug`.
pub struct DebugMember<'a, M>(
    pub &'a M,
    pub fn(&M, &mut fmt::Formatter<'_>) -> fmt::Result,
);

impl<M> fmt::Debug for DebugMember<'_, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (self.1)(self.0, f)
    }
}
