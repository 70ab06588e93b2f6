//! The README's Rust examples are compiled and run as doc tests of the `metric-handles` crate,
//! whose own README (its front page on crates.io and docs.rs) holds the same code. This test
//! keeps the two from drifting apart: every `rust` code block of the repository README must
//! appear verbatim in `metrics-runtime/README.md`.

use std::path::Path;

/// The file at `path` in the repository.
fn read(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn rust_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match &mut current {
            None if line.trim_start() == "```rust" => current = Some(String::new()),
            Some(block) if line.trim_start() == "```" => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    blocks
}

#[test]
fn every_readme_example_is_a_doc_test_of_the_crate() {
    let readme = read("README.md");
    let crate_readme = read("metrics-runtime/README.md");
    let blocks = rust_blocks(&readme);
    assert!(!blocks.is_empty(), "README.md has no rust example");
    for block in blocks {
        assert!(
            crate_readme.contains(&block),
            "this README.md example is not in metrics-runtime/README.md, so no doc test \
             compiles it:\n{block}"
        );
    }
}

/// Code with its layout taken out: no whitespace, no trailing comma before a closing bracket
/// (what rustfmt adds when it breaks a line).
fn without_layout(code: &str) -> String {
    let compact: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    compact.replace(",}", "}").replace(",)", ")")
}

/// `examples/quickstart.rs` runs the README's first example (its items at the top level, its
/// statements in `main`): every line of the example appears in it, in order, whatever rustfmt
/// made of the line breaks.
#[test]
fn the_quickstart_example_is_the_readmes() {
    let readme = read("README.md");
    let quickstart = read("examples/quickstart.rs");
    assert!(
        quickstart.lines().count() <= 100,
        "the quickstart stays short"
    );
    let quickstart = without_layout(&quickstart);
    let example = rust_blocks(&readme).into_iter().next().expect("an example");
    let mut from = 0;
    for line in example.lines().map(without_layout) {
        // A line's own trailing comma may be dropped before the next line's bracket.
        let line = line.trim_end_matches(',');
        if line.is_empty() {
            continue;
        }
        match quickstart[from..].find(line) {
            Some(at) => from += at + line.len(),
            None => {
                panic!("examples/quickstart.rs lacks this README line (or has it earlier): {line}")
            }
        }
    }
}

#[test]
fn layout_is_ignored_but_not_the_code() {
    assert_eq!(
        without_layout("f(A {\n    a: 1,\n});"),
        without_layout("f(A { a: 1 });")
    );
    assert_ne!(without_layout("f(1, 2)"), without_layout("f(1)"));
}

#[test]
fn code_blocks_are_found() {
    let blocks = rust_blocks("text\n```rust\nlet a = 1;\n```\n```sh\nls\n```\n");
    assert_eq!(blocks, ["let a = 1;\n"]);
}
