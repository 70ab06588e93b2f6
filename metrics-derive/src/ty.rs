//! Reading a field's type: `Family<L, M>`, and what the member `M` is when its spelling shows
//! it.
//!
//! The member's kind and axis are *not* taken from its spelling: the generated code reads
//! `<M as FamilyMember>::KIND` and `::AXIS`, and checks the field's attributes against them at
//! compile time. Reading the spelling here only serves better messages: a mistake in a
//! recognised type (`Counter`, `ByLabel<E, _>`, ...) is reported by the macro, on the user's
//! token; a type it does not recognise (an alias such as `type U64Counter = Counter<u64,
//! AtomicU64>`, a member type of the user's own) is left to the compile-time checks.

use syn::{GenericArgument, PathArguments, Type, TypePath};

use crate::ctxt::Ctxt;
use crate::symbol::{
    Symbol, BY_LABEL, BY_LABELS, BY_POSITION, COUNTER, DYNAMIC, FAMILY, GAUGE, GAUGE_HISTOGRAM,
    HISTOGRAM, INFO, POSITION, STATE_SET,
};

/// The Prometheus type of the member's series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    Counter,
    Gauge,
    Histogram,
    Info,
    StateSet,
    GaugeHistogram,
}

impl Leaf {
    pub fn as_str(self) -> &'static str {
        match self {
            Leaf::Counter => "counter",
            Leaf::Gauge => "gauge",
            Leaf::Histogram => "histogram",
            Leaf::Info => "info",
            Leaf::StateSet => "state set",
            Leaf::GaugeHistogram => "gauge histogram",
        }
    }

    /// The kind with its indefinite article: `a counter`, `an info`.
    pub fn with_article(self) -> String {
        let article = if self == Leaf::Info { "an" } else { "a" };
        format!("{article} {}", self.as_str())
    }

    /// Whether `buckets = ...` applies (and is required).
    pub fn has_buckets(self) -> bool {
        matches!(self, Leaf::Histogram | Leaf::GaugeHistogram)
    }

    /// Whether OpenMetrics allows the type a unit (Python's parser refuses one on an info or
    /// a state set).
    pub fn allows_unit(self) -> bool {
        !matches!(self, Leaf::Info | Leaf::StateSet)
    }
}

/// The label axis the member adds, when its spelling shows it.
#[derive(Clone, Debug)]
pub enum Axis {
    None,
    /// `ByLabel<E, X>`: `E`, as written.
    Enum(Box<Type>),
    /// `ByPosition<X>`.
    Position,
    /// `ByLabels<(A, B, ...), X>`: per axis, the enum type, or `None` for `Position`.
    Grid(Vec<Option<Type>>),
    /// `Dynamic<D, X>`: `D`, as written.
    Dynamic(Box<Type>),
}

impl Axis {
    /// How many keys `label = ...` must name.
    pub fn label_keys(&self) -> usize {
        match self {
            Axis::None | Axis::Dynamic(_) => 0,
            Axis::Enum(_) | Axis::Position => 1,
            Axis::Grid(parts) => parts.len(),
        }
    }

    /// Whether one of the axes is a position axis.
    pub fn has_position(&self) -> bool {
        match self {
            Axis::Position => true,
            Axis::Grid(parts) => parts.iter().any(Option::is_none),
            _ => false,
        }
    }
}

/// `Family<L, M>`, read.
#[derive(Clone, Debug)]
pub struct FamilyType {
    /// `L`, as written.
    pub labels: Type,
    /// `M`, as written.
    pub member: Type,
    /// The leaf kind, when the spelling shows it.
    pub leaf: Option<Leaf>,
    /// The axis, when the spelling shows it.
    pub axis: Option<Axis>,
    /// Whether the macro reported a mistake in `M` (the field then gets no plan, but the
    /// fallback still declares it).
    pub broken: bool,
}

/// A field type the derive cannot use: what the error stubs declare for it instead.
#[derive(Clone, Debug)]
pub struct Unreadable {
    /// The member type the field most likely meant (`Gauge` in `running: Gauge` or
    /// `Family<Gauge>`), so uses of the stub handle type-check; `None` when there is no guess.
    pub stub_member: Option<Box<Type>>,
    /// Whether the compiler itself rejects the type (`Family<Gauge>`: a missing type argument),
    /// so the derive reports nothing of its own, and only makes sure an error is reported.
    pub compiler_reports: bool,
}

/// The most axes a `ByLabels` grid combines (the runtime's `MAX_GRID_AXES`).
const MAX_GRID_AXES: usize = 4;

/// Reads `Family<L, M>`; reports what is wrong otherwise.
pub fn read_family(cx: &Ctxt, ty: &Type) -> Result<FamilyType, Unreadable> {
    let unreadable = || Unreadable {
        stub_member: stub_member(ty),
        compiler_reports: false,
    };
    let Some((name, args)) = last_segment(ty) else {
        cx.error_spanned_by(
            ty,
            "a `#[metric]` field must have type `Family<Labels, Member>`, e.g. `Family<EngineLabels, Counter>`",
        );
        return Err(unreadable());
    };
    if name != FAMILY.as_str() {
        cx.error_spanned_by(
            ty,
            format!(
                "a `#[metric]` field must have type `Family<Labels, Member>`, not `{}`: e.g. `Family<EngineLabels, Counter>` (or mark the field `#[metric(skip)]`)",
                render(ty)
            ),
        );
        return Err(unreadable());
    }
    let [labels, member] = args.as_slice() else {
        // `Family` has two type parameters, `Labels` and `Member`: the compiler reports another
        // number itself (E0107), and a second error here would only repeat it.
        return Err(Unreadable {
            compiler_reports: true,
            ..unreadable()
        });
    };
    if swapped(labels, member) {
        cx.error_spanned_by(
            ty,
            format!(
                "`Family` takes the label set first, then the member: write `Family<{}, {}>`",
                render(member),
                render(labels)
            ),
        );
        return Err(unreadable());
    }
    let mut family = FamilyType {
        labels: labels.clone(),
        member: member.clone(),
        leaf: None,
        axis: None,
        broken: false,
    };
    match read_member(cx, member) {
        Ok(Some((leaf, axis))) => {
            family.leaf = leaf;
            family.axis = Some(axis);
        }
        Ok(None) => {}
        Err(()) => family.broken = true,
    }
    Ok(family)
}

/// Whether `Family<labels, member>` has its arguments the wrong way round: the first names a
/// member, the second does not.
fn swapped(labels: &Type, member: &Type) -> bool {
    let known_member = |ty: &Type| {
        last_segment(ty).is_some_and(|(n, _)| {
            [
                COUNTER,
                GAUGE,
                HISTOGRAM,
                INFO,
                STATE_SET,
                GAUGE_HISTOGRAM,
                BY_LABEL,
                BY_LABELS,
                BY_POSITION,
                DYNAMIC,
            ]
            .iter()
            .any(|s| s.as_str() == n)
        })
    };
    known_member(labels) && !known_member(member)
}

/// The member type a field of type `ty` most likely meant, whatever is wrong with it: `M` of
/// `Family<L, M>` (`L` when the two are swapped), the one argument of `Family<M>`, or the
/// type itself when it is not a `Family` (`running: Gauge`).
pub fn stub_member(ty: &Type) -> Option<Box<Type>> {
    let member = match last_segment(ty) {
        Some((name, args)) if name == FAMILY.as_str() => match args.as_slice() {
            [labels, member] if swapped(labels, member) => labels.clone(),
            [.., member] => member.clone(),
            [] => return None,
        },
        _ => ty.clone(),
    };
    Some(Box::new(member))
}

/// `Ok(None)`: not a spelling the macro knows (the compile-time checks take over).
/// `Ok(Some((leaf, axis)))`: a known axis container or leaf; `leaf` is `None` when the axis
/// holds a type the macro does not know. `Err`: a mistake, reported.
type Read = Result<Option<(Option<Leaf>, Axis)>, ()>;

fn read_member(cx: &Ctxt, member: &Type) -> Read {
    let Some((name, args)) = last_segment(member) else {
        return Ok(None);
    };
    if let Some(leaf) = leaf_of(&name) {
        check_leaf(cx, member, leaf, &args)?;
        return Ok(Some((Some(leaf), Axis::None)));
    }
    let (axis, inner) = match (name.as_str(), args.as_slice()) {
        (n, [axis_ty, inner]) if n == BY_LABEL.as_str() => {
            check_label_type(cx, axis_ty, |shown| {
                format!("`ByLabel`'s first argument is the enum that lists every value of the label (`#[derive(LabelEnum)]`), not `{shown}`: for values only known at run time write `Dynamic<Labels, Leaf>` with a `#[derive(LabelSet)]` struct `Labels`; for a bounded integer write `ByPosition<Leaf>`")
            })?;
            (Axis::Enum(Box::new(axis_ty.clone())), inner)
        }
        (n, [inner]) if n == BY_POSITION.as_str() => (Axis::Position, inner),
        (n, [labels, inner]) if n == DYNAMIC.as_str() => {
            check_label_type(cx, labels, |shown| {
                format!(
                    "`Dynamic`'s first argument is a label set (a struct with `#[derive(LabelSet)]`, one field per key), not `{shown}`: for one label write a struct with one field, e.g. `#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)] struct Tenant {{ tenant: {shown} }}`, and `Dynamic<Tenant, {}>`",
                    render(inner)
                )
            })?;
            (Axis::Dynamic(Box::new(labels.clone())), inner)
        }
        (n, [axes, inner]) if n == BY_LABELS.as_str() => (Axis::Grid(grid_axes(cx, axes)?), inner),
        (n, _)
            if [BY_LABEL, BY_LABELS, BY_POSITION, DYNAMIC]
                .iter()
                .any(|s| s.as_str() == n) =>
        {
            cx.error_spanned_by(
                member,
                format!(
                    "wrong number of type arguments for `{n}`: write `ByLabel<Enum, Leaf>`, `ByLabels<(EnumA, EnumB), Leaf>`, `ByPosition<Leaf>` or `Dynamic<Labels, Leaf>`"
                ),
            );
            return Err(());
        }
        _ => return Ok(None),
    };
    let inner_name = last_segment(inner).map(|(n, _)| n);
    if let Some(n) = &inner_name {
        if [BY_LABEL, BY_LABELS, BY_POSITION, DYNAMIC]
            .iter()
            .any(|s| s.as_str() == n)
        {
            cx.error_spanned_by(
                inner,
                "axes do not nest: put every fixed axis in one grid, `ByLabels<(EnumA, EnumB), Leaf>` (`Position` for a position axis) with `#[metric(label = [\"a\", \"b\"])]`; a run-time axis is `Dynamic<Labels, Leaf>` with every dynamic key in `Labels`",
            );
            return Err(());
        }
    }
    match read_member(cx, inner)? {
        Some((leaf, Axis::None)) => Ok(Some((leaf, axis))),
        _ => Ok(Some((None, axis))),
    }
}

/// `Gauge<f64>` keeps the default `AtomicI64`, which cannot hold an `f64`.
fn check_leaf(cx: &Ctxt, member: &Type, leaf: Leaf, args: &[Type]) -> Result<(), ()> {
    if leaf == Leaf::Histogram && names_prometheus_client(member) {
        cx.error_spanned_by(
            member,
            "prometheus-client's `Histogram` locks a mutex per observation and is not a family member here: use `metric_handles::Histogram` (lock-free, same exposition)",
        );
        return Err(());
    }
    if leaf == Leaf::StateSet {
        let [states] = args else {
            cx.error_spanned_by(
                member,
                "`StateSet` takes one type argument, the enum that lists every state: write `StateSet<Phase>` with `#[derive(LabelEnum)] enum Phase { ... }`",
            );
            return Err(());
        };
        return check_label_type(cx, states, |shown| {
            format!("`StateSet`'s argument is the enum that lists every state (`#[derive(LabelEnum)]`), not `{shown}`: a state set exposes one sample per state, so its states must be known at compile time")
        });
    }
    if leaf == Leaf::Info && names_prometheus_client(member) {
        cx.error_spanned_by(
            member,
            "prometheus-client's `Info` holds its labels itself and is not a family member here: use `metric_handles::Info`, whose labels are the family's label set",
        );
        return Err(());
    }
    if leaf == Leaf::Gauge {
        if let [value] = args {
            let value = render(value);
            if value == "f64" || value == "u64" {
                cx.error_spanned_by(
                    member,
                    format!(
                        "`Gauge<{value}>` keeps the default `AtomicI64`, which cannot hold a `{value}`: write `Gauge<{value}, AtomicU64>` (`std::sync::atomic::AtomicU64`)"
                    ),
                );
                return Err(());
            }
        }
    }
    Ok(())
}

/// Types that are certainly not a `LabelEnum`: strings, numbers, `bool`.
fn is_plain_value(ty: &Type) -> bool {
    const PLAIN: &[&str] = &[
        "String", "str", "Cow", "bool", "char", "u8", "u16", "u32", "u64", "u128", "usize", "i8",
        "i16", "i32", "i64", "i128", "isize", "f32", "f64", "Arc", "Box",
    ];
    match ty {
        Type::Reference(reference) => is_plain_value(&reference.elem),
        _ => last_segment(ty).is_some_and(|(name, _)| PLAIN.contains(&name.as_str())),
    }
}

/// A type argument that must be a derived label type (an enum or a label set): reports
/// `message(rendered type)` at it when it is certainly a plain value instead.
fn check_label_type(
    cx: &Ctxt,
    ty: &Type,
    message: impl FnOnce(String) -> String,
) -> Result<(), ()> {
    if is_plain_value(ty) {
        cx.error_spanned_by(ty, message(render(ty)));
        return Err(());
    }
    Ok(())
}

/// `(A, B, ...)` of `ByLabels`: two to four axes, each an enum or `Position`.
fn grid_axes(cx: &Ctxt, axes: &Type) -> Result<Vec<Option<Type>>, ()> {
    let elems = match axes {
        Type::Tuple(tuple) => tuple.elems.iter().collect::<Vec<_>>(),
        Type::Paren(paren) => vec![&*paren.elem],
        Type::Group(group) => return grid_axes(cx, &group.elem),
        other => vec![other],
    };
    if elems.len() < 2 || elems.len() > MAX_GRID_AXES {
        cx.error_spanned_by(
            axes,
            format!(
                "`ByLabels` takes a tuple of 2 to {MAX_GRID_AXES} axes, e.g. `ByLabels<(Method, Status), Counter>`; for one axis write `ByLabel<Enum, Leaf>` or `ByPosition<Leaf>`"
            ),
        );
        return Err(());
    }
    let mut parts = Vec::new();
    let mut ok = true;
    for elem in elems {
        if last_segment(elem).is_some_and(|(n, args)| n == POSITION.as_str() && args.is_empty()) {
            parts.push(None);
            continue;
        }
        let axis = check_label_type(cx, elem, |shown| {
            format!("each axis of `ByLabels` is a `#[derive(LabelEnum)]` enum or `Position`, not `{shown}`")
        });
        match axis {
            Ok(()) => parts.push(Some(elem.clone())),
            Err(()) => ok = false,
        }
    }
    ok.then_some(parts).ok_or(())
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
    } else if is(INFO) {
        Some(Leaf::Info)
    } else if is(STATE_SET) {
        Some(Leaf::StateSet)
    } else if is(GAUGE_HISTOGRAM) {
        Some(Leaf::GaugeHistogram)
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
    render_tokens(&quote::quote!(#ty))
}

/// Tokens rendered compactly, as a user would write them: `Gauge<f64, AtomicU64>`, `-1.5`.
pub fn render_tokens(tokens: &proc_macro2::TokenStream) -> String {
    let text = tokens.to_string();
    let mut out = String::with_capacity(text.len());
    for piece in text.split(' ') {
        let glue = out.is_empty()
            || matches!(piece, "<" | ">" | "," | ">>")
            || (piece == "::" && !out.ends_with(','))
            || out.ends_with('<')
            || out.ends_with("::")
            || out.ends_with('&')
            || out == "-";
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
