//! Rendering a registry for `/metrics`, in the format the scraper asked for.
//!
//! [`ExpositionFormat`] is the one entry point: [`negotiate`](ExpositionFormat::negotiate) picks
//! the format from the scraper's `Accept` header (in `negotiate.rs`), [`encode`](ExpositionFormat::encode)
//! renders a registry in it, and [`content_type`](ExpositionFormat::content_type) is the header
//! to answer with.
//!
//! vLLM serves OpenMetrics text unconditionally, which breaks consumers that only read the
//! classic Prometheus text format 0.0.4; negotiating avoids that.

use std::cell::RefCell;
use std::fmt;

use prometheus_client::encoding::{prometheus_text, text};

#[cfg(feature = "protobuf")]
use crate::exposition::protobuf;
use crate::registry::{ExposedPart, Registry};
use crate::render::{Scratch, SeriesWriter, TextFormat};
use crate::sanitize::sanitize;

thread_local! {
    /// What a scrape reads histograms and sorts positions into: kept by the thread, so a
    /// steady scrape allocates nothing for them.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// What an encode writes beyond the format's defaults.
///
/// ```
/// use metric_handles::{ExpositionFormat, Registry};
/// use metric_handles::exposition::EncodeOptions;
///
/// let registry = Registry::default();
/// let options = EncodeOptions::default().with_created_lines(true);
/// let mut body = Vec::new();
/// ExpositionFormat::OpenMetrics
///     .encode_into_with(&registry, &mut body, options)
///     .unwrap();
/// assert_eq!(body, b"# EOF\n");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct EncodeOptions {
    /// OpenMetrics text: a `_created` line after each counter and histogram series of this
    /// crate's families, its start timestamp in seconds since the epoch (as client_golang
    /// writes them with `expfmt.WithCreatedLines`, or `EnableOpenMetricsTextCreatedSamples`
    /// in its handler). Off by default: the lines are one more sample per series, which
    /// Prometheus stores as series of their own unless it reads them as start timestamps
    /// (`created-timestamp-zero-ingestion`). The classic text formats never carry them; the
    /// protobuf format always carries start timestamps, in its `created_timestamp` fields.
    pub created_lines: bool,
}

impl EncodeOptions {
    /// These options, with [`created_lines`](Self::created_lines) set to `on`.
    pub const fn with_created_lines(mut self, on: bool) -> Self {
        self.created_lines = on;
        self
    }
}

/// An exposition format: three text formats, and with the `protobuf` feature the Prometheus
/// protobuf format.
///
/// The enum is `non_exhaustive` because the `protobuf` feature adds a variant: a `match` written
/// without that feature keeps compiling when another crate of the build turns it on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ExpositionFormat {
    /// OpenMetrics 1.0.0 text: `# UNIT` lines, counters' `# TYPE` under the base name, `# EOF`.
    OpenMetrics,
    /// The classic Prometheus text format 0.0.4: counters' `# HELP`/`# TYPE` under the
    /// `_total` name, no `# UNIT`, no `# EOF`.
    PrometheusText,
    /// The Prometheus text format 1.0.0, which may quote UTF-8 metric names. This crate writes
    /// only legacy names (`[a-zA-Z_:][a-zA-Z0-9_:]*`), which 1.0.0 reads unchanged, so the text is
    /// that of [`PrometheusText`](Self::PrometheusText); its `Content-Type` says so with an
    /// `escaping=` parameter.
    PrometheusTextV1,
    /// The Prometheus protobuf format (feature `protobuf`): varint-length-delimited
    /// `io.prometheus.client.MetricFamily` messages (prometheus/client_model `metrics.proto`),
    /// `application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily;
    /// encoding=delimited`. The only format that carries native histograms and start
    /// timestamps to Prometheus, which asks for it first when native histograms are enabled
    /// (`scrape_native_histograms`, or `--enable-feature=native-histograms` before 3.0).
    ///
    /// Binary: encode it with [`encode_into`](Self::encode_into).
    /// [`encode`](Self::encode), which returns text, refuses it.
    #[cfg(feature = "protobuf")]
    #[cfg_attr(docsrs, doc(cfg(feature = "protobuf")))]
    PrometheusProtobuf,
}

impl ExpositionFormat {
    /// Whether this format is text (UTF-8), which [`encode`](Self::encode) can return as a
    /// `String`; the protobuf format is binary.
    pub const fn is_text(self) -> bool {
        match self {
            ExpositionFormat::OpenMetrics
            | ExpositionFormat::PrometheusText
            | ExpositionFormat::PrometheusTextV1 => true,
            #[cfg(feature = "protobuf")]
            ExpositionFormat::PrometheusProtobuf => false,
        }
    }

    /// Encodes `registry` in this format, which must be text: [`encode_into`](Self::encode_into)
    /// into a new buffer.
    ///
    /// Every control character but the line feed (a carriage return in a label value, say) is
    /// written as its Unicode control picture (`\r` as `␍`), which every parser accepts, and
    /// OpenMetrics help text has its `\\` and `"` escaped. Encode with this rather than
    /// prometheus-client's encoders directly, which write both raw.
    ///
    /// # Errors
    ///
    /// `fmt::Error` when a metric or collector fails to encode, and for a binary format
    /// ([`is_text`](Self::is_text) is `false`), which a `String` cannot hold: encode those with
    /// [`encode_into`](Self::encode_into).
    ///
    /// ```
    /// use metric_handles::{ExpositionFormat, Registry};
    ///
    /// let registry = Registry::default();
    /// let text = ExpositionFormat::OpenMetrics.encode(&registry).unwrap();
    /// assert_eq!(text, "# EOF\n");
    /// ```
    pub fn encode(self, registry: &Registry) -> Result<String, fmt::Error> {
        if !self.is_text() {
            return Err(fmt::Error);
        }
        let mut out = Vec::new();
        self.encode_into(registry, &mut out)?;
        String::from_utf8(out).map_err(|_| fmt::Error)
    }

    /// Appends `registry`'s exposition in this format to `out` (with the default
    /// [`EncodeOptions`]): for a text format the bytes
    /// [`encode`](Self::encode) returns, for the protobuf format the delimited messages; on
    /// error `out` is left as it was.
    ///
    /// This is the fast path. The families of this crate are written from bytes rendered once
    /// (each family's header lines at registration, each series' labels when it is created),
    /// so a scrape is copies and number formatting; a server that scrapes in a loop keeps one
    /// buffer and clears it between scrapes, and once the buffer has grown to the size of the
    /// exposition a scrape allocates nothing. Other metrics in the registry (prometheus-client
    /// metrics, collectors, included registries, run-time plug-in families) are encoded by
    /// prometheus-client's encoders in their place, as before.
    ///
    /// ```
    /// use metric_handles::{ExpositionFormat, Registry};
    ///
    /// let registry = Registry::default();
    /// let mut body = Vec::new();
    /// ExpositionFormat::OpenMetrics.encode_into(&registry, &mut body).unwrap();
    /// assert_eq!(body, b"# EOF\n");
    /// ```
    pub fn encode_into(self, registry: &Registry, out: &mut Vec<u8>) -> Result<(), fmt::Error> {
        self.encode_into_with(registry, out, EncodeOptions::default())
    }

    /// [`encode_into`](Self::encode_into) with `options`: with
    /// [`created_lines`](EncodeOptions::created_lines), OpenMetrics text carries each counter
    /// and histogram series' `_created` line.
    pub fn encode_into_with(
        self,
        registry: &Registry,
        out: &mut Vec<u8>,
        options: EncodeOptions,
    ) -> Result<(), fmt::Error> {
        let start = out.len();
        let result = with_scratch(|scratch| match self.text_format() {
            Some(format) => encode_text(format, registry, out, options, scratch),
            #[cfg(feature = "protobuf")]
            None => protobuf::encode_into(registry, out, scratch),
            #[cfg(not(feature = "protobuf"))]
            None => Err(fmt::Error),
        });
        if result.is_err() {
            out.truncate(start);
        }
        result
    }

    /// The text writer's format for a text format; `None` for a binary one.
    const fn text_format(self) -> Option<TextFormat> {
        match self {
            ExpositionFormat::OpenMetrics => Some(TextFormat::OpenMetrics),
            ExpositionFormat::PrometheusText | ExpositionFormat::PrometheusTextV1 => {
                Some(TextFormat::Prometheus)
            }
            #[cfg(feature = "protobuf")]
            ExpositionFormat::PrometheusProtobuf => None,
        }
    }
}

/// Calls `f` with the thread's scratch.
fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    // A scrape inside a scrape (a collector that encodes a registry) finds the thread's
    // buffer taken and reads into one of its own.
    SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
        Ok(mut scratch) => f(&mut scratch),
        Err(_) => f(&mut Scratch::default()),
    })
}

/// Writes every part of `registry` in the text `format`.
fn encode_text(
    format: TextFormat,
    registry: &Registry,
    out: &mut Vec<u8>,
    options: EncodeOptions,
    scratch: &mut Scratch,
) -> Result<(), fmt::Error> {
    write_parts(registry, format, out, options, scratch)?;
    if format == TextFormat::OpenMetrics {
        out.extend_from_slice(b"# EOF\n");
    }
    Ok(())
}

/// Writes every part of `registry` in `format`: this crate's families with the text writer,
/// the others with prometheus-client's encoders and the sanitising pass.
fn write_parts(
    registry: &Registry,
    format: TextFormat,
    out: &mut Vec<u8>,
    options: EncodeOptions,
    scratch: &mut Scratch,
) -> Result<(), fmt::Error> {
    registry.for_each_part(&mut |part| match part {
        ExposedPart::Text(family) => {
            let (headers, heads) = family.rendered(format);
            out.extend_from_slice(headers.as_bytes());
            let created_lines = options.created_lines;
            let mut writer = SeriesWriter::text(out, format, heads, created_lines, scratch);
            family.family.write_samples(&mut writer)?;
            writer.finish()
        }
        ExposedPart::Foreign(metrics) => {
            let openmetrics = format == TextFormat::OpenMetrics;
            let mut text = String::new();
            if openmetrics {
                text::encode_registry(&mut text, metrics)?;
            } else {
                prometheus_text::encode(&mut text, metrics)?;
            }
            out.extend_from_slice(sanitize(text, openmetrics).as_bytes());
            Ok(())
        }
    })
}
