//! Reading a field's type, syntactically: `Family<L, M>` and the kind of member `M` is.
//!
//! The kind is only used for the macro's own checks (a counter's name, a histogram's
//! buckets); the descriptor takes it from `<M as FamilyMember>::KIND`, so a type alias that
//! fools this reading cannot produce a wrong exposition.

use syn::{GenericArgument, PathArguments, Type, TypePath};

use crate::ctxt::Ctxt;
use crate::symbol::{Symbol, BY_LABEL, BY_POSITION, COUNTER, DYNAMIC, FAMILY, GAUGE, HISTOGRAM};

/// The Prometheus type of the member's series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    Counter,
    Gauge,
    Histogram,
}

impl Leaf {
    pub fn as_str(self) -> &'static str {
        match self {
            Leaf::Counter => "counter",
            Leaf::Gauge => "gauge",
            Leaf::Histogram => "histogram",
        }
    }
}

/// The label axis the member adds.
#[derive(Clone, Debug)]
pub enum Axis {
    None,
    /// `ByLabel<E, X>`.
    Enum,
    /// `ByPosition<X>`.
    Position,
    /// `Dynamic<D, X>`: `D` is the dynamic label set.
    Dynamic(Box<Type>),
}

/// `Family<L, M>`, read.
#[derive(Clone, Debug)]
pub struct FamilyType {
    /// `L`, as written.
    pub labels: Type,
    /// `M`, as written.
    pub member: Type,
    pub leaf: Leaf,
    pub axis: Axis,
}

const SUPPORTED: &str = "`Counter`, `Gauge`, `Histogram`, `ByLabel<Enum, Leaf>`, \
`ByPosition<Leaf>` or `Dynamic<Labels, Leaf>` (where `Leaf` is `Counter`, `Gauge` or `Histogram`)";

/// Reads `Family<L, M>`; reports what is wrong otherwise. `None` also when `M` is unsupported.
pub fn read_family(cx: &Ctxt, ty: &Type) -> Option<FamilyType> {
    let Some((name, args)) = last_segment(ty) else {
        cx.error_spanned_by(
            ty,
            "a `#[metric]` field must have type `Family<Labels, Member>`, e.g. `Family<EngineLabels, Counter>`",
        );
        return None;
    };
    if name != FAMILY.as_str() {
        cx.error_spanned_by(
            ty,
            format!(
                "a `#[metric]` field must have type `Family<Labels, Member>`, not `{}`: e.g. `Family<EngineLabels, Counter>` (or mark the field `#[metric(skip)]`)",
                render(ty)
            ),
        );
        return None;
    }
    let [labels, member] = args.as_slice() else {
        cx.error_spanned_by(
            ty,
            "`Family` takes two type arguments: `Family<Labels, Member>`, e.g. `Family<EngineLabels, Counter>`",
        );
        return None;
    };
    let (leaf, axis) = read_member(cx, member)?;
    Some(FamilyType {
        labels: labels.clone(),
        member: member.clone(),
        leaf,
        axis,
    })
}

fn read_member(cx: &Ctxt, member: &Type) -> Option<(Leaf, Axis)> {
    let unsupported = |cx: &Ctxt| {
        cx.error_spanned_by(
            member,
            format!("unsupported metric member type: expected {SUPPORTED}"),
        )
    };
    let Some((name, args)) = last_segment(member) else {
        unsupported(cx);
        return None;
    };
    if let Some(leaf) = leaf_of(&name) {
        if leaf == Leaf::Histogram && names_prometheus_client(member) {
            cx.error_spanned_by(
                member,
                "prometheus-client's `Histogram` locks a mutex per observation and is not a family member here: use `metric_handles::Histogram` (lock-free, same exposition)",
            );
            return None;
        }
        return Some((leaf, Axis::None));
    }
    let (axis, inner) = match (name.as_str(), args.as_slice()) {
        (n, [_, inner]) if n == BY_LABEL.as_str() => (Axis::Enum, inner),
        (n, [inner]) if n == BY_POSITION.as_str() => (Axis::Position, inner),
        (n, [labels, inner]) if n == DYNAMIC.as_str() => {
            (Axis::Dynamic(Box::new(labels.clone())), inner)
        }
        (n, _)
            if [BY_LABEL, BY_POSITION, DYNAMIC]
                .iter()
                .any(|s| s.as_str() == n) =>
        {
            cx.error_spanned_by(
                member,
                format!(
                    "wrong number of type arguments for `{n}`: write `ByLabel<Enum, Leaf>`, `ByPosition<Leaf>` or `Dynamic<Labels, Leaf>`"
                ),
            );
            return None;
        }
        _ => {
            unsupported(cx);
            return None;
        }
    };
    match last_segment(inner).and_then(|(inner_name, _)| leaf_of(&inner_name)) {
        Some(leaf) => Some((leaf, axis)),
        None => {
            cx.error_spanned_by(
                inner,
                "unsupported axis member: an axis holds a `Counter`, `Gauge` or `Histogram` (axes do not nest)",
            );
            None
        }
    }
}

/// Whether the type's path goes through `prometheus_client` (its own `Histogram`).
fn names_prometheus_client(ty: &Type) -> bool {
    match ty {
        Type::Group(group) => names_prometheus_client(&group.elem),
        Type::Path(TypePath { qself: None, path }) => {
            path.segments.iter().any(|s| s.ident == "prometheus_client")
        }
        _ => false,
    }
}

fn leaf_of(name: &str) -> Option<Leaf> {
    let is = |s: Symbol| s.as_str() == name;
    if is(COUNTER) {
        Some(Leaf::Counter)
    } else if is(GAUGE) {
        Some(Leaf::Gauge)
    } else if is(HISTOGRAM) {
        Some(Leaf::Histogram)
    } else {
        None
    }
}

/// The last path segment's name and its type arguments (lifetimes and consts skipped).
fn last_segment(ty: &Type) -> Option<(String, Vec<Type>)> {
    match ty {
        Type::Group(group) => last_segment(&group.elem),
        Type::Paren(paren) => last_segment(&paren.elem),
        Type::Path(TypePath { qself: None, path }) => {
            let segment = path.segments.last()?;
            let args = match &segment.arguments {
                PathArguments::AngleBracketed(args) => args
                    .args
                    .iter()
                    .filter_map(|arg| match arg {
                        GenericArgument::Type(ty) => Some(ty.clone()),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            Some((segment.ident.to_string(), args))
        }
        _ => None,
    }
}

/// A type rendered compactly for `MetricDescriptor::value_type`: `ByLabel<Reason, Counter>`.
pub fn render(ty: &Type) -> String {
    let text = quote::quote!(#ty).to_string();
    let mut out = String::with_capacity(text.len());
    for piece in text.split(' ') {
        let glue = out.is_empty()
            || matches!(piece, "<" | ">" | "," | ">>")
            || (piece == "::" && !out.ends_with(','))
            || out.ends_with('<')
            || out.ends_with("::")
            || out.ends_with('&');
        if !glue {
            out.push(' ');
        }
        out.push_str(piece);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_types_compactly() {
        let ty: Type = syn::parse_quote!(ByLabel<FinishReason, Counter>);
        assert_eq!(render(&ty), "ByLabel<FinishReason, Counter>");
        let ty: Type = syn::parse_quote!(Gauge<f64, ::std::sync::atomic::AtomicU64>);
        assert_eq!(render(&ty), "Gauge<f64, ::std::sync::atomic::AtomicU64>");
        let ty: Type = syn::parse_quote!(Dynamic<LoraLabels, Histogram>);
        assert_eq!(render(&ty), "Dynamic<LoraLabels, Histogram>");
    }
}
