//! What a scrape reads out of a slot: [`ExemplarBuffer`], the caller's space a read copies
//! into, and [`ExemplarView`], the exemplar borrowed from it.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use prometheus_client::encoding::{EncodeLabelSet, LabelSetEncoder};

use super::labels::{LabelPairs, EXEMPLAR_LABEL_BYTES};

/// Space for one exemplar, filled by [`ExemplarSlot::read`](crate::exemplar::ExemplarSlot::read): keep
/// one per scrape and reuse it for every slot, so reading allocates nothing.
#[derive(Clone)]
pub struct ExemplarBuffer {
    pub(super) bytes: [u8; EXEMPLAR_LABEL_BYTES],
    pub(super) len: usize,
    pub(super) value: f64,
    /// Nanoseconds since the Unix epoch, as the slot stores them.
    pub(super) timestamp: i64,
}

impl Default for ExemplarBuffer {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for ExemplarBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ExemplarBuffer").field(&self.view()).finish()
    }
}

impl ExemplarBuffer {
    /// An empty buffer.
    pub const fn new() -> Self {
        Self {
            bytes: [0; EXEMPLAR_LABEL_BYTES],
            len: 0,
            value: 0.0,
            timestamp: 0,
        }
    }

    pub(super) fn view(&self) -> ExemplarView<'_> {
        ExemplarView {
            labels: &self.bytes[..self.len],
            value: self.value,
            timestamp: self.timestamp,
        }
    }
}

const NANOS_PER_SECOND: i64 = 1_000_000_000;

/// What a read of a slot found.
#[derive(Clone, Copy, Debug)]
pub enum ExemplarRead<'b> {
    /// No exemplar was ever recorded in the slot: write the sample without one.
    Empty,
    /// The latest exemplar, whole.
    Exemplar(ExemplarView<'b>),
    /// Writers changed the slot during every copy the read tried: write the sample without an
    /// exemplar this scrape (the next scrape reads it again).
    Contended,
}

impl<'b> ExemplarRead<'b> {
    /// The exemplar, if the read found one whole.
    pub fn exemplar(self) -> Option<ExemplarView<'b>> {
        match self {
            Self::Exemplar(view) => Some(view),
            Self::Empty | Self::Contended => None,
        }
    }
}

/// One exemplar as a read copied it, borrowed from the [`ExemplarBuffer`].
#[derive(Clone, Copy)]
pub struct ExemplarView<'b> {
    labels: &'b [u8],
    value: f64,
    /// Nanoseconds since the Unix epoch (negative before it).
    timestamp: i64,
}

impl<'b> ExemplarView<'b> {
    /// The labels, `(name, value)` in the order recorded. The values are raw: a text encoder
    /// escapes them as it escapes any label value.
    pub fn labels(&self) -> LabelPairs<'b> {
        LabelPairs::new(self.labels)
    }

    /// The labels as a prometheus-client label set, for its encoders.
    pub fn label_set(&self) -> ExemplarLabelSet<'b> {
        ExemplarLabelSet {
            labels: self.labels,
        }
    }

    /// The exemplar's value: the observation (a histogram's) or the increment (a counter's).
    pub fn value(&self) -> f64 {
        self.value
    }

    /// When it was recorded, in seconds since the Unix epoch: the exemplar timestamp
    /// OpenMetrics writes after the value.
    pub fn timestamp_seconds(&self) -> f64 {
        // Whole seconds and the fraction apart: the seconds alone are exact in an `f64`.
        let seconds = self.timestamp.div_euclid(NANOS_PER_SECOND);
        let nanos = self.timestamp.rem_euclid(NANOS_PER_SECOND);
        seconds as f64 + nanos as f64 / NANOS_PER_SECOND as f64
    }

    /// When it was recorded, as a `SystemTime` (prometheus-client's exemplar timestamp type);
    /// `None` for a time `SystemTime` cannot hold.
    pub fn timestamp(&self) -> Option<SystemTime> {
        let offset = Duration::from_nanos(self.timestamp.unsigned_abs());
        if self.timestamp >= 0 {
            UNIX_EPOCH.checked_add(offset)
        } else {
            UNIX_EPOCH.checked_sub(offset)
        }
    }
}

impl fmt::Debug for ExemplarView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExemplarView")
            .field("labels", &self.label_set())
            .field("value", &self.value)
            .field("timestamp_seconds", &self.timestamp_seconds())
            .finish()
    }
}

/// An exemplar's labels as prometheus-client's `EncodeLabelSet`: what its `Exemplar<S, f64>`
/// needs as `S`, borrowed from the read's buffer.
#[derive(Clone, Copy)]
pub struct ExemplarLabelSet<'b> {
    labels: &'b [u8],
}

impl fmt::Debug for ExemplarLabelSet<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(LabelPairs::new(self.labels)).finish()
    }
}

impl EncodeLabelSet for ExemplarLabelSet<'_> {
    fn encode(&self, encoder: &mut LabelSetEncoder<'_>) -> Result<(), fmt::Error> {
        for (name, value) in LabelPairs::new(self.labels) {
            let mut label = encoder.encode_label();
            let mut key = label.encode_label_key()?;
            fmt::Write::write_str(&mut key, name)?;
            let mut label_value = key.encode_label_value()?;
            fmt::Write::write_str(&mut label_value, value)?;
            label_value.finish()?;
        }
        Ok(())
    }
}
