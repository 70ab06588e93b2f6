//! Build information in one line: [`build_info!`](crate::build_info) registers
//! `build_info{name,version} 1` for the crate that writes it, as Go's build-info collector
//! exports `go_build_info`.

use super::error::RegistrationError;
use super::tree::Registry;

/// The family [`build_info!`](crate::build_info) registers, exposed as `build_info`.
const BUILD_INFO_FAMILY: &str = "build";

/// Its help text.
const BUILD_INFO_HELP: &str = "The crate this program was built from: its name and version";

/// Registers one info series, `build_info{name="<name>",version="<version>"} 1`, in `registry`.
///
/// [`build_info!`](crate::build_info) calls it with the calling crate's name and version; call
/// it yourself for a build whose version comes from elsewhere (a build system other than
/// Cargo, a version with the commit appended). The family is `build_info` under the
/// registry's prefix (`myapp_build_info` in `Registry::with_prefix("myapp")`), as Go's
/// `go_build_info{path,version}` and the `<program>_build_info` of Prometheus' own servers.
///
/// # Panics
///
/// If `registry` already exposes `build_info` (the call made twice);
/// [`try_register_build_info`] returns that error instead.
#[track_caller]
pub fn register_build_info(registry: &mut Registry, name: &str, version: &str) {
    if let Err(error) = try_register_build_info(registry, name, version) {
        panic!("{error}");
    }
}

/// [`register_build_info`], returning a name clash instead of panicking; nothing is
/// registered on error.
pub fn try_register_build_info(
    registry: &mut Registry,
    name: &str,
    version: &str,
) -> Result<(), RegistrationError> {
    let labels = vec![
        ("name".to_owned(), name.to_owned()),
        ("version".to_owned(), version.to_owned()),
    ];
    registry.try_register(
        BUILD_INFO_FAMILY,
        BUILD_INFO_HELP,
        prometheus_client::metrics::info::Info::new(labels),
    )
}

/// Registers `build_info{name="<crate>",version="<version>"} 1` in a
/// [`Registry`]: the name and version of the crate that writes the macro
/// (its `CARGO_PKG_NAME` and `CARGO_PKG_VERSION`, read when that crate is compiled, so no build
/// script is needed). Written in the binary's crate, it names the program.
///
/// ```
/// use metric_handles::Registry;
///
/// let mut registry = Registry::default();
/// metric_handles::build_info!(&mut registry);
/// let scrape = metric_handles::testing::Scrape::of(&registry);
/// let build = [("name", env!("CARGO_PKG_NAME")), ("version", env!("CARGO_PKG_VERSION"))];
/// assert_eq!(scrape.value("build_info", &build), Some(1.0));
/// ```
///
/// It costs one series, written at each scrape; nothing is recorded afterwards.
///
/// # Panics
///
/// As [`register_build_info`], if `build_info` is already registered.
#[macro_export]
macro_rules! build_info {
    ($registry:expr $(,)?) => {
        $crate::registry::register_build_info(
            $registry,
            ::core::env!("CARGO_PKG_NAME"),
            ::core::env!("CARGO_PKG_VERSION"),
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ExpositionFormat;

    #[test]
    fn build_info_is_one_series_with_the_name_and_version() {
        let mut registry = Registry::default();
        register_build_info(&mut registry, "my-app", "1.2.3-rc.1");
        let text = ExpositionFormat::PrometheusText.encode(&registry).unwrap();
        assert!(
            text.contains("build_info{name=\"my-app\",version=\"1.2.3-rc.1\"} 1\n"),
            "{text}"
        );
        let open = ExpositionFormat::OpenMetrics.encode(&registry).unwrap();
        assert!(open.contains("# TYPE build info\n"), "{open}");
    }

    #[test]
    fn build_info_twice_is_a_registration_error() {
        let mut registry = Registry::default();
        try_register_build_info(&mut registry, "a", "1").unwrap();
        assert!(try_register_build_info(&mut registry, "a", "1").is_err());
    }
}
