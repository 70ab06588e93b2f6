// `build_info!` names the crate that writes it, not the runtime crate: `CARGO_PKG_NAME` and
// `CARGO_PKG_VERSION` are read where the macro expands.
use metric_handles::{ExpositionFormat, Registry};

fn main() {
    let (name, version) = (env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"));
    // The runtime's own name would not tell the two apart.
    assert_ne!(name, "metric-handles");

    let mut registry = Registry::with_prefix("app");
    metric_handles::build_info!(&mut registry);
    let text = ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    let line = format!("app_build_info{{name=\"{name}\",version=\"{version}\"}} 1\n");
    assert!(text.contains(&line), "{text}");
    assert!(metric_handles::registry::try_register_build_info(&mut registry, name, version).is_err());
}
