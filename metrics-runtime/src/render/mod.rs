//! The text encoder of this crate's families: each sample line is copies of bytes rendered
//! once (the family's name, the scope's const labels, each series' label set, the histogram
//! `le` values) and one number formatted as prometheus-client formats it.
//!
//! Its output is byte for byte what prometheus-client's text encoders write followed by this
//! crate's sanitising pass (control characters as control pictures): the label bytes are
//! rendered through prometheus-client's own label encoder and sanitised when a series is
//! created ([`once`]), and the numbers use the crates it uses (`itoa`, `dtoa`).
//!
//! * [`SampleHeads`]: the start of each kind of sample line of a family, up to the series'
//!   labels, rendered at registration.
//! * [`SeriesWriter`]: what a family's members write their samples with.
//! * [`LabelStack`]: the labels of one series, outermost first, as borrowed pieces.
//! * [`number`]: the value formats of the two text formats.
//! * [`protobuf`] (feature `protobuf`): the same series as `io.prometheus.client.Metric`
//!   messages, through the same [`SeriesWriter`] calls.
//!
//! Exemplars (OpenMetrics only; the classic text has no place for them) follow the value of a
//! counter's `_total` line and of a bucket's line as prometheus-client's OpenMetrics encoder
//! writes them: ` # {k="v"} value timestamp`, the label values escaped as a series' are, the
//! value and the timestamp (seconds since the epoch) with `dtoa`. Protobuf carries them in
//! their messages' exemplar fields.

#[cfg(test)]
mod exemplar_tests;
pub(crate) mod labels;
pub(crate) mod number;
pub(crate) mod once;
#[cfg(test)]
mod parity_tests;
#[cfg(feature = "protobuf")]
pub(crate) mod protobuf;
pub(crate) mod scratch;

use std::fmt;

use crate::exemplar::{ExemplarBuffer, ExemplarView};
use crate::histogram::GaugeHistogram;
use crate::histogram::Histogram;
use crate::sanitize::push_escaped_label_value;
pub use labels::{Label, LabelStack};
use number::TextNumber;
pub use scratch::Scratch;

/// Which text format a scrape writes: they differ in float spelling, histogram line order and
/// where the `le` label goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextFormat {
    /// OpenMetrics 1.0.0 text.
    OpenMetrics,
    /// The Prometheus text format 0.0.4 (and 1.0.0, which reads the same bytes).
    Prometheus,
}

/// The start of every kind of sample line of one family in one format, rendered when the
/// family is registered: the name and suffix, then `{` and the const labels if there are any
/// (and, for an OpenMetrics bucket, its `le` label, which prometheus-client writes before the
/// series' labels). A line is then this head, the series' labels, the value.
#[derive(Debug)]
pub(crate) struct SampleHeads {
    gauge: Head,
    counter: Head,
    info: Head,
    sum: Head,
    count: Head,
    /// The OpenMetrics `_created` line of a counter or histogram, written when asked for.
    created: Head,
    gsum: Head,
    gcount: Head,
    /// The family's name: the label key of a state set's states.
    state_key: Box<str>,
    /// A gauge histogram's `_gcount` and `_gsum` families' header lines in the classic text,
    /// where they are gauges of their own; empty otherwise.
    gauge_histogram_parts: [Box<str>; 2],
    /// One per bucket in OpenMetrics (each with its `le`); one for every bucket in the classic
    /// text, whose `le` comes after the series' labels ([`bucket_tails`](Self::bucket_tails)).
    buckets: Box<[Head]>,
    /// The `le="..."` label of each bucket in the classic text; empty in OpenMetrics.
    bucket_tails: Box<[Box<str>]>,
}

/// The start of a sample line up to the series' own labels.
#[derive(Debug)]
struct Head {
    text: Box<str>,
    /// Whether `text` opened the label list (`{` and at least one label).
    open: bool,
}

impl Head {
    /// `name` followed by `{` and `labels` when there are any.
    fn new(name: &str, labels: &[&str]) -> Self {
        let mut text = name.to_owned();
        let mut open = false;
        for label in labels.iter().filter(|label| !label.is_empty()) {
            text.push(if open { ',' } else { '{' });
            text.push_str(label);
            open = true;
        }
        Head {
            text: text.into(),
            open,
        }
    }
}

impl SampleHeads {
    /// The heads of a family named `name` (prefix, name and unit) at a level with
    /// `const_labels`, whose histograms' buckets have the `le` labels `le` (none for counters
    /// and gauges).
    pub(crate) fn new(format: TextFormat, name: &str, const_labels: &str, le: &[Box<str>]) -> Self {
        let head = |suffix: &str| Head::new(&format!("{name}{suffix}"), &[const_labels]);
        let bucket = format!("{name}_bucket");
        let (buckets, bucket_tails) = match format {
            TextFormat::OpenMetrics => (
                le.iter()
                    .map(|le| Head::new(&bucket, &[const_labels, le]))
                    .collect(),
                Box::default(),
            ),
            TextFormat::Prometheus => (
                le.iter()
                    .map(|_| Head::new(&bucket, &[const_labels]))
                    .collect(),
                le.into(),
            ),
        };
        SampleHeads {
            gauge: head(""),
            counter: head("_total"),
            info: head("_info"),
            sum: head("_sum"),
            count: head("_count"),
            created: head("_created"),
            gsum: head("_gsum"),
            gcount: head("_gcount"),
            state_key: name.into(),
            gauge_histogram_parts: Default::default(),
            buckets,
            bucket_tails,
        }
    }

    /// Sets the header lines of a gauge histogram's `_gcount` and `_gsum` gauge families,
    /// which the classic text writes after the family's buckets.
    pub(crate) fn with_gauge_histogram_parts(mut self, gcount: Box<str>, gsum: Box<str>) -> Self {
        self.gauge_histogram_parts = [gcount, gsum];
        self
    }
}

/// Which samples of a gauge histogram a pass over a family's series writes. OpenMetrics
/// writes every sample of a series together ([`All`](Self::All)); the classic text has no
/// gauge histogram and writes, as Python's `prometheus_client` does, every series' buckets
/// as a histogram family, then every `_gcount` as a gauge family, then every `_gsum`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GaugeHistogramPass {
    /// Every sample (OpenMetrics, and every family that is no gauge histogram).
    All,
    /// The `_bucket` samples.
    Buckets,
    /// The `_gcount` samples.
    Count,
    /// The `_gsum` samples.
    Sum,
}

/// What follows a series' own labels on a sample line.
#[derive(Clone, Copy, Debug)]
enum Tail<'t> {
    None,
    /// Labels rendered once (a classic-text `le`).
    Rendered(&'t str),
    /// One `key="value"` whose value is escaped as it is written (a state).
    Pair(&'t str, &'t str),
}

/// Where a family's members write their samples: the scrape's buffer, what the family
/// rendered at registration for the format written, and a scratch buffer for histogram
/// reads. The members call the same methods whatever the format.
#[derive(Debug)]
pub struct SeriesWriter<'a> {
    out: &'a mut Vec<u8>,
    target: Target<'a>,
    /// Which samples a gauge histogram writes in this pass over the family's series.
    pass: GaugeHistogramPass,
    /// Storage that outlives the scrape, so a steady scrape allocates nothing.
    scratch: &'a mut Scratch,
    /// Whether a sample could not be written (see [`finish`](Self::finish)).
    failed: bool,
}

/// The format a [`SeriesWriter`] writes, with what the family rendered for it.
#[derive(Clone, Copy, Debug)]
enum Target<'a> {
    Text {
        format: TextFormat,
        heads: &'a SampleHeads,
        /// Whether OpenMetrics `_created` lines follow counters and histograms.
        created_lines: bool,
    },
    #[cfg(feature = "protobuf")]
    Protobuf(&'a protobuf::MetricHeads),
}

impl<'a> SeriesWriter<'a> {
    /// A writer of text `format`; `created_lines` adds the OpenMetrics `_created` lines.
    pub(crate) fn text(
        out: &'a mut Vec<u8>,
        format: TextFormat,
        heads: &'a SampleHeads,
        created_lines: bool,
        scratch: &'a mut Scratch,
    ) -> Self {
        SeriesWriter {
            out,
            target: Target::Text {
                format,
                heads,
                created_lines: created_lines && format == TextFormat::OpenMetrics,
            },
            pass: GaugeHistogramPass::All,
            scratch,
            failed: false,
        }
    }

    /// A writer of `io.prometheus.client.Metric` messages (a family's `metric` fields).
    #[cfg(feature = "protobuf")]
    pub(crate) fn protobuf(
        out: &'a mut Vec<u8>,
        heads: &'a protobuf::MetricHeads,
        scratch: &'a mut Scratch,
    ) -> Self {
        SeriesWriter {
            out,
            target: Target::Protobuf(heads),
            pass: GaugeHistogramPass::All,
            scratch,
            failed: false,
        }
    }

    /// Whether every sample was written: a protobuf `Metric` fails when a series' rendered
    /// labels are not what the renderer writes, which fails the scrape (counters and gauges
    /// report it here, so their members need not handle an error the text cannot have).
    pub(crate) fn finish(&self) -> Result<(), fmt::Error> {
        if self.failed {
            Err(fmt::Error)
        } else {
            Ok(())
        }
    }

    /// The passes a gauge histogram family's series are written in, in order.
    pub(crate) fn gauge_histogram_passes(&self) -> &'static [GaugeHistogramPass] {
        match self.target {
            Target::Text {
                format: TextFormat::Prometheus,
                ..
            } => &[
                GaugeHistogramPass::Buckets,
                GaugeHistogramPass::Count,
                GaugeHistogramPass::Sum,
            ],
            _ => &[GaugeHistogramPass::All],
        }
    }

    /// Starts `pass` over the series: a classic-text `_gcount` or `_gsum` pass first writes
    /// the header lines of its gauge family.
    pub(crate) fn start_pass(&mut self, pass: GaugeHistogramPass) {
        let header: &str = match (self.target, pass) {
            (Target::Text { heads, .. }, GaugeHistogramPass::Count) => {
                &heads.gauge_histogram_parts[0]
            }
            (Target::Text { heads, .. }, GaugeHistogramPass::Sum) => {
                &heads.gauge_histogram_parts[1]
            }
            _ => "",
        };
        self.out.extend_from_slice(header.as_bytes());
        self.pass = pass;
    }

    /// The scratch for sorting a map's series, taken while the series are written (a member
    /// nested in one takes an empty one); given back with [`put_order`](Self::put_order).
    pub(crate) fn take_order(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.scratch.order)
    }

    /// Gives back what [`take_order`](Self::take_order) took.
    pub(crate) fn put_order(&mut self, order: Vec<usize>) {
        self.scratch.order = order;
    }

    /// Writes one counter sample, `name_total{labels} value` (a counter without exemplars:
    /// prometheus-client's), and its `_created` line when asked for.
    pub(crate) fn counter(&mut self, labels: &LabelStack<'_>, value: impl TextNumber) {
        self.write_counter(labels, value, None);
    }

    /// Writes one counter sample, `name_total{labels} value`, and in OpenMetrics and protobuf
    /// the exemplar `read_exemplar` copies into the buffer it is given, if any.
    pub(crate) fn counter_with_exemplar(
        &mut self,
        labels: &LabelStack<'_>,
        value: impl TextNumber,
        read_exemplar: impl for<'b> FnOnce(&'b mut ExemplarBuffer) -> Option<ExemplarView<'b>>,
    ) {
        if matches!(
            self.target,
            Target::Text {
                format: TextFormat::Prometheus,
                ..
            }
        ) {
            return self.write_counter(labels, value, None);
        }
        let mut buffer = ExemplarBuffer::new();
        let exemplar = read_exemplar(&mut buffer);
        self.write_counter(labels, value, exemplar);
    }

    fn write_counter(
        &mut self,
        labels: &LabelStack<'_>,
        value: impl TextNumber,
        exemplar: Option<ExemplarView<'_>>,
    ) {
        match self.target {
            Target::Text {
                format,
                heads,
                created_lines,
            } => {
                let mut text = TextLines::new(self.out, format, heads);
                text.line(&heads.counter, labels, Tail::None, value, exemplar);
                if created_lines {
                    text.created(labels);
                }
            }
            #[cfg(feature = "protobuf")]
            Target::Protobuf(heads) => {
                let exemplar = exemplar.as_ref().map(protobuf::ExemplarData::of_view);
                let written = protobuf::counter(self.out, heads, labels, value.as_f64(), exemplar);
                self.failed |= written.is_err();
            }
        }
    }

    /// Writes one gauge sample, `name{labels} value`.
    pub(crate) fn gauge(&mut self, labels: &LabelStack<'_>, value: impl TextNumber) {
        match self.target {
            Target::Text { format, heads, .. } => TextLines::new(self.out, format, heads).line(
                &heads.gauge,
                labels,
                Tail::None,
                value,
                None,
            ),
            #[cfg(feature = "protobuf")]
            Target::Protobuf(heads) => {
                self.failed |= protobuf::gauge(self.out, heads, labels, value.as_f64()).is_err()
            }
        }
    }

    /// The text heads and format, or `None` in protobuf: for the kinds the protobuf writer
    /// does not know (their families go through prometheus-client's encoder instead), a
    /// protobuf writer reaching them fails the scrape rather than write text into it.
    fn text_target(&mut self) -> Option<(TextFormat, &'a SampleHeads)> {
        match self.target {
            Target::Text { format, heads, .. } => Some((format, heads)),
            #[cfg(feature = "protobuf")]
            Target::Protobuf(_) => {
                self.failed = true;
                None
            }
        }
    }

    /// Writes one info sample, `name_info{labels} 1`.
    pub(crate) fn info(&mut self, labels: &LabelStack<'_>) {
        // Protobuf has no info type: a gauge of 1 in a family named `name_info`, as
        // prometheus-client writes an info metric.
        #[cfg(feature = "protobuf")]
        if let Target::Protobuf(heads) = self.target {
            self.failed |= protobuf::gauge(self.out, heads, labels, 1.0).is_err();
            return;
        }
        if let Some((format, heads)) = self.text_target() {
            TextLines::new(self.out, format, heads).line(
                &heads.info,
                labels,
                Tail::None,
                1u64,
                None,
            );
        }
    }

    /// Writes a state set's samples, `name{labels,name="state"} 1` for the state at `current`
    /// and `0` for the others, in the order of `states`.
    pub(crate) fn state_set(
        &mut self,
        labels: &LabelStack<'_>,
        states: &[&'static str],
        current: usize,
    ) {
        #[cfg(feature = "protobuf")]
        if let Target::Protobuf(heads) = self.target {
            self.failed |= protobuf::state_set(self.out, heads, labels, states, current).is_err();
            return;
        }
        let Some((format, heads)) = self.text_target() else {
            return;
        };
        let mut text = TextLines::new(self.out, format, heads);
        for (index, state) in states.iter().enumerate() {
            let tail = Tail::Pair(&heads.state_key, state);
            text.line(
                &heads.gauge,
                labels,
                tail,
                u64::from(index == current),
                None,
            );
        }
    }

    /// Writes a gauge histogram's samples of this pass: in OpenMetrics `_gsum`, `_gcount`,
    /// then the buckets (the histogram's order); in the classic text the buckets, the
    /// `_gcount` or the `_gsum`, as the pass says.
    pub(crate) fn gauge_histogram(
        &mut self,
        labels: &LabelStack<'_>,
        histogram: &GaugeHistogram,
    ) -> Result<(), fmt::Error> {
        #[cfg(feature = "protobuf")]
        if let Target::Protobuf(heads) = self.target {
            return protobuf::gauge_histogram(self.out, heads, labels, histogram, self.scratch);
        }
        let (format, heads) = self.text_target().ok_or(fmt::Error)?;
        let sum = histogram.read_into(&mut self.scratch.counts);
        let counts = &self.scratch.counts;
        if counts.len() != heads.buckets.len() {
            return Err(fmt::Error);
        }
        let count = counts.iter().copied().fold(0, u64::wrapping_add);
        let pass = self.pass;
        let mut text = TextLines::new(self.out, format, heads);
        if matches!(pass, GaugeHistogramPass::All | GaugeHistogramPass::Sum) {
            text.line(&heads.gsum, labels, Tail::None, sum, None);
        }
        if matches!(pass, GaugeHistogramPass::All | GaugeHistogramPass::Count) {
            text.line(&heads.gcount, labels, Tail::None, count, None);
        }
        if matches!(pass, GaugeHistogramPass::All | GaugeHistogramPass::Buckets) {
            text.buckets(labels, counts, None);
        }
        Ok(())
    }

    /// Writes a histogram's samples in the format's order: `_sum`, `_count`, then the buckets
    /// in OpenMetrics (then `_created` when asked for); the buckets, `_sum`, `_count` in the
    /// classic text; one `Metric` message with its classic and native buckets in protobuf.
    pub(crate) fn histogram(
        &mut self,
        labels: &LabelStack<'_>,
        histogram: &Histogram,
    ) -> Result<(), fmt::Error> {
        let (format, heads, created_lines) = match self.target {
            Target::Text {
                format,
                heads,
                created_lines,
            } => (format, heads, created_lines),
            #[cfg(feature = "protobuf")]
            Target::Protobuf(heads) => {
                return protobuf::histogram(self.out, heads, labels, histogram, self.scratch);
            }
        };
        let sum = histogram.read_into(&mut self.scratch.counts);
        let counts = &self.scratch.counts;
        // The heads were rendered from the family's bounds, which every member shares.
        if counts.len() != heads.buckets.len() {
            return Err(fmt::Error);
        }
        let count = counts.iter().copied().fold(0, u64::wrapping_add);
        let mut text = TextLines::new(self.out, format, heads);
        match format {
            TextFormat::OpenMetrics => {
                text.sum_and_count(labels, sum, count);
                let exemplars = histogram.has_exemplars().then_some(histogram);
                text.buckets(labels, counts, exemplars);
                if created_lines {
                    text.created(labels);
                }
            }
            TextFormat::Prometheus => {
                text.buckets(labels, counts, None);
                text.sum_and_count(labels, sum, count);
            }
        }
        Ok(())
    }
}

/// The sample lines of one family in one text format, written into the scrape's buffer.
struct TextLines<'w> {
    out: &'w mut Vec<u8>,
    format: TextFormat,
    heads: &'w SampleHeads,
}

impl<'w> TextLines<'w> {
    fn new(out: &'w mut Vec<u8>, format: TextFormat, heads: &'w SampleHeads) -> Self {
        TextLines { out, format, heads }
    }

    fn sum_and_count(&mut self, labels: &LabelStack<'_>, sum: f64, count: u64) {
        let heads = self.heads;
        self.line(&heads.sum, labels, Tail::None, sum, None);
        self.line(&heads.count, labels, Tail::None, count, None);
    }

    /// The bucket lines, each with its exemplar when `exemplars` is the histogram to read
    /// them from.
    fn buckets(&mut self, labels: &LabelStack<'_>, counts: &[u64], exemplars: Option<&Histogram>) {
        let heads = self.heads;
        let mut cumulative = 0u64;
        let mut buffer = exemplars.map(|_| ExemplarBuffer::new());
        for (i, head) in heads.buckets.iter().enumerate() {
            cumulative = cumulative.wrapping_add(counts[i]);
            let tail = heads
                .bucket_tails
                .get(i)
                .map_or(Tail::None, |tail| Tail::Rendered(tail));
            let exemplar = match (exemplars, buffer.as_mut()) {
                (Some(histogram), Some(buffer)) => histogram.bucket_exemplar(i, buffer),
                _ => None,
            };
            self.line(head, labels, tail, cumulative, exemplar);
        }
    }

    /// The series' `_created` line: its creation time in seconds, as client_golang writes it
    /// (`expfmt/openmetrics_create.go`, `WithCreatedLines`).
    fn created(&mut self, labels: &LabelStack<'_>) {
        let heads = self.heads;
        self.line(
            &heads.created,
            labels,
            Tail::None,
            labels.created().as_seconds_f64(),
            None,
        );
    }

    /// `head`, the series' labels, `tail` (a classic-text `le`, a state), `}` if a label was
    /// written, ` value`, the exemplar if there is one, and the line feed.
    fn line(
        &mut self,
        head: &Head,
        labels: &LabelStack<'_>,
        tail: Tail<'_>,
        value: impl TextNumber,
        exemplar: Option<ExemplarView<'_>>,
    ) {
        let out = &mut *self.out;
        out.extend_from_slice(head.text.as_bytes());
        let mut list = LabelList {
            out,
            open: head.open,
        };
        for piece in labels.pieces() {
            match *piece {
                Label::Rendered(rendered) => list.rendered(rendered),
                Label::Pair(key, value) => list.pair(key, value),
                Label::Position(key, position) => {
                    list.key(key);
                    list.out
                        .extend_from_slice(itoa::Buffer::new().format(position).as_bytes());
                    list.out.push(b'"');
                }
            }
        }
        match tail {
            Tail::None => {}
            Tail::Rendered(rendered) => list.rendered(rendered),
            Tail::Pair(key, value) => list.pair(key, value),
        }
        if list.open {
            list.out.extend_from_slice(b"} ");
        } else {
            list.out.push(b' ');
        }
        match self.format {
            TextFormat::OpenMetrics => value.push_openmetrics(self.out),
            TextFormat::Prometheus => value.push_prometheus(self.out),
        }
        if let Some(exemplar) = exemplar {
            push_exemplar(self.out, &exemplar);
        }
        self.out.push(b'\n');
    }
}

/// ` # {k="v",...} value timestamp`, as prometheus-client's OpenMetrics encoder writes an
/// exemplar (its `encode_exemplar`): values escaped, numbers with `dtoa`.
fn push_exemplar(out: &mut Vec<u8>, exemplar: &ExemplarView<'_>) {
    out.extend_from_slice(b" # {");
    for (i, (name, value)) in exemplar.labels().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"=\"");
        push_escaped_label_value(out, value);
        out.push(b'"');
    }
    out.extend_from_slice(b"} ");
    exemplar.value().push_openmetrics(out);
    out.push(b' ');
    exemplar.timestamp_seconds().push_openmetrics(out);
}

/// A label list being written: `{` before the first label, `,` between labels.
struct LabelList<'o> {
    out: &'o mut Vec<u8>,
    open: bool,
}

impl LabelList<'_> {
    fn separator(&mut self) {
        self.out.push(if self.open { b',' } else { b'{' });
        self.open = true;
    }

    fn rendered(&mut self, rendered: &str) {
        if !rendered.is_empty() {
            self.separator();
            self.out.extend_from_slice(rendered.as_bytes());
        }
    }

    /// `key="value"`, the value escaped.
    fn pair(&mut self, key: &str, value: &str) {
        self.key(key);
        push_escaped_label_value(self.out, value);
        self.out.push(b'"');
    }

    /// `key="`; the caller writes the value and the closing quote.
    fn key(&mut self, key: &str) {
        self.separator();
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"=\"");
    }
}

/// A family of this crate as a registry level holds it for the text encoder: it writes every
/// sample of its series (the level writes the header lines).
pub(crate) trait TextFamily: Send + Sync + fmt::Debug + 'static {
    /// The `le` labels of the family's histogram buckets in `format` (none for counters and
    /// gauges): what [`SampleHeads`] are rendered with.
    fn bucket_labels(&self, format: TextFormat) -> &[Box<str>];

    /// Appends every sample of the family in the format of `writer`.
    fn write_samples(&self, writer: &mut SeriesWriter<'_>) -> Result<(), fmt::Error>;

    /// Whether [`write_samples`](Self::write_samples) can write the family's protobuf
    /// `Metric`s: every member kind it holds is one the protobuf writer knows. A family
    /// that cannot is encoded by prometheus-client's protobuf encoder.
    #[cfg(feature = "protobuf")]
    fn writes_protobuf(&self) -> bool;
}
