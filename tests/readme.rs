//! The README's Rust examples are compiled and run as doc tests of the `metric-handles` crate,
//! whose own README (its front page on crates.io and docs.rs) holds the same code. This test
//! keeps the two from drifting apart: every `rust` code block of the repository README must
//! appear verbatim in `metrics-runtime/README.md`.

use std::path::Path;

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
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let crate_readme = std::fs::read_to_string(root.join("metrics-runtime/README.md"))
        .expect("metrics-runtime/README.md");
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

#[test]
fn code_blocks_are_found() {
    let blocks = rust_blocks("text\n```rust\nlet a = 1;\n```\n```sh\nls\n```\n");
    assert_eq!(blocks, ["let a = 1;\n"]);
}
