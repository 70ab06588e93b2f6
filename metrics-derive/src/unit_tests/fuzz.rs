//! Property tests: the derives never panic, whatever the input, and always produce tokens
//! that parse as items (the real expansion, or `compile_error!`s plus stubs).
//!
//! Inputs are (1) structs and enums assembled from plausible and implausible pieces
//! (attribute keys with typos, odd values, odd types, doc comments) and (2) valid inputs (the
//! seeds here and the expansion snapshot inputs) mutated at the token level (truncated, a token
//! dropped, duplicated or replaced).

use std::fs;

use proc_macro2::{TokenStream, TokenTree};
use proptest::prelude::*;

use super::expand_snapshots::{derive_inputs, expander, snapshot_inputs};
use crate::label_enum::LabelEnum;
use crate::label_impl::LabelDerive;
use crate::label_set::LabelSet;

/// Valid `MetricHandles` inputs, which the mistakes below edit; the second property mutates
/// them and every other input of [`valid_inputs`].
const SEEDS: &[&str] = &[
    r#"
    #[metric_handles(handles = DemoHandles, labels = EngineLabels, crate = ::metric_handles)]
    pub struct DemoMetrics {
        /// Running
        #[metric(name = "vllm:num_requests_running", max_label_sets = 4)]
        pub running: Family<EngineLabels, Gauge>,
        /// Time to first token
        #[metric(name = "vllm:ttft", unit = "seconds", buckets = [0.001, 0.01, 1])]
        ttft: Family<EngineLabels, Histogram>,
        /// Success
        #[metric(name = "vllm:request_success", label = "finished_reason",
                 alias(name = "vllm:old_success", deprecated_in = "0.10"))]
        pub(crate) success: Family<EngineLabels, ByLabel<FinishReason, Counter>>,
        /// Accepted
        #[metric(name = "vllm:accepted", label = "position", positions = 3)]
        #[cfg(feature = "spec")]
        accepted: Family<EngineLabels, ByPosition<Counter<f64, AtomicU64>>>,
        /// Lora
        #[metric(name = "demo:lora", buckets = exponential(start = 1.0, factor = 2.0, count = 4))]
        lora: Family<EngineLabels, Dynamic<LoraLabels, Histogram>>,
        /// Linear
        #[metric(name = "demo:lin", buckets = linear(start = 0, width = 1, count = 3))]
        lin: Family<EngineLabels, Histogram>,
        /// Ott
        #[metric(name = "demo:ott", buckets = one_two_five(max = 1000))]
        ott: Family<EngineLabels, Histogram>,
        #[metric(skip)]
        started: u64,
    }
    "#,
    r#"
    #[metric_handles(labels = L)]
    pub struct Generic<'a, L: LabelSet, const N: usize> where L: Clone {
        /// Things
        #[metric(name = "gen:things", help = "Things counted", buckets = SOME::PATH)]
        things: Family<L, Histogram>,
    }
    "#,
];

/// Every valid input, with the derive it is for: the seeds, and each item of the expansion
/// snapshot inputs (`tests/expand/*.rs`, representative inputs of every derive).
fn valid_inputs() -> Vec<(String, String)> {
    let mut inputs: Vec<(String, String)> = SEEDS
        .iter()
        .map(|seed| ("MetricHandles".to_owned(), (*seed).to_owned()))
        .collect();
    for path in snapshot_inputs() {
        let source =
            fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let items = derive_inputs(&source).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        inputs.extend(
            items
                .into_iter()
                .map(|(name, item)| (name, item.to_string())),
        );
    }
    inputs
}

const KEYS: &[&str] = &[
    "name",
    "help",
    "unit",
    "buckets",
    "label",
    "positions",
    "max_series",
    "alias",
    "skip",
    "handles",
    "labels",
    "crate",
    "rename",
    "rename_all",
    "bukets",
    "nmae",
    "lable",
    "crate",
    "r#type",
    "deprecated_in",
    "self",
    "Name",
    "max-series",
];

const VALUES: &[&str] = &[
    "",
    "= \"vllm:x\"",
    "= \"\"",
    "= \"x_total\"",
    "= \"le\"",
    "= \"__x\"",
    "= \"a b\"",
    "= \"Help.\"",
    "= \"seconds\"",
    "= 0",
    "= -1",
    "= 18446744073709551616",
    "= 1e400",
    "= [0.1, 0.5, 1]",
    "= []",
    "= [1.0, 0.5]",
    "= [\"x\"]",
    "= [1e999]",
    "= [-0.0, 0.0]",
    "= SOME_CONST",
    "= a::b::C",
    "= exponential(start = 1.0, factor = 2.0, count = 10)",
    "= exponential(start = 0, factor = 1, count = 0)",
    "= linear(start = 0.0, width = 1.0)",
    "= one_two_five(max = 0)",
    "= one_two_five()",
    "= foo(bar)",
    "= exponential(1, 2, 3)",
    "(name = \"old:x\", deprecated_in = \"0.1\")",
    "(name = \"old:x\")",
    "()",
    "(x = 1, y)",
    "= snake_case",
    "= \"snake_case\"",
    "= \"camelcase\"",
    "= ::rt",
    "= EngineLabels",
    "= Vec<u8>",
    "= \"Handles\"",
    "= 1.5",
    "= true",
    "= 'c'",
    "= b\"bytes\"",
    "= (1)",
    "= { 1 }",
    "= |x| x",
    "= 0x10",
    "= 1_000u16",
    "= 65536",
    "= exponential(start = 1e300, factor = 1e300, count = 5)",
];

const TYPES: &[&str] = &[
    "Family<L, Counter>",
    "Family<L, Gauge>",
    "Family<L, Histogram>",
    "Family<L, ByLabel<E, Counter>>",
    "Family<L, ByPosition<Gauge>>",
    "Family<L, Dynamic<D, Histogram>>",
    "Family<L>",
    "Family",
    "Family<L, Summary>",
    "Family<L, ByLabel<E>>",
    "Family<L, ByPosition<ByLabel<E, Counter>>>",
    "u64",
    "&'a str",
    "(Family<L, Counter>)",
    "[Family<L, Counter>; 2]",
    "fn() -> Family<L, Counter>",
    "Family<L, ByPosition<>>",
    "metrics::Family<crate::L, Counter<f64, AtomicU64>>",
    "Family<L, prometheus_client::metrics::histogram::Histogram>",
    "Family<'a, L, Counter>",
    "Family<L, Counter, Extra>",
    "<T as Trait>::Family",
    "dyn Family",
    "impl Family",
];

const DOCS: &[&str] = &[
    "",
    "/// Help text",
    "/// Ends with a period.",
    "///",
    "/// a\n/// b.",
    "#[doc = 1]",
    "#[doc]",
];

const ATTRS: &[&str] = &["metric", "metric_handles", "label", "doc", "cfg", "other"];

fn attribute() -> impl Strategy<Value = String> {
    (
        prop::sample::select(ATTRS),
        prop::collection::vec(
            (prop::sample::select(KEYS), prop::sample::select(VALUES)),
            0..4,
        ),
        any::<bool>(),
    )
        .prop_map(|(attr, entries, bare)| {
            if bare {
                return format!("#[{attr}]");
            }
            let body: Vec<String> = entries.iter().map(|(k, v)| format!("{k} {v}")).collect();
            format!("#[{attr}({})]", body.join(", "))
        })
}

fn field() -> impl Strategy<Value = String> {
    (
        prop::sample::select(DOCS),
        prop::collection::vec(attribute(), 0..3),
        prop::sample::select(&["", "pub ", "pub(crate) "][..]),
        prop::sample::select(&["a", "b", "r#type", "a"][..]),
        prop::sample::select(TYPES),
    )
        .prop_map(|(doc, attrs, vis, name, ty)| {
            format!("{doc}\n{}\n{vis}{name}: {ty}", attrs.join("\n"))
        })
}

fn item() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(attribute(), 0..3),
        prop::sample::select(
            &[
                "struct S",
                "pub struct S<L: LabelSet>",
                "enum S",
                "union S",
                "struct S<'a, T>",
            ][..],
        ),
        prop::collection::vec(field(), 0..4),
        prop::sample::select(&["named", "tuple", "unit", "variants"][..]),
    )
        .prop_map(|(attrs, head, fields, shape)| {
            let attrs = attrs.join("\n");
            match shape {
                "tuple" => format!("{attrs}\n{head}(u8, Family<L, Counter>);"),
                "unit" => format!("{attrs}\n{head};"),
                "variants" => format!(
                    "{attrs}\n{head} {{ A, #[label(rename = \"\")] B(u8), C {{ x: u8 }}, D = 3 }}"
                ),
                _ => format!("{attrs}\n{head} {{ {} }}", fields.join(",\n")),
            }
        })
}

/// Runs every derive on `input` and checks each output parses as a list of items.
fn check_all(input: TokenStream) -> Result<(), TestCaseError> {
    for (name, output) in [
        ("MetricHandles", crate::expand::derive(input.clone())),
        ("LabelSet", LabelSet::derive(input.clone())),
        ("LabelEnum", LabelEnum::derive(input)),
    ] {
        let parsed = syn::parse2::<syn::File>(output.clone());
        prop_assert!(
            parsed.is_ok(),
            "{name} produced tokens that are not items: {output}"
        );
    }
    Ok(())
}

#[derive(Clone, Debug)]
enum Mutation {
    Truncate(usize),
    Drop(usize),
    Duplicate(usize),
    Replace(usize, &'static str),
}

/// Applies `mutation` to the top-level and (recursively, by index) nested token trees.
fn mutate(tokens: TokenStream, mutation: &Mutation) -> TokenStream {
    let mut flat: Vec<TokenTree> = Vec::new();
    flatten(tokens, &mut flat);
    let len = flat.len().max(1);
    match *mutation {
        Mutation::Truncate(at) => flat.truncate(at % len),
        Mutation::Drop(at) => {
            if !flat.is_empty() {
                flat.remove(at % len);
            }
        }
        Mutation::Duplicate(at) => {
            if let Some(tree) = flat.get(at % len).cloned() {
                flat.insert(at % len, tree);
            }
        }
        Mutation::Replace(at, with) => {
            if let (Some(slot), Ok(replacement)) =
                (flat.get_mut(at % len), with.parse::<TokenStream>())
            {
                if let Some(tree) = replacement.into_iter().next() {
                    *slot = tree;
                }
            }
        }
    }
    // Re-lexing the printed tokens regroups delimiters; unbalanced results are skipped.
    let text: String = flat
        .iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(" ");
    text.parse().unwrap_or_default()
}

/// Every token, with groups opened into their delimiters so a mutation can break them.
fn flatten(tokens: TokenStream, out: &mut Vec<TokenTree>) {
    for tree in tokens {
        match tree {
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    proc_macro2::Delimiter::Parenthesis => ("(", ")"),
                    proc_macro2::Delimiter::Brace => ("{", "}"),
                    proc_macro2::Delimiter::Bracket => ("[", "]"),
                    proc_macro2::Delimiter::None => ("", ""),
                };
                out.push(TokenTree::Ident(proc_macro2::Ident::new(
                    "__OPEN",
                    group.span(),
                )));
                out.push(TokenTree::Literal(proc_macro2::Literal::string(open)));
                flatten(group.stream(), out);
                out.push(TokenTree::Ident(proc_macro2::Ident::new(
                    "__CLOSE",
                    group.span(),
                )));
                out.push(TokenTree::Literal(proc_macro2::Literal::string(close)));
            }
            other => out.push(other),
        }
    }
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let replacements = prop::sample::select(
        &[
            "\"\"", "0", "-", "=", ",", "::", "#", "skip", "name", "Family", "<", ">", "'a",
            "1e400", "[", "(",
        ][..],
    );
    prop_oneof![
        any::<usize>().prop_map(Mutation::Truncate),
        any::<usize>().prop_map(Mutation::Drop),
        any::<usize>().prop_map(Mutation::Duplicate),
        (any::<usize>(), replacements).prop_map(|(at, with)| Mutation::Replace(at, with)),
    ]
}

/// Undoes `flatten`'s markers in printed text, so the re-lexed stream has real delimiters.
fn unflatten(text: &str) -> String {
    text.replace("__OPEN \"(\"", "(")
        .replace("__CLOSE \")\"", ")")
        .replace("__OPEN \"{\"", "{")
        .replace("__CLOSE \"}\"", "}")
        .replace("__OPEN \"[\"", "[")
        .replace("__CLOSE \"]\"", "]")
        .replace("__OPEN \"\"", "")
        .replace("__CLOSE \"\"", "")
}

/// `default` cases, or 100,000 with `METRIC_HANDLES_STRESS=long` (the scale the "never
/// panics" claim needs; CI keeps the default).
fn cases(default: u32) -> u32 {
    if std::env::var("METRIC_HANDLES_STRESS").as_deref() == Ok("long") {
        100_000
    } else {
        default
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(1000), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_inputs_never_panic(source in item()) {
        // Inputs that do not even lex are the compiler's business, not the derive's.
        if let Ok(tokens) = source.parse::<TokenStream>() {
            check_all(tokens)?;
        }
    }

    #[test]
    fn mutated_valid_inputs_never_panic(seed in prop::sample::select(valid_inputs().into_iter().map(|(_, source)| source).collect::<Vec<_>>()), mutations in prop::collection::vec(mutation(), 1..4)) {
        let mut tokens: TokenStream = seed.parse().unwrap_or_default();
        for m in &mutations {
            let text = mutate(tokens, m).to_string();
            tokens = unflatten(&text).parse().unwrap_or_default();
        }
        check_all(tokens)?;
    }
}

#[test]
fn seeds_are_valid_for_their_derive() {
    // The valid inputs expand without errors, so the mutations start from real inputs.
    let inputs = valid_inputs();
    assert!(inputs.len() > SEEDS.len(), "no snapshot inputs read");
    for (name, source) in inputs {
        let expand = expander(&name).unwrap_or_else(|| panic!("no derive `{name}`"));
        let output = expand(source.parse().unwrap_or_default()).to_string();
        assert!(!output.contains("compile_error"), "{name}: {source}");
    }
}

#[test]
fn crate_path_replaces_every_runtime_path() {
    let input = SEEDS[0].replace("crate = ::metric_handles", "crate = ::rt");
    let output = crate::expand::derive(input.parse().unwrap_or_default());
    let mut idents = Vec::new();
    collect_idents(output, &mut idents);
    assert!(idents.iter().any(|i| i == "rt"));
    assert!(!idents.iter().any(|i| i == "metric_handles"));
    for (name, input) in [
        (
            "LabelSet",
            "#[label(crate = ::rt)] pub struct L { pub engine: u32 }",
        ),
        ("LabelEnum", "#[label(crate = ::rt)] pub enum E { Stop }"),
    ] {
        let derive = expander(name).unwrap_or_else(|| panic!("no derive `{name}`"));
        let mut idents = Vec::new();
        collect_idents(derive(input.parse().unwrap_or_default()), &mut idents);
        assert!(idents.iter().any(|i| i == "rt"), "{input}");
        assert!(!idents.iter().any(|i| i == "metric_handles"), "{input}");
    }
}

fn collect_idents(tokens: TokenStream, out: &mut Vec<String>) {
    for tree in tokens {
        match tree {
            TokenTree::Group(group) => collect_idents(group.stream(), out),
            TokenTree::Ident(ident) => out.push(ident.to_string()),
            _ => {}
        }
    }
}

/// Mistakes a user plausibly makes, each as a `(find, replace)` edit of the first seed. Every
/// one alone must be a compile error; any combination too.
const MISTAKES: &[(&str, &str, &str)] = &[
    ("typo in a field key", "name = \"vllm:num_requests_running\"", "nmae = \"vllm:num_requests_running\""),
    ("typo in a container key", "handles = DemoHandles", "handle = DemoHandles"),
    ("max_label_sets as a string", "max_label_sets = 4", "max_label_sets = \"4\""),
    ("max_label_sets as a float", "max_label_sets = 4", "max_label_sets = 4.0"),
    ("max_label_sets of zero", "max_label_sets = 4", "max_label_sets = 0"),
    ("a missing `=`", "max_label_sets = 4", "max_label_sets 4"),
    ("name as an identifier", "name = \"vllm:ttft\"", "name = vllm_ttft"),
    ("a counter named `_total`", "name = \"vllm:request_success\"", "name = \"vllm:request_success_total\""),
    ("a dash in a name", "name = \"vllm:ttft\"", "name = \"vllm-ttft\""),
    ("a name starting with a digit", "name = \"demo:lin\"", "name = \"1demo:lin\""),
    ("an empty name", "name = \"demo:ott\"", "name = \"\""),
    ("the same name twice", "name = \"demo:lin\"", "name = \"demo:ott\""),
    ("swapped generic arguments", "Family<EngineLabels, Gauge>", "Family<Gauge, EngineLabels>"),
    ("one generic argument", "Family<EngineLabels, Gauge>", "Family<Gauge>"),
    ("`#[metrics]` for the struct's attribute", "#[metric_handles(handles = DemoHandles", "#[metrics(handles = DemoHandles"),
    ("the field attribute on the struct", "#[metric_handles(handles = DemoHandles", "#[metric(handles = DemoHandles"),
    ("positional generator arguments", "exponential(start = 1.0, factor = 2.0, count = 4)", "exponential(1.0, 2.0, 4)"),
    ("a prometheus-client histogram", "Family<EngineLabels, Histogram>,\n        /// Success", "Family<EngineLabels, prometheus_client::metrics::histogram::Histogram>,\n        /// Success"),
    ("a nested axis", "ByPosition<Counter<f64, AtomicU64>>", "ByPosition<ByLabel<FinishReason, Counter>>"),
    ("an f64 gauge with the default atomic", "Family<EngineLabels, Gauge>", "Family<EngineLabels, Gauge<f64>>"),
    ("an enum axis over String", "ByLabel<FinishReason, Counter>", "ByLabel<String, Counter>"),
    ("a float count", "count = 4", "count = 4.0"),
    ("a grid with one axis", "ByLabel<FinishReason, Counter>", "ByLabels<(FinishReason,), Counter>"),
    ("max_series on a plain gauge", "max_label_sets = 4", "max_series = 4"),
    ("help ending in '.'", "/// Running", "/// Running."),
    ("a help attribute ending in '.'", "help = \"Things counted\"", "help = \"Things counted.\""),
    ("no help at all", "/// Linear\n", ""),
    ("buckets not increasing", "buckets = [0.001, 0.01, 1]", "buckets = [1, 0.5, 2]"),
    ("an empty bucket list", "buckets = [0.001, 0.01, 1]", "buckets = []"),
    ("a non-numeric bucket", "buckets = [0.001, 0.01, 1]", "buckets = [0.1, \"1\"]"),
    ("a non-finite bucket", "buckets = [0.001, 0.01, 1]", "buckets = [0.1, 1e999]"),
    ("a negative bucket", "buckets = [0.001, 0.01, 1]", "buckets = [-1.0, 0.01, 1]"),
    ("too many generated buckets", "count = 4", "count = 1000"),
    ("a zero-count generator", "count = 4", "count = 0"),
    ("a generator argument missing", "linear(start = 0, width = 1, count = 3)", "linear(start = 0, count = 3)"),
    ("an unknown generator", "one_two_five(max = 1000)", "one_two_three(max = 1000)"),
    ("buckets on a gauge", "max_label_sets = 4", "max_label_sets = 4, buckets = [1.0]"),
    ("a reserved label `le`", "label = \"finished_reason\"", "label = \"le\""),
    ("a reserved label `quantile`", "label = \"finished_reason\"", "label = \"quantile\""),
    ("a reserved `__` label", "label = \"position\"", "label = \"__position\""),
    ("an invalid label key", "label = \"position\"", "label = \"draft position\""),
    ("positions without a position axis", "name = \"demo:lin\"", "name = \"demo:lin\", positions = 2"),
    ("an alias without deprecated_in", "deprecated_in = \"0.10\"", "deprecated_in_version = \"0.10\""),
    ("an alias named like its metric", "alias(name = \"vllm:old_success\"", "alias(name = \"vllm:request_success\""),
    ("an invalid unit (upper case)", "unit = \"seconds\"", "unit = \"Seconds\""),
    ("a name ending in its unit", "name = \"vllm:ttft\"", "name = \"vllm:ttft_seconds\""),
    ("skip with other keys", "#[metric(skip)]", "#[metric(skip, name = \"x:y\")]"),
    ("a quoted container value", "labels = EngineLabels", "labels = \"EngineLabels\""),
];

/// The first seed with `mistakes` applied, in order (an edit whose text an earlier one
/// replaced does nothing, so at least the first always applies).
fn with_mistakes(mistakes: &[usize]) -> String {
    let mut source = SEEDS[0].to_owned();
    for &i in mistakes {
        let (_, find, replace) = MISTAKES[i % MISTAKES.len()];
        source = source.replacen(find, replace, 1);
    }
    source
}

/// Whether the output makes the compiler report an error: a `compile_error!`, or, for a type
/// the compiler rejects by itself (`Family<Gauge>`), the stubs' `assert_family` check of it,
/// which fails should the compiler accept the type after all.
fn is_compile_error(tokens: &TokenStream) -> bool {
    let mut idents = Vec::new();
    collect_idents(tokens.clone(), &mut idents);
    idents
        .iter()
        .any(|i| i == "compile_error" || i == "assert_family")
}

#[test]
fn every_plausible_mistake_is_a_compile_error() {
    let mut not_errors = Vec::new();
    for (i, (what, find, _)) in MISTAKES.iter().enumerate() {
        assert!(
            SEEDS[0].contains(find) || SEEDS[1].contains(find),
            "{what}: stale edit"
        );
        let source = if SEEDS[0].contains(find) {
            with_mistakes(&[i])
        } else {
            SEEDS[1].replacen(find, MISTAKES[i].2, 1)
        };
        let tokens: TokenStream = source.parse().unwrap_or_default();
        let output = crate::expand::derive(tokens);
        if !is_compile_error(&output) || syn::parse2::<syn::File>(output).is_err() {
            not_errors.push(*what);
        }
    }
    assert!(
        not_errors.is_empty(),
        "not a clean compile error: {not_errors:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(500), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn combined_mistakes_are_compile_errors_never_panics(
        mistakes in prop::collection::vec(0..MISTAKES.len(), 1..5)
    ) {
        let source = with_mistakes(&mistakes);
        // Mistakes on the second seed's text leave the first seed valid: skip those.
        prop_assume!(source != SEEDS[0]);
        let output = crate::expand::derive(source.parse().unwrap_or_default());
        prop_assert!(is_compile_error(&output), "no compile_error for {:?}", mistakes);
        prop_assert!(syn::parse2::<syn::File>(output).is_ok());
    }
}
