//! The name the calling crate gives the runtime crate in its `Cargo.toml`.
//!
//! The generated code names the runtime `::metric_handles`. A crate that renames the dependency
//! (`mh = { package = "metric-handles", ... }`) would otherwise get one unresolved-path error per
//! generated path, none of which says what to do; reading the manifest lets the derive use
//! `::mh` instead. Only a rename declared in the crate's own manifest is recognised; anything
//! else (a re-export through another crate) still takes `crate = path`.

use std::path::Path;

/// The runtime's package name.
const PACKAGE: &str = "metric-handles";

/// The runtime's path when no `crate = ...` is given: `::metric_handles`, or `::name` when the
/// crate's manifest renames the dependency.
pub fn default_path() -> proc_macro2::TokenStream {
    match renamed_runtime() {
        Some(name) => match syn::parse_str::<syn::Ident>(&name) {
            Ok(ident) => quote::quote!(::#ident),
            Err(_) => quote::quote!(::metric_handles),
        },
        None => quote::quote!(::metric_handles),
    }
}

/// Whether the derive is expanding inside the runtime crate itself (its own label sets and
/// enums: vLLM's, the HTTP families'), whose impls the compiler should not offer a user as
/// "other types that implement `LabelSet`".
pub fn in_runtime_crate() -> bool {
    std::env::var("CARGO_PKG_NAME").is_ok_and(|name| name == PACKAGE)
        && std::env::var("CARGO_CRATE_NAME").is_ok_and(|name| name == "metric_handles")
}

/// `Some(name)` when the manifest in `CARGO_MANIFEST_DIR` depends on the runtime only under
/// another name; `None` when it uses the default name, or cannot be read.
pub fn renamed_runtime() -> Option<String> {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")?;
    let text = std::fs::read_to_string(Path::new(&dir).join("Cargo.toml")).ok()?;
    renamed_in(&text)
}

/// The rename in a manifest's text, if the runtime is only depended on under another name.
fn renamed_in(manifest: &str) -> Option<String> {
    let mut table = String::new();
    let mut renamed = None;
    for line in manifest.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if let Some(header) = line.strip_prefix('[') {
            table = header.trim_end_matches(']').trim().to_owned();
            // `[dependencies.mh]` then `package = "metric-handles"` on a later line.
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let (key, value) = (key.trim().trim_matches('"'), value.trim());
        if in_dependency_table(&table) {
            if key == PACKAGE || key == "metric_handles" {
                return None;
            }
            if value.starts_with('{') && names_package(value) {
                renamed.get_or_insert_with(|| key.to_owned());
            }
        } else if let Some(dependency) = dependency_subtable(&table) {
            if key == "package" && value.trim_matches('"') == PACKAGE {
                if dependency == PACKAGE {
                    return None;
                }
                renamed.get_or_insert_with(|| dependency.to_owned());
            }
        }
    }
    renamed.map(|name| name.replace('-', "_"))
}

fn in_dependency_table(table: &str) -> bool {
    ["dependencies", "dev-dependencies", "build-dependencies"]
        .iter()
        .any(|kind| table == *kind || table.ends_with(&format!(".{kind}")))
}

/// `dependencies.mh` (or a target's) → `mh`.
fn dependency_subtable(table: &str) -> Option<&str> {
    ["dependencies.", "dev-dependencies.", "build-dependencies."]
        .iter()
        .find_map(|kind| {
            let at = table.find(kind)?;
            (at == 0 || table[..at].ends_with('.')).then(|| &table[at + kind.len()..])
        })
        .map(|name| name.trim_matches('"'))
}

/// Whether an inline table names the runtime as its `package`.
fn names_package(inline: &str) -> bool {
    inline
        .trim_matches(|c| c == '{' || c == '}')
        .split(',')
        .filter_map(|entry| entry.split_once('='))
        .any(|(k, v)| k.trim() == "package" && v.trim().trim_matches('"') == PACKAGE)
}

#[cfg(test)]
mod tests {
    use super::renamed_in;

    #[test]
    fn finds_a_rename_in_either_table_form() {
        let inline = "[package]\nname = \"app\"\n\n[dependencies]\nmh = { package = \"metric-handles\", version = \"0.1\" }\n";
        assert_eq!(renamed_in(inline).as_deref(), Some("mh"));
        let table = "[dependencies.my-metrics]\npackage = \"metric-handles\"\nversion = \"0.1\"\n";
        assert_eq!(renamed_in(table).as_deref(), Some("my_metrics"));
        let target = "[target.'cfg(unix)'.dependencies]\nmh = { package = \"metric-handles\" }\n";
        assert_eq!(renamed_in(target).as_deref(), Some("mh"));
    }

    #[test]
    fn the_default_name_wins_and_other_packages_are_ignored() {
        let plain =
            "[dependencies]\nmetric-handles = \"0.1\"\nmh = { package = \"metric-handles\" }\n";
        assert_eq!(renamed_in(plain), None);
        let workspace = "[dependencies]\nmetric-handles.workspace = true\n";
        assert_eq!(renamed_in(workspace), None);
        let other = "[dependencies]\npc = { package = \"prometheus-client\" }\n# mh = { package = \"metric-handles\" }\n";
        assert_eq!(renamed_in(other), None);
        let runtime_itself = "[package]\nname = \"metric-handles\"\n[dependencies]\nmetric-handles-derive = { path = \"../metrics-derive\" }\n";
        assert_eq!(renamed_in(runtime_itself), None);
    }
}
