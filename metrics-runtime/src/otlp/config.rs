//! [`OtlpConfig`]: where and how the exporter pushes, from the standard `OTEL_*` environment
//! variables, overridden by its setters.

use std::fmt;
use std::time::Duration;

use super::metrics::{OtlpHandles, OtlpMetrics};
use crate::NoLabels;

/// The endpoint when no variable names one: a collector on this host, OTLP/HTTP's port.
pub const DEFAULT_ENDPOINT: &str = "http://localhost:4318/v1/metrics";
/// The export interval when `OTEL_METRIC_EXPORT_INTERVAL` is unset: 60 s, the specification's.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(60);
/// The time one request may take when `OTEL_EXPORTER_OTLP_TIMEOUT` is unset: 10 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How a request body is compressed (`OTEL_EXPORTER_OTLP_COMPRESSION`: `gzip` or `none`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Compression {
    /// Sent as it is (the specification's default).
    #[default]
    None,
    /// `Content-Encoding: gzip`.
    Gzip,
}

/// Where and how the exporter pushes: the URL, headers, timeout, compression, interval and
/// the resource the metrics describe.
///
/// [`from_env`](Self::from_env) reads the variables the OpenTelemetry specification defines
/// (each metrics-specific one before its general one):
///
/// | variable | default |
/// |---|---|
/// | `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` (used as it is), else `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/metrics` appended) | `http://localhost:4318/v1/metrics` |
/// | `OTEL_EXPORTER_OTLP_METRICS_HEADERS`, `OTEL_EXPORTER_OTLP_HEADERS` (`key=value,...`, values percent-decoded; both apply, the metrics one wins) | none |
/// | `OTEL_EXPORTER_OTLP_METRICS_TIMEOUT`, `OTEL_EXPORTER_OTLP_TIMEOUT` (milliseconds) | 10000 |
/// | `OTEL_EXPORTER_OTLP_METRICS_COMPRESSION`, `OTEL_EXPORTER_OTLP_COMPRESSION` (`gzip`, `none`) | `none` |
/// | `OTEL_METRIC_EXPORT_INTERVAL` (milliseconds) | 60000 |
/// | `OTEL_RESOURCE_ATTRIBUTES` (`key=value,...`), `OTEL_SERVICE_NAME` (wins over `service.name` there) | `service.name=unknown_service` |
///
/// A malformed value is ignored as the specification asks (the default applies) and
/// described in [`warnings`](Self::warnings), which the exporter logs when it starts. Every
/// setter overrides what the environment said.
///
/// ```
/// use std::time::Duration;
/// use metric_handles::otlp::{Compression, OtlpConfig};
///
/// let config = OtlpConfig::from_vars(|name| match name {
///     "OTEL_EXPORTER_OTLP_ENDPOINT" => Some("http://collector:4318/".to_owned()),
///     "OTEL_METRIC_EXPORT_INTERVAL" => Some("5000".to_owned()),
///     "OTEL_EXPORTER_OTLP_TIMEOUT" => Some("soon".to_owned()),
///     _ => None,
/// })
/// .compression(Compression::Gzip);
/// assert_eq!(config.endpoint_url(), "http://collector:4318/v1/metrics");
/// assert_eq!(config.interval_duration(), Duration::from_secs(5));
/// assert_eq!(config.warnings().len(), 1); // the timeout, left at its default
/// ```
#[derive(Clone)]
pub struct OtlpConfig {
    pub(crate) endpoint: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) timeout: Duration,
    pub(crate) compression: Compression,
    pub(crate) interval: Duration,
    pub(crate) resource: Vec<(String, String)>,
    pub(crate) metrics: Option<OtlpHandles>,
    warnings: Vec<String>,
}

impl fmt::Debug for OtlpConfig {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        // Header values are often credentials: their names only.
        let header_names: Vec<&str> = self.headers.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("OtlpConfig")
            .field("endpoint", &self.endpoint)
            .field("headers", &header_names)
            .field("timeout", &self.timeout)
            .field("compression", &self.compression)
            .field("interval", &self.interval)
            .field("resource", &self.resource)
            .field("metrics", &self.metrics.is_some())
            .field("warnings", &self.warnings)
            .finish()
    }
}

impl Default for OtlpConfig {
    /// The defaults, reading no variable.
    fn default() -> Self {
        OtlpConfig::from_vars(|_| None)
    }
}

impl OtlpConfig {
    /// The configuration the process environment describes (the table above).
    pub fn from_env() -> Self {
        OtlpConfig::from_vars(|name| std::env::var(name).ok())
    }

    /// The configuration the variables `var` returns describe: [`from_env`](Self::from_env)
    /// with another source (a test's, or a configuration file's).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Self {
        let mut warnings = Vec::new();
        let var = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let endpoint = match var("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") {
            Some(url) => url.trim().to_owned(),
            None => match var("OTEL_EXPORTER_OTLP_ENDPOINT") {
                Some(base) => format!("{}/v1/metrics", base.trim().trim_end_matches('/')),
                None => DEFAULT_ENDPOINT.to_owned(),
            },
        };
        let mut headers = Vec::new();
        for name in [
            "OTEL_EXPORTER_OTLP_HEADERS",
            "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
        ] {
            if let Some(list) = var(name) {
                for (key, value) in key_values(&list, name, &mut warnings) {
                    set_pair(&mut headers, key, value);
                }
            }
        }
        let timeout = first_of(
            &var,
            [
                "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT",
                "OTEL_EXPORTER_OTLP_TIMEOUT",
            ],
        )
        .and_then(|(name, value)| millis(name, &value, &mut warnings))
        .unwrap_or(DEFAULT_TIMEOUT);
        let compression = first_of(
            &var,
            [
                "OTEL_EXPORTER_OTLP_METRICS_COMPRESSION",
                "OTEL_EXPORTER_OTLP_COMPRESSION",
            ],
        )
        .and_then(|(name, value)| match value.trim() {
            "gzip" => Some(Compression::Gzip),
            "none" => Some(Compression::None),
            other => {
                warnings.push(format!(
                    "{name}={other:?} is neither `gzip` nor `none`: not compressed"
                ));
                None
            }
        })
        .unwrap_or_default();
        let interval = var("OTEL_METRIC_EXPORT_INTERVAL")
            .and_then(|value| millis("OTEL_METRIC_EXPORT_INTERVAL", &value, &mut warnings))
            .unwrap_or(DEFAULT_INTERVAL);
        let mut resource = vec![("service.name".to_owned(), "unknown_service".to_owned())];
        if let Some(list) = var("OTEL_RESOURCE_ATTRIBUTES") {
            for (key, value) in key_values(&list, "OTEL_RESOURCE_ATTRIBUTES", &mut warnings) {
                set_pair(&mut resource, key, value);
            }
        }
        if let Some(name) = var("OTEL_SERVICE_NAME") {
            set_pair(
                &mut resource,
                "service.name".to_owned(),
                name.trim().to_owned(),
            );
        }
        OtlpConfig {
            endpoint,
            headers,
            timeout,
            compression,
            interval,
            resource,
            metrics: None,
            warnings,
        }
    }

    /// Pushes to `url`, the full URL of the metrics path (`http://host:4318/v1/metrics`), as
    /// `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` does. Only `http` is supported: the exporter has
    /// no TLS, and [`start`](Self::start) refuses an `https` URL.
    pub fn endpoint(mut self, url: impl Into<String>) -> Self {
        self.endpoint = url.into();
        self
    }

    /// Adds the header `name: value` to every request (replacing one of that name).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        set_pair(&mut self.headers, name.into(), value.into());
        self
    }

    /// The time one request may take, connecting included.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How request bodies are compressed.
    pub fn compression(mut self, compression: Compression) -> Self {
        self.compression = compression;
        self
    }

    /// The time between two exports (at least 1 ms).
    pub fn interval(mut self, interval: Duration) -> Self {
        self.interval = interval;
        self
    }

    /// The resource's `service.name`.
    pub fn service_name(self, name: impl Into<String>) -> Self {
        self.resource_attribute("service.name", name)
    }

    /// Sets the resource attribute `key` to `value` (a string).
    pub fn resource_attribute(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        set_pair(&mut self.resource, key.into(), value.into());
        self
    }

    /// Counts the exporter's work in `metrics` (registered in the registry it pushes, or any
    /// other): exports, failures by reason, data points, the last success.
    pub fn with_metrics(mut self, metrics: &OtlpMetrics) -> Self {
        self.metrics = Some(metrics.resolve(&NoLabels));
        self
    }

    /// The URL requests go to.
    pub fn endpoint_url(&self) -> &str {
        &self.endpoint
    }

    /// The time between two exports.
    pub fn interval_duration(&self) -> Duration {
        self.interval
    }

    /// The time one request may take.
    pub fn timeout_duration(&self) -> Duration {
        self.timeout
    }

    /// The resource attributes, `service.name` first.
    pub fn resource_attributes(&self) -> &[(String, String)] {
        &self.resource
    }

    /// The headers sent with every request.
    pub fn headers(&self) -> &[(String, String)] {
        &self.headers
    }

    /// How request bodies are compressed.
    pub fn compression_kind(&self) -> Compression {
        self.compression
    }

    /// The variables that were malformed and ignored, one sentence each.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

/// The first of `names` that is set, with its value.
fn first_of<const N: usize>(
    var: &impl Fn(&str) -> Option<String>,
    names: [&'static str; N],
) -> Option<(&'static str, String)> {
    names
        .into_iter()
        .find_map(|name| var(name).map(|value| (name, value)))
}

/// A duration in whole milliseconds; `None` (with a warning) for anything else, and for 0,
/// which would make a busy loop of the interval or a timeout nothing meets.
fn millis(name: &str, value: &str, warnings: &mut Vec<String>) -> Option<Duration> {
    match value.trim().parse::<u64>() {
        Ok(ms) if ms > 0 => Some(Duration::from_millis(ms)),
        _ => {
            warnings.push(format!(
                "{name}={value:?} is not a positive number of milliseconds: the default applies"
            ));
            None
        }
    }
}

/// `key=value,key=value` (W3C baggage's form, which the specification uses for headers and
/// resource attributes), each side trimmed and percent-decoded. A member without `=` or with
/// an empty key is skipped with a warning.
fn key_values(list: &str, name: &str, warnings: &mut Vec<String>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for member in list.split(',').filter(|m| !m.trim().is_empty()) {
        match member.split_once('=') {
            Some((key, value)) if !key.trim().is_empty() => {
                out.push((percent_decode(key.trim()), percent_decode(value.trim())))
            }
            _ => warnings.push(format!("{name}: {member:?} is not `key=value`: skipped")),
        }
    }
    out
}

/// `%XX` escapes decoded; an incomplete or non-hex escape, or bytes that are not UTF-8 once
/// decoded, stay as written.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' {
            if let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            ) {
                out.push((hi * 16 + lo) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

fn set_pair(pairs: &mut Vec<(String, String)>, key: String, value: String) {
    match pairs.iter_mut().find(|(k, _)| *k == key) {
        Some(pair) => pair.1 = value,
        None => pairs.push((key, value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(vars: &[(&str, &str)]) -> OtlpConfig {
        OtlpConfig::from_vars(|name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn the_metrics_endpoint_is_used_as_it_is_and_the_general_one_gets_the_path() {
        assert_eq!(config(&[]).endpoint_url(), DEFAULT_ENDPOINT);
        let general = config(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318")]);
        assert_eq!(general.endpoint_url(), "http://c:4318/v1/metrics");
        let both = config(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"),
            (
                "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
                "http://m:9090/api/v1/otlp/v1/metrics",
            ),
        ]);
        assert_eq!(both.endpoint_url(), "http://m:9090/api/v1/otlp/v1/metrics");
    }

    #[test]
    fn headers_merge_the_metrics_ones_win_and_values_are_percent_decoded() {
        let c = config(&[
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "api-key=a%20b, tenant=one,broken",
            ),
            ("OTEL_EXPORTER_OTLP_METRICS_HEADERS", "tenant=two"),
        ]);
        assert_eq!(
            c.headers(),
            [
                ("api-key".to_owned(), "a b".to_owned()),
                ("tenant".to_owned(), "two".to_owned())
            ]
        );
        assert_eq!(c.warnings().len(), 1, "{:?}", c.warnings());
        assert!(c.warnings()[0].contains("broken"));
    }

    #[test]
    fn malformed_numbers_and_compressions_keep_the_defaults_with_a_warning() {
        let c = config(&[
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "-1"),
            ("OTEL_METRIC_EXPORT_INTERVAL", "0"),
            ("OTEL_EXPORTER_OTLP_COMPRESSION", "zstd"),
        ]);
        assert_eq!(c.timeout_duration(), DEFAULT_TIMEOUT);
        assert_eq!(c.interval_duration(), DEFAULT_INTERVAL);
        assert_eq!(c.compression_kind(), Compression::None);
        assert_eq!(c.warnings().len(), 3, "{:?}", c.warnings());
        let good = config(&[
            ("OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "250"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "9"),
            ("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip"),
        ]);
        assert_eq!(good.timeout_duration(), Duration::from_millis(250));
        assert_eq!(good.compression_kind(), Compression::Gzip);
        assert!(good.warnings().is_empty());
    }

    #[test]
    fn the_service_name_wins_over_the_resource_attribute_and_setters_win_over_both() {
        let c = config(&[
            (
                "OTEL_RESOURCE_ATTRIBUTES",
                "service.name=a,deployment.environment=prod%2C1",
            ),
            ("OTEL_SERVICE_NAME", "b"),
        ]);
        assert_eq!(
            c.resource_attributes(),
            [
                ("service.name".to_owned(), "b".to_owned()),
                ("deployment.environment".to_owned(), "prod,1".to_owned())
            ]
        );
        let c = c.service_name("c");
        assert_eq!(c.resource_attributes()[0].1, "c");
    }

    #[test]
    fn percent_decoding_leaves_broken_escapes_as_written() {
        assert_eq!(percent_decode("a%2"), "a%2");
        assert_eq!(percent_decode("%zz%41"), "%zzA");
        assert_eq!(percent_decode("%ff"), "%ff");
    }
}
