//! The text encoder of this crate's families: each sample line is copies of bytes rendered
//! once (the family's name, the scope's const labels, each series' label set, the histogram
//! `le` values) and one number formatted as prometheus-client formats it.
//!
//! Its output is byte for byte what prometheus-client's text encoders write followed by this
//! crate's sanitising pass (control characters as control pictures): the label bytes are
//! rendered through prometheus-client's own label encoder and sanitised when a series is
//! created ([`once`]), and the numbers use the crates it uses (`itoa`, `dtoa`).
//!
//! * [`SeriesWriter`]: what a family's members write their samples with.
//! * [`LabelStack`]: the labels of one series, outermost first, as borrowed pieces.
//! * [`number`]: the value formats of the two text formats.

pub(crate) mod number;
pub(crate) mod once;

use std::fmt;

use crate::record::histogram::HistogramSnapshot;
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

/// Where a family's members write their samples: the scrape's buffer, the format, and what
/// the family rendered once (name, const labels, histogram `le` values).
#[derive(Debug)]
pub struct SeriesWriter<'a> {
    out: &'a mut Vec<u8>,
    format: TextFormat,
    /// The sample name before any suffix: prefix, name and unit.
    name: &'a str,
    /// The const labels of the registry level, rendered (`k="v",...`), possibly empty.
    const_labels: &'a str,
    /// The `le="..."` label of each bucket, `+Inf` included, in this format's spelling.
    le: &'a [Box<str>],
}

impl<'a> SeriesWriter<'a> {
    pub(crate) fn new(
        out: &'a mut Vec<u8>,
        format: TextFormat,
        name: &'a str,
        const_labels: &'a str,
        le: &'a [Box<str>],
    ) -> Self {
        SeriesWriter {
            out,
            format,
            name,
            const_labels,
            le,
        }
    }

    /// Writes one counter sample, `name_total{labels} value`.
    pub(crate) fn counter(&mut self, labels: &LabelStack<'_>, value: impl TextNumber) {
        self.sample_name("_total");
        self.labels(labels, None);
        self.value(value);
    }

    /// Writes one gauge sample, `name{labels} value`.
    pub(crate) fn gauge(&mut self, labels: &LabelStack<'_>, value: impl TextNumber) {
        self.sample_name("");
        self.labels(labels, None);
        self.value(value);
    }

    /// Writes a histogram's samples in the format's order: `_sum`, `_count`, then the buckets
    /// in OpenMetrics; the buckets, `_sum`, `_count` in the classic text.
    pub(crate) fn histogram(
        &mut self,
        labels: &LabelStack<'_>,
        snapshot: &HistogramSnapshot,
    ) -> Result<(), fmt::Error> {
        let counts = snapshot.bucket_counts();
        // The `le` values were rendered from the family's bounds, which every member shares.
        if counts.len() != self.le.len() {
            return Err(fmt::Error);
        }
        let count = snapshot.count();
        match self.format {
            TextFormat::OpenMetrics => {
                self.histogram_sum_and_count(labels, snapshot.sum(), count);
                self.buckets(labels, counts);
            }
            TextFormat::Prometheus => {
                self.buckets(labels, counts);
                self.histogram_sum_and_count(labels, snapshot.sum(), count);
            }
        }
        Ok(())
    }

    fn histogram_sum_and_count(&mut self, labels: &LabelStack<'_>, sum: f64, count: u64) {
        self.sample_name("_sum");
        self.labels(labels, None);
        self.value(sum);
        self.sample_name("_count");
        self.labels(labels, None);
        self.value(count);
    }

    fn buckets(&mut self, labels: &LabelStack<'_>, counts: &[u64]) {
        let le = self.le;
        let mut cumulative = 0u64;
        for (count, le) in counts.iter().zip(le.iter()) {
            cumulative = cumulative.wrapping_add(*count);
            self.sample_name("_bucket");
            self.labels(labels, Some(le));
            self.value(cumulative);
        }
    }

    fn sample_name(&mut self, suffix: &str) {
        self.out.extend_from_slice(self.name.as_bytes());
        self.out.extend_from_slice(suffix.as_bytes());
    }

    /// `{...}` with the const labels, the series' labels and `le`, where prometheus-client
    /// puts it: before the series' labels in OpenMetrics, after them in the classic text.
    /// Nothing when there is no label at all.
    fn labels(&mut self, labels: &LabelStack<'_>, le: Option<&str>) {
        let mut list = LabelList {
            out: self.out,
            open: false,
        };
        list.rendered(self.const_labels);
        let om = self.format == TextFormat::OpenMetrics;
        if om {
            list.rendered(le.unwrap_or(""));
        }
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
        if !om {
            list.rendered(le.unwrap_or(""));
        }
        if list.open {
            list.out.push(b'}');
        }
    }

    /// ` value\n`.
    fn value(&mut self, value: impl TextNumber) {
        self.out.push(b' ');
        match self.format {
            TextFormat::OpenMetrics => value.push_openmetrics(self.out),
            TextFormat::Prometheus => value.push_prometheus(self.out),
        }
        self.out.push(b'\n');
    }
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
    /// Appends every sample of the family, named `name` (prefix, name and unit), carrying
    /// `const_labels` first, in `format`.
    fn write_samples(
        &self,
        out: &mut Vec<u8>,
        format: TextFormat,
        name: &str,
        const_labels: &str,
    ) -> Result<(), fmt::Error>;
}
