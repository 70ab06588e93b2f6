//! The derives behind `metric-handles`: `#[derive(MetricHandles)]`, `#[derive(LabelSet)]` and
//! `#[derive(LabelEnum)]`. Depend on `metric-handles`, which re-exports them; every attribute is
//! documented, with the error each mistake gives, in its module
//! [`metric_handles::attributes`](https://docs.rs/metric-handles/latest/metric_handles/attributes/index.html).
//!
//! Layout (after thiserror's impl crate and serde_derive): `symbol.rs` names every attribute
//! key, `ctxt.rs` collects errors, `attr.rs`/`metric_attr.rs`/`label_attr.rs` parse
//! attributes with their spans, `ast.rs` (with the doc comments) and `ty.rs` read the input,
//! `valid/` checks it (`field.rs` each field, `container.rs` the fields together), `expand/`
//! generates code (`field.rs` each field's share of every item, `mod.rs` the items around
//! them), and `fallback.rs` emits stubs when there are errors, so the user only sees the
//! errors the derive reported; `signature.rs` holds what both outputs must agree on. `label_set.rs` and `label_enum.rs` take the same steps (parse, check,
//! generate or stub) for the two small derives, and share `label_impl.rs`.
// The other lint levels are the workspace's (`[workspace.lints]` in the root `Cargo.toml`).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use proc_macro::TokenStream;

use label_impl::LabelDerive;

mod ast;
mod attr;
mod buckets;
mod case;
mod ctxt;
mod duration;
mod expand;
mod fallback;
mod label_attr;
mod label_enum;
mod label_impl;
mod label_set;
mod manifest;
mod metric_attr;
mod names;
mod native;
mod prometheus_derive;
mod respan;
mod signature;
mod suggest;
mod symbol;
mod ty;
mod valid;

// The fuzzer and the expansion snapshots call the derives' functions, so they are unit tests
// (a proc-macro crate exports only its macros); their inputs and snapshots are in
// `tests/expand/`.
#[cfg(test)]
mod unit_tests;

/// Generates cached-handle registration and resolution for a struct of metric families.
///
/// The attributes `#[metric_handles(...)]` (on the struct) and `#[metric(...)]` (on each field)
/// are described, with the error each mistake gives, in the module
/// [`metric_handles::attributes`](https://docs.rs/metric-handles/latest/metric_handles/attributes/index.html); the
/// [guide](https://docs.rs/metric-handles/latest/metric_handles/guide/index.html) walks through
/// a whole program.
#[proc_macro_derive(MetricHandles, attributes(metric_handles, metric, metrics))]
pub fn derive_metric_handles(input: TokenStream) -> TokenStream {
    expand::derive(input.into()).into()
}

/// Implements `metric_handles::LabelSet` and prometheus-client's `EncodeLabelSet` for a
/// struct whose fields are the label keys, in order. Attributes: `#[label(crate = path)]` on
/// the struct, `#[label(rename = "key")]` on a field.
#[proc_macro_derive(LabelSet, attributes(label))]
pub fn derive_label_set(input: TokenStream) -> TokenStream {
    label_set::LabelSet::derive(input.into()).into()
}

/// prometheus-client's `EncodeLabelSet` derive as `metric_handles::prometheus_client::encoding`
/// re-exports it: the same impl (each named field a label keyed by its name,
/// `#[prometheus(flatten)]` inlining a field's own label set), naming prometheus-client through
/// `metric_handles`, so a crate without its own prometheus-client dependency can use it. For the
/// label set of a metrics struct, use `#[derive(LabelSet)]`, which implements this too.
#[proc_macro_derive(EncodeLabelSet, attributes(prometheus))]
pub fn derive_encode_label_set(input: TokenStream) -> TokenStream {
    prometheus_derive::encode_label_set(input.into()).into()
}

/// prometheus-client's `EncodeLabelValue` derive as `metric_handles::prometheus_client::encoding`
/// re-exports it: a fieldless enum's variant names are its values, named through
/// `metric_handles`. For the axis of a metric, use `#[derive(LabelEnum)]`, which implements this
/// too.
#[proc_macro_derive(EncodeLabelValue)]
pub fn derive_encode_label_value(input: TokenStream) -> TokenStream {
    prometheus_derive::encode_label_value(input.into()).into()
}

/// Implements `metric_handles::LabelEnum` and prometheus-client's `EncodeLabelValue` for a
/// fieldless enum. Attributes: `#[label(rename_all = "snake_case", crate = path)]` on the
/// enum, `#[label(rename = "value")]` on a variant.
#[proc_macro_derive(LabelEnum, attributes(label))]
pub fn derive_label_enum(input: TokenStream) -> TokenStream {
    label_enum::LabelEnum::derive(input.into()).into()
}
