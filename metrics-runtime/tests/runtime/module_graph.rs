//! The import graph of the crate's own modules: no cycle, and no module importing an item of a
//! module that contains it.
//!
//! The graph is read from the source text: the module tree from the `mod` items of `src/lib.rs`
//! down (`#[path]` included, `#[cfg(test)]` modules left out), and an arrow from a module to the
//! module that *defines* each item it names by a `crate::`, `super::` or `self::` path or by a
//! relative `use`. A path through a re-export (`crate::Counter`, `crate::vllm::VllmMetrics`) is
//! followed to the module defining the item, so importing through a facade is no arrow to the
//! facade, and a cycle cannot hide behind the crate root. Doc links and other comments, and
//! string literals, are not read.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

#[test]
fn the_crate_s_modules_import_no_cycle_and_no_parent() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let crate_graph = Graph::read(&src);
    assert!(
        crate_graph.modules.len() > 40,
        "the module tree was not read: {:?}",
        crate_graph
            .modules
            .iter()
            .map(|m| m.name())
            .collect::<Vec<_>>()
    );
    let problems = crate_graph.problems();
    let new: Vec<&String> = problems
        .iter()
        .filter(|p| !BEING_REMOVED.iter().any(|known| p.starts_with(known)))
        .collect();
    let gone: Vec<&&str> = BEING_REMOVED
        .iter()
        .filter(|known| !problems.iter().any(|p| p.starts_with(*known)))
        .collect();
    assert!(
        new.is_empty(),
        "import cycles or imports of a parent:\n{}",
        new.iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        gone.is_empty(),
        "remove from BEING_REMOVED, it is fixed: {gone:?}"
    );
}

/// Problems known and being removed, by the start of their message; the test fails when one
/// is fixed and still listed, so the list only shrinks.
const BEING_REMOVED: [&str; 0] = [];

#[test]
fn the_check_sees_a_cycle_through_a_re_export_and_an_import_of_a_parent() {
    let dir = std::env::temp_dir().join(format!("module_graph_{}", std::process::id()));
    let write = |path: &str, text: &str| {
        let path = dir.join(path);
        fs::create_dir_all(path.parent().expect("has a parent")).expect("creates the folder");
        fs::write(path, text).expect("writes the file");
    };
    // a -> b through the root's re-export, b -> a directly; c/d imports c's own item; the
    // rooms x and y import each other through different files; m and n import each other,
    // n through the macro m exports at the crate root.
    write(
        "lib.rs",
        "mod a; mod b; mod c; mod m; mod n; mod x; mod y;\npub use b::B;\n#[cfg(test)]\nmod tests;\n",
    );
    write(
        "m.rs",
        "#[macro_export]\nmacro_rules! made_in_m { () => {} }\nfn f(_: crate::n::N) {}\n",
    );
    write("n.rs", "pub struct N;\ncrate::made_in_m! {}\n");
    write(
        "a.rs",
        "use crate::B;\npub struct A;\n// crate::c::C in a comment is no import\n",
    );
    write("b.rs", "pub struct B(crate::a::A);\n");
    write("c/mod.rs", "mod d;\npub struct C;\npub use d::D;\n");
    write(
        "c/d.rs",
        "pub struct D(super::C);\nconst S: &str = \"crate::a::A\";\n",
    );
    write("tests.rs", "use crate::a::A;\n");
    write("x/mod.rs", "mod p;\nmod s;\n");
    write("x/p.rs", "use crate::y::q::Q;\n");
    write("x/s.rs", "pub struct S;\n");
    write("y/mod.rs", "pub(crate) mod q;\nmod r;\n");
    write("y/q.rs", "pub struct Q;\n");
    write("y/r.rs", "fn f(_: crate::x::s::S) {}\n");
    let problems = Graph::read(&dir).problems();
    fs::remove_dir_all(&dir).expect("removes the folder");
    assert_eq!(
        problems,
        [
            "c::d imports its parent c: super::C",
            "import cycle: a -> b -> a (a -> b: a names crate::B; b -> a: b names crate::a::A)",
            "import cycle: m -> n -> m (m -> n: m names crate::n::N; n -> m: n names crate::made_in_m)",
            "import cycle: x -> y -> x (x -> y: x::p names crate::y::q::Q; y -> x: y::r names crate::x::s::S)",
        ]
    );
}

/// `vllm` is written as any user's code would be: it names nothing of the crate that another
/// crate could not name (a private module, a `pub(crate)` item, a `#[doc(hidden)]` one). The
/// check reads imports and paths, so a `pub(crate)` method called on a public type is not seen.
#[test]
fn vllm_names_only_the_public_api() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let private = Graph::read(&src).private_imports_of("vllm");
    assert!(
        private.is_empty(),
        "vllm names what no other crate can (use the public API, or make the seam a designed \
         public one):\n{}",
        private.join("\n")
    );
}

#[test]
fn the_public_check_sees_private_modules_restricted_and_hidden_items() {
    let dir = std::env::temp_dir().join(format!("module_public_{}", std::process::id()));
    let write = |path: &str, text: &str| {
        let path = dir.join(path);
        fs::create_dir_all(path.parent().expect("has a parent")).expect("creates the folder");
        fs::write(path, text).expect("writes the file");
    };
    write(
        "lib.rs",
        "pub mod open;\nmod shut;\npub mod v;\npub use shut::Shown;\n#[doc(hidden)]\npub mod hidden;\n\
         #[macro_export]\nmacro_rules! public_macro { () => {} }\n#[doc(hidden)]\n#[macro_export]\n\
         macro_rules! hidden_macro { () => {} }\n",
    );
    write(
        "open/mod.rs",
        "pub struct A;\npub(crate) struct B;\npub mod inner;\nmod closed;\npub use closed::C;\n",
    );
    write("open/inner.rs", "pub fn f() {}\n");
    write("open/closed.rs", "pub struct C;\npub struct D;\n");
    write("shut.rs", "pub struct Shown;\npub struct S;\n");
    write("hidden.rs", "pub struct H;\n");
    write(
        "v.rs",
        "use crate::open::{A, B};\nuse crate::open::inner::f;\nuse crate::open::C;\n\
         use crate::open::closed::D;\nuse crate::shut::S;\nuse crate::Shown;\n\
         fn g(_: crate::hidden::H) { crate::public_macro!(); crate::hidden_macro!(); }\n",
    );
    let private = Graph::read(&dir).private_imports_of("v");
    fs::remove_dir_all(&dir).expect("removes the folder");
    assert_eq!(
        private,
        [
            "v names crate::hidden::H",
            "v names crate::hidden_macro",
            "v names crate::open::B",
            "v names crate::open::closed::D",
            "v names crate::shut::S",
        ]
    );
}

/// This crate's derives: their expansion names `::metric_handles::__private`.
const DERIVES: [&str; 3] = ["MetricHandles", "LabelSet", "LabelEnum"];

/// One module: its place in the tree, what it declares, and the paths it names.
struct Module {
    /// The path from the crate root (`[]` for the root).
    path: Vec<String>,
    parent: Option<usize>,
    /// The module of the file this one is written in: itself, or for an inline `mod x { ... }`
    /// the module around it. Arrows join files: an inline module is part of its file.
    file: usize,
    children: HashMap<String, usize>,
    /// `use` items: the name they bind, and the path (as written, relative to this module).
    imports: HashMap<String, Vec<String>>,
    /// `use path::*` items.
    globs: Vec<Vec<String>>,
    /// Every path the module names (use items and paths in code), as written.
    named: Vec<Vec<String>>,
    /// Declared `pub mod` (no restriction, not `#[doc(hidden)]`); the root is.
    public: bool,
    /// The names this module makes public: its `pub` items and `pub use` bindings (no
    /// restriction, not `#[doc(hidden)]`).
    public_names: HashSet<String>,
}

impl Module {
    fn name(&self) -> String {
        if self.path.is_empty() {
            "crate".to_owned()
        } else {
            self.path.join("::")
        }
    }
}

struct Graph {
    modules: Vec<Module>,
    /// `#[macro_export] macro_rules! name`: `crate::name`, defined in the module that writes it.
    exported_macros: HashMap<String, usize>,
    /// The exported macros that are not `#[doc(hidden)]`.
    public_macros: HashSet<String>,
}

impl Graph {
    fn read(src: &Path) -> Graph {
        let mut graph = Graph {
            modules: Vec::new(),
            exported_macros: HashMap::new(),
            public_macros: HashSet::new(),
        };
        let tokens = tokenize(&read(&src.join("lib.rs")));
        graph.add_module(
            Vec::new(),
            None,
            &tokens,
            src.to_path_buf(),
            (true, false, true),
        );
        graph
    }

    /// Adds a module from its tokens; `dir` is where its `mod name;` children are looked for.
    /// The flags: whether the module owns `dir` (a `mod.rs`), is written inline in its
    /// parent's file, and is public (`pub mod` all the way from the root).
    fn add_module(
        &mut self,
        path: Vec<String>,
        parent: Option<usize>,
        tokens: &[Token],
        dir: PathBuf,
        (owns_dir, inline, public): (bool, bool, bool),
    ) -> usize {
        let id = self.modules.len();
        let file = match parent {
            Some(parent) if inline => self.modules[parent].file,
            _ => id,
        };
        self.modules.push(Module {
            path: path.clone(),
            parent,
            file,
            children: HashMap::new(),
            imports: HashMap::new(),
            globs: Vec::new(),
            named: Vec::new(),
            public,
            public_names: HashSet::new(),
        });
        let mut i = 0;
        let mut attributes: Vec<Token> = Vec::new();
        // The visibility of the item being read: `Some(true)` after an unrestricted `pub`.
        let mut visibility: Option<bool> = None;
        while i < tokens.len() {
            match &tokens[i] {
                Token::Punct('#') if tokens.get(i + 1) == Some(&Token::Punct('[')) => {
                    let end = matching(tokens, i + 1);
                    let attribute = &tokens[i + 2..end];
                    // The derives' generated code names `::metric_handles::__private`.
                    if attribute.first() == Some(&Token::Ident("derive".into()))
                        && attribute
                            .iter()
                            .any(|t| matches!(t, Token::Ident(d) if DERIVES.contains(&d.as_str())))
                    {
                        self.modules[id]
                            .named
                            .push(vec!["crate".into(), "__private".into()]);
                    }
                    attributes.extend_from_slice(attribute);
                    i = end + 1;
                    continue;
                }
                Token::Ident(word) if word == "pub" => {
                    if tokens.get(i + 1) == Some(&Token::Punct('(')) {
                        visibility = Some(false);
                        i = matching(tokens, i + 1) + 1;
                    } else {
                        visibility = Some(!is_hidden(&attributes));
                        i += 1;
                    }
                    continue;
                }
                Token::Ident(word)
                    if visibility == Some(true)
                        && matches!(
                            word.as_str(),
                            "struct" | "enum" | "trait" | "fn" | "const" | "static" | "type"
                        )
                        && matches!(tokens.get(i + 1), Some(Token::Ident(_))) =>
                {
                    // `pub const fn name`: the name follows `fn`.
                    if let Some(Token::Ident(name)) = tokens
                        .get(i + 1)
                        .filter(|t| **t != Token::Ident("fn".into()))
                    {
                        self.modules[id].public_names.insert(name.clone());
                        visibility = None;
                    }
                    i += 1;
                    continue;
                }
                Token::Ident(word) if word == "mod" => {
                    let Some(Token::Ident(name)) = tokens.get(i + 1) else {
                        i += 1;
                        continue;
                    };
                    // `#[cfg(test)]`, `#[cfg(all(test, ...))]`: test code, left out.
                    let is_test = attributes.first() == Some(&Token::Ident("cfg".into()))
                        && attributes.contains(&Token::Ident("test".into()))
                        && !attributes.contains(&Token::Ident("not".into()));
                    let file_attr = attributes.windows(3).find_map(|w| match w {
                        [Token::Ident(k), Token::Punct('='), Token::Str(v)] if k == "path" => {
                            Some(v.clone())
                        }
                        _ => None,
                    });
                    let child_public = public && visibility == Some(true);
                    if child_public {
                        self.modules[id].public_names.insert(name.clone());
                    }
                    visibility = None;
                    let mut child_path = path.clone();
                    child_path.push(name.clone());
                    let child_dir = if owns_dir {
                        dir.clone()
                    } else {
                        dir.join(path.last().expect("a non-root module has a name"))
                    };
                    match tokens.get(i + 2) {
                        Some(Token::Punct('{')) => {
                            let end = matching(tokens, i + 2);
                            if !is_test {
                                let child = self.add_module(
                                    child_path,
                                    Some(id),
                                    &tokens[i + 3..end],
                                    child_dir.join(name),
                                    (true, true, child_public),
                                );
                                self.modules[id].children.insert(name.clone(), child);
                            }
                            i = end + 1;
                        }
                        _ => {
                            if !is_test {
                                // `#[path]` is relative to this file's folder, and the file
                                // it names holds its children's folder, as a `mod.rs` does.
                                let (file, owns) = match file_attr {
                                    Some(file) => (dir.join(file), true),
                                    None if child_dir.join(format!("{name}.rs")).exists() => {
                                        (child_dir.join(format!("{name}.rs")), false)
                                    }
                                    None => (child_dir.join(name).join("mod.rs"), true),
                                };
                                let child_tokens = tokenize(&read(&file));
                                let folder = file.parent().expect("a file has a folder");
                                let child = self.add_module(
                                    child_path,
                                    Some(id),
                                    &child_tokens,
                                    folder.to_path_buf(),
                                    (owns, false, child_public),
                                );
                                self.modules[id].children.insert(name.clone(), child);
                            }
                            i += 2;
                        }
                    }
                    attributes.clear();
                    continue;
                }
                Token::Ident(word)
                    if word == "macro_rules"
                        && attributes.contains(&Token::Ident("macro_export".into())) =>
                {
                    if let Some(Token::Ident(name)) = tokens.get(i + 2) {
                        self.exported_macros.insert(name.clone(), id);
                        if !is_hidden(&attributes) {
                            self.public_macros.insert(name.clone());
                        }
                    }
                    i += 1;
                }
                Token::Ident(word) if word == "use" => {
                    let end = (i..tokens.len())
                        .find(|&j| tokens[j] == Token::Punct(';'))
                        .unwrap_or(tokens.len());
                    let mut leaves = Vec::new();
                    use_tree(&tokens[i + 1..end], Vec::new(), &mut leaves);
                    let module = &mut self.modules[id];
                    let public_use = visibility == Some(true);
                    visibility = None;
                    for (binding, target) in leaves {
                        match binding {
                            Binding::Name(name) => {
                                if public_use {
                                    module.public_names.insert(name.clone());
                                }
                                module.imports.insert(name, target.clone());
                            }
                            Binding::Glob => module.globs.push(target.clone()),
                        }
                        module.named.push(target);
                    }
                    i = end + 1;
                }
                Token::Ident(word)
                    if matches!(word.as_str(), "crate" | "super" | "self" | "metric_handles")
                        && tokens.get(i + 1) == Some(&Token::PathSep)
                        && (i == 0 || tokens[i - 1] != Token::Punct('$')) =>
                {
                    // `metric_handles` is the crate itself (`extern crate self as metric_handles`).
                    let first = if word == "metric_handles" {
                        "crate"
                    } else {
                        word
                    };
                    let mut named = vec![first.to_owned()];
                    let mut j = i + 1;
                    while tokens.get(j) == Some(&Token::PathSep) {
                        match tokens.get(j + 1) {
                            Some(Token::Ident(segment)) => named.push(segment.clone()),
                            _ => break,
                        }
                        j += 2;
                    }
                    self.modules[id].named.push(named);
                    i = j;
                }
                // An item's attributes end with it (at its body or its `;`).
                Token::Punct(';' | '{' | '}') => {
                    attributes.clear();
                    visibility = None;
                    i += 1;
                }
                _ => i += 1,
            }
        }
        id
    }

    /// The module that defines what `named` (as written in `from`) names, if it is this crate's.
    fn defining_module(&self, from: usize, named: &[String], depth: usize) -> Option<usize> {
        if depth > 32 {
            return None;
        }
        let (mut current, mut rest) = match named.first().map(String::as_str) {
            Some("crate" | "metric_handles") => (0, &named[1..]),
            Some("self") => (from, &named[1..]),
            Some("super") => {
                let mut current = from;
                let mut rest = named;
                while rest.first().map(String::as_str) == Some("super") {
                    current = self.modules[current].parent?;
                    rest = &rest[1..];
                }
                (current, rest)
            }
            Some(first) => {
                let module = &self.modules[from];
                if module.children.contains_key(first) || module.imports.contains_key(first) {
                    (from, named)
                } else {
                    return None; // another crate's, or the prelude's
                }
            }
            None => return None,
        };
        while let Some((segment, tail)) = rest.split_first() {
            let module = &self.modules[current];
            if let Some(&child) = module.children.get(segment) {
                current = child;
                rest = tail;
            } else if let Some(target) = module.imports.get(segment) {
                if target.last() == Some(segment) && target.len() == 1 {
                    return None; // `use prometheus_client;`: another crate
                }
                let mut through: Vec<String> = target.clone();
                through.extend_from_slice(tail);
                return self.defining_module(current, &through, depth + 1);
            } else if let Some(&defining) = self
                .exported_macros
                .get(segment)
                .filter(|_| current == 0 && tail.is_empty())
            {
                return Some(defining);
            } else {
                let found = module.globs.iter().find_map(|glob| {
                    let mut through = glob.clone();
                    through.push(segment.clone());
                    let target = self.defining_module(current, glob, depth + 1)?;
                    let module = &self.modules[target];
                    (module.children.contains_key(segment) || module.imports.contains_key(segment))
                        .then(|| {
                            through.extend_from_slice(tail);
                            self.defining_module(current, &through, depth + 1)
                        })
                        .flatten()
                });
                return Some(found.unwrap_or(current));
            }
        }
        Some(current)
    }

    /// Each module's arrows: the modules it imports from, with one path naming each.
    fn arrows(&self) -> BTreeMap<usize, BTreeMap<usize, String>> {
        let mut arrows: BTreeMap<usize, BTreeMap<usize, String>> = BTreeMap::new();
        for (id, module) in self.modules.iter().enumerate() {
            for named in &module.named {
                let Some(target) = self.defining_module(id, named, 0) else {
                    continue;
                };
                let (from, to) = (module.file, self.modules[target].file);
                if from != to {
                    arrows
                        .entry(from)
                        .or_default()
                        .entry(to)
                        .or_insert_with(|| named.join("::"));
                }
            }
        }
        arrows
    }

    /// The file-level arrows seen from the modules that hold their two ends side by side:
    /// `record::counter -> series::member` is `record -> series` (two rooms of the crate
    /// root), `record::local -> record::counter` is itself. An arrow from a module to one inside
    /// it is no arrow between rooms. A cycle here is a cycle between modules at some level.
    fn side_by_side(
        &self,
        arrows: &BTreeMap<usize, BTreeMap<usize, String>>,
    ) -> BTreeMap<usize, BTreeMap<usize, String>> {
        let by_path: HashMap<&[String], usize> = self
            .modules
            .iter()
            .enumerate()
            .map(|(id, module)| (module.path.as_slice(), id))
            .collect();
        let mut side_by_side: BTreeMap<usize, BTreeMap<usize, String>> = BTreeMap::new();
        for (&from, targets) in arrows {
            for (&to, named) in targets {
                let (a, b) = (&self.modules[from].path, &self.modules[to].path);
                let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
                if common == a.len() || common == b.len() {
                    continue; // into a module of its own, or into a parent (reported apart)
                }
                let (room_a, room_b) = (by_path[&a[..=common]], by_path[&b[..=common]]);
                side_by_side
                    .entry(room_a)
                    .or_default()
                    .entry(room_b)
                    .or_insert_with(|| format!("{} names {named}", self.modules[from].name()));
            }
        }
        side_by_side
    }

    /// Whether `named` (a path from the crate root) reaches an item through public modules
    /// and public items only, as another crate could name it.
    fn is_public(&self, named: &[String]) -> bool {
        let mut current = 0;
        let mut rest = &named[1..];
        while let Some((segment, tail)) = rest.split_first() {
            let module = &self.modules[current];
            if let Some(&child) = module.children.get(segment) {
                if !self.modules[child].public {
                    return false;
                }
                current = child;
                rest = tail;
            } else if current == 0 && tail.is_empty() && self.exported_macros.contains_key(segment)
            {
                return self.public_macros.contains(segment);
            } else if !module.public_names.contains(segment) {
                return false;
            } else if let Some(target) = module.imports.get(segment).filter(|_| !tail.is_empty()) {
                // A public re-export with more path after it: follow it.
                let Some(target) = self.defining_module(current, target, 0) else {
                    return true;
                };
                if !self.modules[target]
                    .path
                    .starts_with(&self.modules[current].path)
                {
                    let mut through = vec!["crate".to_owned()];
                    through.extend(self.modules[target].path.iter().cloned());
                    through.extend_from_slice(tail);
                    return self.is_public(&through);
                }
                return true;
            } else {
                return true; // a public item (anything after it is its associated items)
            }
        }
        self.modules[current].public
    }

    /// The paths modules inside `room` name outside it that another crate could not name:
    /// `room` is written as a user's code would be, on the public API alone. (The derives'
    /// generated code is left out: it is the same for every user.)
    fn private_imports_of(&self, room: &str) -> Vec<String> {
        let mut found = BTreeSet::new();
        for (id, module) in self.modules.iter().enumerate() {
            if module.path.first().map(String::as_str) != Some(room) {
                continue;
            }
            for named in &module.named {
                if named.as_slice() == ["crate", "__private"] {
                    continue;
                }
                let Some(target) = self.defining_module(id, named, 0) else {
                    continue;
                };
                if self.modules[target].path.first().map(String::as_str) == Some(room) {
                    continue;
                }
                let absolute = self.absolute(id, named);
                if !self.is_public(&absolute) {
                    found.insert(format!("{} names {}", module.name(), absolute.join("::")));
                }
            }
        }
        found.into_iter().collect()
    }

    /// `named`, as written in `from`, from the crate root: `super::` and imported first
    /// segments resolved to the path they stand for.
    fn absolute(&self, from: usize, named: &[String]) -> Vec<String> {
        match named.first().map(String::as_str) {
            Some("crate" | "metric_handles") => {
                let mut path = vec!["crate".to_owned()];
                path.extend_from_slice(&named[1..]);
                path
            }
            Some("self" | "super") => {
                let mut current = from;
                let mut rest = &named[1..];
                if named[0] == "super" {
                    current = self.modules[current].parent.unwrap_or(0);
                }
                while rest.first().map(String::as_str) == Some("super") {
                    current = self.modules[current].parent.unwrap_or(0);
                    rest = &rest[1..];
                }
                let mut path = vec!["crate".to_owned()];
                path.extend(self.modules[current].path.iter().cloned());
                path.extend_from_slice(rest);
                path
            }
            Some(first) => match self.modules[from].imports.get(first) {
                Some(target) => {
                    let mut through = target.clone();
                    through.extend_from_slice(&named[1..]);
                    self.absolute(from, &through)
                }
                None => {
                    let mut path = vec!["crate".to_owned()];
                    path.extend(self.modules[from].path.iter().cloned());
                    path.extend_from_slice(named);
                    path
                }
            },
            None => vec!["crate".to_owned()],
        }
    }

    fn is_ancestor(&self, ancestor: usize, mut of: usize) -> bool {
        while let Some(parent) = self.modules[of].parent {
            if parent == ancestor {
                return true;
            }
            of = parent;
        }
        false
    }

    /// Every import of a parent, then every cycle (one per set of modules that reach each other).
    fn problems(&self) -> Vec<String> {
        let arrows = self.arrows();
        let mut problems = Vec::new();
        for (&from, targets) in &arrows {
            for (&to, named) in targets {
                if self.is_ancestor(to, from) {
                    problems.push(format!(
                        "{} imports its parent {}: {named}",
                        self.modules[from].name(),
                        self.modules[to].name()
                    ));
                }
            }
        }
        let rooms = self.side_by_side(&arrows);
        for (set, cycle) in cycles(self.modules.len(), &rooms) {
            let steps: Vec<String> = cycle
                .windows(2)
                .map(|pair| {
                    format!(
                        "{} -> {}: {}",
                        self.modules[pair[0]].name(),
                        self.modules[pair[1]].name(),
                        rooms[&pair[0]][&pair[1]]
                    )
                })
                .collect();
            let names: Vec<String> = cycle.iter().map(|&m| self.modules[m].name()).collect();
            let mut problem = format!(
                "import cycle: {} ({})",
                names.join(" -> "),
                steps.join("; ")
            );
            if set.len() + 1 > cycle.len() {
                let all: Vec<String> = set.iter().map(|&m| self.modules[m].name()).collect();
                problem.push_str(&format!(", one of the cycles among [{}]", all.join(", ")));
            }
            problems.push(problem);
        }
        problems
    }
}

/// One cycle (first module repeated at the end) through each set of modules that reach each
/// other, found by a breadth-first search back to the set's smallest module.
fn cycles(
    count: usize,
    arrows: &BTreeMap<usize, BTreeMap<usize, String>>,
) -> Vec<(BTreeSet<usize>, Vec<usize>)> {
    let next = |m: usize| arrows.get(&m).into_iter().flat_map(|t| t.keys().copied());
    let reach = |from: usize| {
        let mut seen = BTreeSet::from([from]);
        let mut stack = vec![from];
        while let Some(m) = stack.pop() {
            for n in next(m) {
                if seen.insert(n) {
                    stack.push(n);
                }
            }
        }
        seen
    };
    let reaches: Vec<BTreeSet<usize>> = (0..count).map(reach).collect();
    let mut done = BTreeSet::new();
    let mut found = Vec::new();
    for start in 0..count {
        if done.contains(&start) {
            continue;
        }
        let set: BTreeSet<usize> = (0..count)
            .filter(|&m| m != start && reaches[start].contains(&m) && reaches[m].contains(&start))
            .collect();
        if set.is_empty() {
            continue;
        }
        done.extend(set.iter().copied());
        let mut set = set;
        set.insert(start);
        // The shortest way from `start` back to itself.
        let mut came_from: HashMap<usize, usize> = HashMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        'search: while let Some(m) = queue.pop_front() {
            for n in next(m) {
                if n == start {
                    let mut cycle = vec![m];
                    let mut at = m;
                    while at != start {
                        at = came_from[&at];
                        cycle.push(at);
                    }
                    cycle.reverse();
                    cycle.push(start);
                    found.push((set.clone(), cycle));
                    break 'search;
                }
                if set.contains(&n) && !came_from.contains_key(&n) {
                    came_from.insert(n, m);
                    queue.push_back(n);
                }
            }
        }
    }
    found
}

/// `#[doc(hidden)]` among an item's attributes.
fn is_hidden(attributes: &[Token]) -> bool {
    attributes.windows(3).any(|w| {
        w[0] == Token::Ident("doc".into())
            && w[1] == Token::Punct('(')
            && w[2] == Token::Ident("hidden".into())
    })
}

enum Binding {
    Name(String),
    Glob,
}

/// The leaves of a `use` tree: `a::{b, c::d as e, f::*}` is `b`, `e` and a glob.
fn use_tree(tokens: &[Token], prefix: Vec<String>, leaves: &mut Vec<(Binding, Vec<String>)>) {
    let mut path = prefix;
    let mut i = 0;
    // A leading `::` (another crate) has nothing of ours.
    if tokens.first() == Some(&Token::PathSep) {
        return;
    }
    while i < tokens.len() {
        match &tokens[i] {
            Token::Ident(word) if word == "as" => {
                if let Some(Token::Ident(name)) = tokens.get(i + 1) {
                    if name != "_" {
                        leaves.push((Binding::Name(name.clone()), path.clone()));
                    }
                }
                return;
            }
            Token::Ident(word) => {
                path.push(word.clone());
                i += 1;
            }
            Token::PathSep => i += 1,
            Token::Punct('*') => {
                leaves.push((Binding::Glob, path));
                return;
            }
            Token::Punct('{') => {
                let end = matching(tokens, i);
                let mut start = i + 1;
                let mut depth = 0;
                for j in i + 1..=end {
                    match tokens[j] {
                        Token::Punct('{') => depth += 1,
                        Token::Punct('}') if depth > 0 => depth -= 1,
                        Token::Punct(',') | Token::Punct('}') if depth == 0 => {
                            if start < j {
                                use_tree(&tokens[start..j], path.clone(), leaves);
                            }
                            start = j + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
            _ => return, // `pub use` visibility was consumed before; anything else ends it
        }
    }
    match path.last().map(String::as_str) {
        Some("self") => {
            path.pop();
            if let Some(name) = path.last().cloned() {
                leaves.push((Binding::Name(name), path));
            }
        }
        Some(name) => leaves.push((Binding::Name(name.to_owned()), path.clone())),
        None => {}
    }
}

/// The index of the bracket closing the one at `open`.
fn matching(tokens: &[Token], open: usize) -> usize {
    let mut depth = 0;
    for (i, token) in tokens.iter().enumerate().skip(open) {
        match token {
            Token::Punct('(' | '[' | '{') => depth += 1,
            Token::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    tokens.len() - 1
}

fn read(file: &Path) -> String {
    fs::read_to_string(file).unwrap_or_else(|e| panic!("reading {}: {e}", file.display()))
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    /// `::`
    PathSep,
    /// A string literal's contents (read only in `#[path = "..."]`).
    Str(String),
    Punct(char),
}

/// Identifiers, `::`, string literals and single punctuation; comments and character literals
/// are dropped, lifetimes are not mistaken for character literals.
fn tokenize(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' || (c == 'b' && next == Some('"')) {
            i += if c == 'b' { 2 } else { 1 };
            let mut value = String::new();
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                value.push(chars[i]);
                i += 1;
            }
            tokens.push(Token::Str(value));
            i += 1;
        } else if (c == 'r' || c == 'b')
            && matches!(next, Some('#') | Some('"') | Some('r'))
            && raw_string_start(&chars, i).is_some()
        {
            let (hashes, body) = raw_string_start(&chars, i).expect("checked");
            let close: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let mut j = body;
            while j < chars.len() && !chars[j..].starts_with(&close) {
                j += 1;
            }
            tokens.push(Token::Str(chars[body..j].iter().collect()));
            i = j + close.len();
        } else if c == '\'' {
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1; // a lifetime: its name follows as an identifier
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let word = word.strip_prefix("r#").map(str::to_owned).unwrap_or(word);
            tokens.push(Token::Ident(word));
        } else if c == ':' && next == Some(':') {
            tokens.push(Token::PathSep);
            i += 2;
        } else if c.is_whitespace() || c.is_ascii_digit() {
            i += 1;
        } else {
            tokens.push(Token::Punct(c));
            i += 1;
        }
    }
    tokens
}

/// For `r"`, `r#"`, `br"`, `br#"`: the number of `#` and where the body starts.
fn raw_string_start(chars: &[char], at: usize) -> Option<(usize, usize)> {
    let mut i = at;
    if chars.get(i) == Some(&'b') {
        i += 1;
    }
    if chars.get(i) != Some(&'r') {
        return None;
    }
    i += 1;
    let mut hashes = 0;
    while chars.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    (chars.get(i) == Some(&'"')).then_some((hashes, i + 1))
}
