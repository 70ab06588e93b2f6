//! Expansion snapshots: what the derives generate for representative inputs, committed as
//! pretty-printed files so that a reviewer sees every change to the generated code in the diff.
//!
//! Each `tests/expand/NAME.rs` holds items carrying `#[derive(MetricHandles)]`,
//! `#[derive(LabelSet)]` or `#[derive(LabelEnum)]`. The test runs the matching expansion on
//! each item and compares the pretty-printed result with `tests/expand/NAME.expanded.rs`.
//! After an intended change to the generated code, regenerate the files and review the diff:
//!
//! ```text
//! UPDATE_EXPANDED=1 cargo test -p metric-handles-derive expand_snapshots
//! ```

use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::ToTokens;

use crate::label_enum::LabelEnum;
use crate::label_impl::LabelDerive;
use crate::label_set::LabelSet;

/// The environment variable that rewrites the snapshots instead of comparing them.
const UPDATE: &str = "UPDATE_EXPANDED";

/// The expansion function of the derive named `name`.
pub fn expander(name: &str) -> Option<fn(TokenStream) -> TokenStream> {
    match name {
        "MetricHandles" => Some(crate::expand::derive),
        "LabelSet" => Some(LabelSet::derive),
        "LabelEnum" => Some(LabelEnum::derive),
        "EncodeLabelSet" => Some(crate::prometheus_derive::encode_label_set),
        "EncodeLabelValue" => Some(crate::prometheus_derive::encode_label_value),
        _ => None,
    }
}

/// The derives named in an item's `#[derive(...)]` attributes, which are removed from the item
/// (the compiler does not pass them to the derive either).
fn take_derives(attrs: &mut Vec<syn::Attribute>) -> Vec<String> {
    let mut names = Vec::new();
    attrs.retain(|attr| {
        if !attr.path().is_ident("derive") {
            return true;
        }
        let _ = attr.parse_nested_meta(|meta| {
            if let Some(ident) = meta.path.get_ident() {
                names.push(ident.to_string());
            }
            Ok(())
        });
        false
    });
    names
}

/// Every item of the source file `input` that carries derives, once for each derive: the
/// derive's name and the item as that derive receives it.
pub fn derive_inputs(input: &str) -> Result<Vec<(String, TokenStream)>, String> {
    let file: syn::File =
        syn::parse_str(input).map_err(|e| format!("input does not parse: {e}"))?;
    let mut inputs = Vec::new();
    for mut item in file.items {
        let attrs = match &mut item {
            syn::Item::Struct(s) => &mut s.attrs,
            syn::Item::Enum(e) => &mut e.attrs,
            _ => continue,
        };
        for name in take_derives(attrs) {
            inputs.push((name, item.to_token_stream()));
        }
    }
    Ok(inputs)
}

/// The pretty-printed expansion of every derive in the source file `input`.
fn expand_file(input: &str) -> Result<String, String> {
    let mut generated = TokenStream::new();
    for (name, item) in derive_inputs(input)? {
        let expand = expander(&name).ok_or(format!("no expansion for `{name}`"))?;
        generated.extend(expand(item));
    }
    let text = generated.to_string();
    if text.contains("compile_error") {
        return Err(format!("the expansion reports an error: {text}"));
    }
    let output: syn::File =
        syn::parse2(generated).map_err(|e| format!("the expansion does not parse: {e}"))?;
    Ok(prettyplease::unparse(&output))
}

/// The 1-based number of the first line where `committed` and `expanded` differ, if they do.
fn first_difference(committed: &str, expanded: &str) -> Option<usize> {
    if committed == expanded {
        return None;
    }
    let (a, b): (Vec<&str>, Vec<&str>) = (committed.lines().collect(), expanded.lines().collect());
    let same = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    Some(same + 1)
}

/// The snapshot inputs, `tests/expand/*.rs`.
pub fn snapshot_inputs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
    let mut inputs: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.ends_with(".rs") && !name.ends_with(".expanded.rs")
        })
        .collect();
    inputs.sort();
    inputs
}

#[test]
fn expand_snapshots() {
    let update = std::env::var_os(UPDATE).is_some();
    let inputs = snapshot_inputs();
    assert!(
        inputs.len() >= 5,
        "expected the snapshot inputs in tests/expand"
    );
    let mut stale = Vec::new();
    for input in inputs {
        let source = fs::read_to_string(&input).expect("read snapshot input");
        let expanded = expand_file(&source).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
        let snapshot = input.with_extension("expanded.rs");
        if update {
            fs::write(&snapshot, &expanded).expect("write snapshot");
            continue;
        }
        match fs::read_to_string(&snapshot) {
            Ok(committed) => {
                if let Some(line) = first_difference(&committed, &expanded) {
                    stale.push(format!(
                        "{} (first difference at line {line})",
                        snapshot.display()
                    ));
                }
            }
            Err(_) => stale.push(format!("{} (missing)", snapshot.display())),
        }
    }
    assert!(
        stale.is_empty(),
        "the generated code changed; review it, then regenerate with `{UPDATE}=1 cargo test -p \
         metric-handles-derive expand_snapshots`:\n  {}",
        stale.join("\n  ")
    );
}

#[test]
fn an_edited_input_shows_in_the_snapshot() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
    let source = fs::read_to_string(dir.join("aliases.rs")).expect("read snapshot input");
    let expanded = expand_file(&source).expect("expands");
    let edited = source.replace("num_preemptions_old", "num_preemptions_older");
    let edited = expand_file(&edited).expect("expands");
    let line = first_difference(&expanded, &edited).expect("the edit must change the expansion");
    assert!(edited
        .lines()
        .nth(line - 1)
        .is_some_and(|l| l.contains("num_preemptions_older")));
    assert_eq!(first_difference(&expanded, &expanded), None);
}
