//! Checks that need the field's type or the other fields, and the resulting plan that
//! `expand.rs` turns into code: `field.rs` checks each field on its own (key by key),
//! `container.rs` checks the fields against each other and against the struct. A plan exists
//! only for fields without errors.

mod container;
mod field;

use proc_macro2::TokenStream;
use syn::LitStr;

use crate::ast::{Field, Input};
use crate::buckets::BucketSpec;
use crate::ctxt::Ctxt;
use crate::ty::FamilyType;

/// Everything `expand.rs` needs for one metric field, checked.
pub struct MetricPlan<'a> {
    pub field: &'a Field<'a>,
    pub family: &'a FamilyType,
    pub name: LitStr,
    pub help: String,
    /// The doc comment's `# Computed` section.
    pub computed: Option<String>,
    pub unit: Option<String>,
    pub buckets: Option<BucketSpec>,
    /// `native(...)`: native buckets beside or instead of `buckets`.
    pub native: Option<crate::native::NativeSpec>,
    /// `label = ...`: one key per fixed axis (empty without one).
    pub axis_keys: Vec<LitStr>,
    pub positions: Option<TokenStream>,
    pub max_series: Option<TokenStream>,
    pub max_label_sets: Option<TokenStream>,
    /// `idle_timeout = "..."`, in milliseconds.
    pub idle_timeout: Option<u64>,
    pub aliases: Vec<(LitStr, LitStr)>,
}
/// Checks every metric field; returns the plans of the fields that passed.
pub fn check<'a>(cx: &Ctxt, input: &'a Input<'a>) -> Vec<MetricPlan<'a>> {
    let plans: Vec<MetricPlan<'a>> = input
        .fields
        .iter()
        .filter(|field| !field.is_skipped())
        .filter_map(|field| field::check(cx, field).ok())
        .collect();
    container::check_unique_names(cx, &plans);
    container::check_sample_collisions(cx, &plans);
    container::check_label_set_limits(cx, input, &plans);
    plans
}

/// What every check of a field returns: the checked value, or [`Invalid`] once the mistake is
/// reported. The checks across fields only report (every plan stays, so each finds all clashes).
type Checked<T> = Result<T, Invalid>;

/// A key whose value cannot be used: the mistake was reported, here or while parsing, and the
/// field gets no plan (so the struct-wide checks do not repeat it).
pub struct Invalid;
