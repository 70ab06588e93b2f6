//! The typed view of a `#[derive(MetricHandles)]` input: the struct, its container attribute,
//! and per field its `#[metric]` attribute, its doc comment and its `Family<L, M>` type.

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::{
    Attribute, Data, DeriveInput, Expr, ExprLit, Fields, Generics, Ident, Lit, Meta, Type,
    Visibility,
};

use crate::attr::strip;
use crate::ctxt::Ctxt;
use crate::metric_attr::{self, ContainerAttrs, FieldAttrs};
use crate::symbol::{CFG, DOC, EXPECT, LINT_LEVELS};
use crate::ty::{self, FamilyType, Unreadable};

pub struct Input<'a> {
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    pub generics: &'a Generics,
    pub attrs: &'a [Attribute],
    pub container: ContainerAttrs,
    pub fields: Vec<Field<'a>>,
}

pub struct Field<'a> {
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    /// The field's type, as written.
    pub ty: &'a Type,
    pub attrs: &'a [Attribute],
    pub metric: FieldAttrs,
    /// `Family<L, M>` as read; `None` for skipped fields and unreadable types.
    pub family: Option<FamilyType>,
    /// Without `family`: what the error stubs declare for the field.
    pub unreadable: Option<Unreadable>,
}

impl Field<'_> {
    /// The field's `#[cfg(...)]` attributes, copied to everything generated for it.
    pub fn cfgs(&self) -> impl Iterator<Item = &Attribute> {
        self.attrs.iter().filter(|a| a.path() == CFG)
    }

    /// Whether the field is `#[metric(skip)]`.
    pub fn is_skipped(&self) -> bool {
        self.metric.skip.is_some()
    }

    /// The field's doc comment as written, copied to its handle.
    pub fn doc_attrs(&self) -> impl Iterator<Item = &Attribute> {
        doc_attrs(self.attrs)
    }

    /// The field's lint levels (`#[allow(dead_code)]`, ...), copied to its handle.
    pub fn lint_attrs(&self) -> TokenStream {
        lint_attrs(self.attrs)
    }

    /// The field's doc comment up to its first heading: the help text when `help = ...` is
    /// absent.
    pub fn doc(&self) -> Option<Doc<'_>> {
        Doc::read(self.attrs, None)
    }

    /// The field's `# Computed` doc section: how the value is computed, kept in its
    /// descriptor (for a catalogue) and left out of the help text.
    pub fn computed(&self) -> Option<Doc<'_>> {
        Doc::read(self.attrs, Some(COMPUTED))
    }

    /// The doc line holding the `# Computed` heading, if the doc comment has one.
    pub fn computed_heading(&self) -> Option<&Attribute> {
        doc_lits(self.attrs)
            .find(|(_, lit)| {
                lit.lines()
                    .any(|line| heading_title(line.trim()) == Some(COMPUTED))
            })
            .map(|(attr, _)| attr)
    }
}

/// The heading of the doc section that says how a metric's value is computed.
pub const COMPUTED: &str = "Computed";

/// One section of a doc comment: its lines trimmed and joined with a space, and the
/// attributes they came from (for spans).
pub struct Doc<'a> {
    pub text: String,
    pub sources: Vec<&'a Attribute>,
}

impl<'a> Doc<'a> {
    /// The section of the doc comment of `attrs` under the Markdown heading `heading`, or
    /// before the first heading when `None`; `None` when it has no non-empty line.
    fn read(attrs: &'a [Attribute], heading: Option<&str>) -> Option<Doc<'a>> {
        let mut lines = Vec::new();
        let mut sources = Vec::new();
        let mut current: Option<String> = None;
        for (attr, lit) in doc_lits(attrs) {
            let mut used = false;
            for line in lit.lines().map(str::trim) {
                if let Some(title) = heading_title(line) {
                    current = Some(title.to_owned());
                } else if !line.is_empty() && current.as_deref() == heading {
                    lines.push(line.to_owned());
                    used = true;
                }
            }
            if used {
                sources.push(attr);
            }
        }
        (!lines.is_empty()).then(|| Doc {
            text: lines.join(" "),
            sources,
        })
    }

    /// The doc line a message about the text's end points at (where a final `.` would be).
    pub fn last_line(&self) -> Option<&'a Attribute> {
        self.sources.last().copied()
    }

    /// The first doc line whose text holds a character `pred` accepts.
    pub fn line_with(&self, pred: fn(char) -> bool) -> Option<&'a Attribute> {
        self.sources.iter().copied().find(|attr| {
            doc_lits(std::slice::from_ref(*attr)).any(|(_, lit)| lit.chars().any(pred))
        })
    }
}

/// The title of a Markdown heading line (`# Computed`, `## Notes`), else `None` (`#1 cause` is
/// text).
fn heading_title(line: &str) -> Option<&str> {
    let title = line.trim_start_matches('#');
    let level = line.len() - title.len();
    let is_heading = (1..=6).contains(&level) && (title.is_empty() || title.starts_with(' '));
    is_heading.then(|| title.trim())
}

/// The `#[doc]` attributes of `attrs`, as written.
pub fn doc_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|a| a.path() == DOC)
}

/// The lint-level attributes of `attrs` (`allow`, `expect`, `warn`, `deny`, `forbid`), for an
/// item generated from the one they are on: the user's only way to set a lint's level on an
/// item they do not write. An `#[expect]` becomes an `#[allow]`: the expectation is checked
/// once, on the item the user wrote it on, and a copy that the lint does not fire on would
/// otherwise add an `unfulfilled_lint_expectations` warning of its own.
pub fn lint_attrs(attrs: &[Attribute]) -> TokenStream {
    attrs
        .iter()
        .filter(|a| LINT_LEVELS.iter().any(|level| a.path() == *level))
        .map(|attr| match &attr.meta {
            Meta::List(list) if attr.path() == EXPECT => {
                let span = attr
                    .path()
                    .get_ident()
                    .map_or(Span::call_site(), Ident::span);
                let allow = Ident::new("allow", span);
                let tokens = &list.tokens;
                quote!(#[#allow(#tokens)])
            }
            _ => attr.to_token_stream(),
        })
        .collect()
}

/// The `#[doc = "..."]` attributes of `attrs` with their text (a `#[doc]` of another form,
/// such as `#[doc(hidden)]`, is no text).
fn doc_lits(attrs: &[Attribute]) -> impl Iterator<Item = (&Attribute, String)> {
    doc_attrs(attrs).filter_map(|attr| match &attr.meta {
        Meta::NameValue(nv) => match strip(&nv.value) {
            Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) => Some((attr, lit.value())),
            _ => None,
        },
        _ => None,
    })
}

impl Input<'_> {
    /// The struct's doc comment as written, copied to the handles struct.
    pub fn doc_attrs(&self) -> impl Iterator<Item = &Attribute> {
        doc_attrs(self.attrs)
    }

    /// The struct's lint levels, copied to the handles struct (and so to its fields).
    pub fn lint_attrs(&self) -> TokenStream {
        lint_attrs(self.attrs)
    }

    /// Whether a field's type is one the compiler rejects by itself (then the derive reports
    /// nothing of its own, and emits the stubs).
    pub fn compiler_reports(&self) -> bool {
        self.fields
            .iter()
            .any(|f| f.unreadable.as_ref().is_some_and(|u| u.compiler_reports))
    }
}

impl<'a> Input<'a> {
    /// Reads the input; `None` (with an error) unless it is a struct with named fields.
    pub fn from_syn(cx: &Ctxt, input: &'a DeriveInput) -> Option<Input<'a>> {
        let container = metric_attr::parse_container(cx, &input.attrs);
        let named = match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(named) => Some(named),
                _ => None,
            },
            _ => None,
        };
        let Some(named) = named else {
            cx.error_spanned_by(
                &input.ident,
                "`#[derive(MetricHandles)]` needs a struct with named fields, one `Family<Labels, Member>` per metric",
            );
            return None;
        };
        if named.named.is_empty() {
            cx.error_spanned_by(
                &input.ident,
                "`#[derive(MetricHandles)]` on a struct without fields: add a field such as `#[metric(name = \"app:requests\")] requests: Family<NoLabels, Counter>`",
            );
        }
        let fields = named
            .named
            .iter()
            .filter_map(|field| {
                let ident = field.ident.as_ref()?;
                let metric = metric_attr::parse_field(cx, &field.attrs);
                let (family, unreadable) = if !metric.present {
                    cx.error_spanned_by(
                        ident,
                        format!(
                            "field `{ident}` has no `#[metric(...)]` attribute: add `#[metric(name = \"...\")]`, or `#[metric(skip)]` for a field that is not a metric"
                        ),
                    );
                    let stub = Unreadable {
                        stub_member: ty::stub_member(&field.ty),
                        compiler_reports: false,
                    };
                    (None, Some(stub))
                } else if metric.skip.is_some() {
                    check_skip_alone(cx, &metric);
                    (None, None)
                } else {
                    match ty::read_family(cx, &field.ty) {
                        Ok(family) => (Some(family), None),
                        Err(unreadable) => (None, Some(unreadable)),
                    }
                };
                Some(Field {
                    ident,
                    vis: &field.vis,
                    ty: &field.ty,
                    attrs: &field.attrs,
                    metric,
                    family,
                    unreadable,
                })
            })
            .collect();
        Some(Input {
            ident: &input.ident,
            vis: &input.vis,
            generics: &input.generics,
            attrs: &input.attrs,
            container,
            fields,
        })
    }
}

/// `skip` means "not a metric": any other key on the field is a contradiction.
fn check_skip_alone(cx: &Ctxt, metric: &FieldAttrs) {
    let keys = [
        metric.name.as_ref().map(|k| &k.key),
        metric.help.as_ref().map(|k| &k.key),
        metric.unit.as_ref().map(|k| &k.key),
        metric.buckets.as_ref().map(|k| &k.key),
        metric.native.as_ref().map(|k| &k.key),
        metric.label.as_ref().map(|k| &k.key),
        metric.positions.as_ref().map(|k| &k.key),
        metric.max_series.as_ref().map(|k| &k.key),
        metric.max_label_sets.as_ref().map(|k| &k.key),
        metric.idle_timeout.as_ref().map(|k| &k.key),
    ];
    for key in keys
        .into_iter()
        .flatten()
        .chain(metric.aliases.iter().map(|a| &a.key))
    {
        cx.error_spanned_by(
            key,
            format!("`{key}` cannot be combined with `skip`: a skipped field is not a metric; remove `skip` or `{key}`"),
        );
    }
}
