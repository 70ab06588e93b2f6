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
//!
//! Exemplars (OpenMetrics only; the classic text has no place for them) follow the value of a
//! counter's `_total` line and of a bucket's line as prometheus-client's OpenMetrics encoder
//! writes them: ` # {k="v"} value timestamp`, the label values escaped as a series' are, the
//! value and the timestamp (seconds since the epoch) with `dtoa`.

#[cfg(test)]
mod exemplar_tests;
pub(crate) mod number;
pub(crate) mod once;
#[cfg(test)]
mod parity_tests;

use std::fmt;

use crate::record::exemplar::{ExemplarBuffer, ExemplarView};
use crate::record::histogram::Histogram;
use crate::sanitize::push_escaped_label_value;
use number::TextNumber;

/// Which text format a scrape writes: they differ in float spelling, histogram line order and
/// where the `le` label goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextFormat {
    /// OpenMetrics 1.0.0 text.
    OpenMetrics,
    /// The Prometheus text format 0.0.4 (and 1.0.0, which reads the same bytes).
    Prometheus,
}

/// One label of a series, as the encoder writes it.
#[derive(Clone, Copy, Debug)]
pub enum Label<'a> {
    /// Labels rendered once (`k="v",k2="v2"`, escaped and sanitised), possibly none.
    Rendered(&'a str),
    /// One `key="value"` whose value is escaped as it is written (an enum axis's value).
    Pair(&'static str, &'a str),
    /// One `key="position"`.
    Position(&'static str, usize),
}

/// The most labels pieces a series is written from: the common label set, up to four grid
/// axes or one axis and a dynamic label set, and the overflow label, with room to spare.
const MAX_PIECES: usize = 8;

/// The labels of one series as pieces borrowed from the family, its members and the stack of
/// the encoder: a copy costs a few words, and pushing allocates nothing.
#[derive(Clone, Copy, Debug)]
pub struct LabelStack<'a> {
    pieces: [Label<'a>; MAX_PIECES],
    len: usize,
}

impl<'a> LabelStack<'a> {
    /// The labels `first` alone.
    pub(crate) fn new(first: Label<'a>) -> Self {
        let mut stack = LabelStack {
            pieces: [Label::Rendered(""); MAX_PIECES],
            len: 0,
        };
        stack.pieces[0] = first;
        stack.len = 1;
        stack
    }

    /// These labels followed by `label`. Past [`MAX_PIECES`] pieces (a member nested deeper
    /// than any this crate builds) the encode fails rather than drop a label.
    pub(crate) fn with(mut self, label: Label<'a>) -> Result<Self, fmt::Error> {
        let slot = self.pieces.get_mut(self.len).ok_or(fmt::Error)?;
        *slot = label;
        self.len += 1;
        Ok(self)
    }

    fn pieces(&self) -> &[Label<'a>] {
        &self.pieces[..self.len]
    }
}

/// The start of every kind of sample line of one family in one format, rendered when the
/// family is registered: the name and suffix, then `{` and the const labels if there are any
/// (and, for an OpenMetrics bucket, its `le` label, which prometheus-client writes before the
/// series' labels). A line is then this head, the series' labels, the value.
#[derive(Debug)]
pub(crate) struct SampleHeads {
    gauge: Head,
    counter: Head,
    sum: Head,
    count: Head,
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
            sum: head("_sum"),
            count: head("_count"),
            buckets,
            bucket_tails,
        }
    }
}

/// Where a family's members write their samples: the scrape's buffer, the format, the heads
/// the family rendered at registration, and a scratch buffer for histogram reads.
#[derive(Debug)]
pub struct SeriesWriter<'a> {
    out: &'a mut Vec<u8>,
    format: TextFormat,
    heads: &'a SampleHeads,
    /// Storage that outlives the scrape, so a steady scrape allocates nothing.
    scratch: &'a mut Scratch,
}

/// What a scrape reads into besides its output, kept by the thread between scrapes.
#[derive(Debug, Default)]
pub struct Scratch {
    /// A histogram's bucket counts.
    counts: Vec<u64>,
    /// The order of a position axis's series beyond the pre-resolved ones.
    order: Vec<usize>,
}

impl<'a> SeriesWriter<'a> {
    pub(crate) fn new(
        out: &'a mut Vec<u8>,
        format: TextFormat,
        heads: &'a SampleHeads,
        scratch: &'a mut Scratch,
    ) -> Self {
        SeriesWriter {
            out,
            format,
            heads,
            scratch,
        }
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
    /// prometheus-client's).
    pub(crate) fn counter(&mut self, labels: &LabelStack<'_>, value: impl TextNumber) {
        let heads = self.heads;
        self.line(&heads.counter, labels, "", value, None);
    }

    /// Writes one counter sample, `name_total{labels} value`, and in OpenMetrics the
    /// exemplar `read_exemplar` copies into the buffer it is given, if any.
    pub(crate) fn counter_with_exemplar(
        &mut self,
        labels: &LabelStack<'_>,
        value: impl TextNumber,
        read_exemplar: impl for<'b> FnOnce(&'b mut ExemplarBuffer) -> Option<ExemplarView<'b>>,
    ) {
        let heads = self.heads;
        if self.format == TextFormat::OpenMetrics {
            let mut buffer = ExemplarBuffer::new();
            let exemplar = read_exemplar(&mut buffer);
            self.line(&heads.counter, labels, "", value, exemplar);
        } else {
            self.line(&heads.counter, labels, "", value, None);
        }
    }

    /// Writes one gauge sample, `name{labels} value`.
    pub(crate) fn gauge(&mut self, labels: &LabelStack<'_>, value: impl TextNumber) {
        let heads = self.heads;
        self.line(&heads.gauge, labels, "", value, None);
    }

    /// Writes a histogram's samples in the format's order: `_sum`, `_count`, then the buckets
    /// in OpenMetrics; the buckets, `_sum`, `_count` in the classic text.
    pub(crate) fn histogram(
        &mut self,
        labels: &LabelStack<'_>,
        histogram: &Histogram,
    ) -> Result<(), fmt::Error> {
        let sum = histogram.read_into(&mut self.scratch.counts);
        // The heads were rendered from the family's bounds, which every member shares.
        if self.scratch.counts.len() != self.heads.buckets.len() {
            return Err(fmt::Error);
        }
        let count = self
            .scratch
            .counts
            .iter()
            .copied()
            .fold(0, u64::wrapping_add);
        match self.format {
            TextFormat::OpenMetrics => {
                self.sum_and_count(labels, sum, count);
                let exemplars = histogram.has_exemplars().then_some(histogram);
                self.buckets(labels, exemplars);
            }
            TextFormat::Prometheus => {
                self.buckets(labels, None);
                self.sum_and_count(labels, sum, count);
            }
        }
        Ok(())
    }

    fn sum_and_count(&mut self, labels: &LabelStack<'_>, sum: f64, count: u64) {
        let heads = self.heads;
        self.line(&heads.sum, labels, "", sum, None);
        self.line(&heads.count, labels, "", count, None);
    }

    /// The bucket lines, each with its exemplar when `exemplars` is the histogram to read
    /// them from.
    fn buckets(&mut self, labels: &LabelStack<'_>, exemplars: Option<&Histogram>) {
        let heads = self.heads;
        let mut cumulative = 0u64;
        let mut buffer = exemplars.map(|_| ExemplarBuffer::new());
        for (i, head) in heads.buckets.iter().enumerate() {
            cumulative = cumulative.wrapping_add(self.scratch.counts[i]);
            let tail = heads.bucket_tails.get(i).map_or("", |tail| &**tail);
            let exemplar = match (exemplars, buffer.as_mut()) {
                (Some(histogram), Some(buffer)) => histogram.bucket_exemplar(i, buffer),
                _ => None,
            };
            self.line(head, labels, tail, cumulative, exemplar);
        }
    }

    /// `head`, the series' labels, `tail` (a classic-text `le`), `}` if a label was written,
    /// ` value`, the exemplar if there is one, and the line feed.
    fn line(
        &mut self,
        head: &Head,
        labels: &LabelStack<'_>,
        tail: &str,
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
                Label::Pair(key, value) => {
                    list.key(key);
                    push_escaped_label_value(list.out, value);
                    list.out.push(b'"');
                }
                Label::Position(key, position) => {
                    list.key(key);
                    list.out
                        .extend_from_slice(itoa::Buffer::new().format(position).as_bytes());
                    list.out.push(b'"');
                }
            }
        }
        list.rendered(tail);
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
}
