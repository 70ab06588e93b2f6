//! `docs/metrics.md` is generated from the descriptors; this test fails when the committed file
//! is stale. Regenerate with `UPDATE_DOCS=1 cargo test -p metric-handles --test vllm catalogue`.
use std::path::Path;

use metric_handles::vllm::catalogue;
use metric_handles::vllm::request::RequestMetrics;
use metric_handles::vllm::scheduler::SchedulerMetrics;

/// The committed catalogue's text: a generated-file header, then the catalogue.
fn generated() -> String {
    format!(
        "<!-- Generated from the descriptor tables by metric_handles::vllm::catalogue(); do not edit by hand.\n     \
         Regenerate with: UPDATE_DOCS=1 cargo test -p metric-handles --test vllm catalogue -->\n{}",
        catalogue().to_markdown()
    )
}

#[test]
fn docs_metrics_md_is_up_to_date() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/metrics.md");
    let generated = generated();
    if std::env::var("UPDATE_DOCS").as_deref() == Ok("1") {
        std::fs::write(&path, &generated).expect("write docs/metrics.md");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/metrics.md is stale (or missing): it must equal metric_handles::vllm::catalogue(). \
         Regenerate it with:\n\n    UPDATE_DOCS=1 cargo test -p metric-handles --test vllm catalogue\n"
    );
}

#[test]
fn the_catalogue_documents_every_metric_and_alias() {
    let md = catalogue().to_markdown();
    for d in SchedulerMetrics::DESCRIPTORS
        .iter()
        .chain(RequestMetrics::DESCRIPTORS)
    {
        assert!(md.contains(&format!("### `{}`", d.name)), "{}", d.name);
        assert!(md.contains(d.help), "{}: help", d.name);
        for alias in d.aliases {
            assert!(md.contains(&format!("`{}`", alias.name)), "{}", alias.name);
        }
    }
    assert!(!md.contains("(not documented)"));
}
