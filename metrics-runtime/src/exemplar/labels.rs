//! What an exemplar's labels may be ([`ExemplarLabels`]), the rules they are checked against,
//! and the compact form they are stored in ([`EncodedLabels`]).
//!
//! The stored form is a run of pairs, each a 1-byte name length, a 2-byte (little-endian)
//! value length, the name's bytes and the value's bytes. Label names are ASCII
//! (`[a-zA-Z_][a-zA-Z0-9_]*`), so `k` pairs within [`MAX_EXEMPLAR_CHARS`] characters take at
//! most `k` name bytes, `4 * (128 - k)` value bytes and `3 * k` length bytes: never more than
//! [`EXEMPLAR_LABEL_BYTES`] (512). Every exemplar the rules accept fits; no byte budget of its
//! own rejects anything.

use std::fmt;

use super::rules::{ExemplarError, MAX_EXEMPLAR_CHARS};

/// The bytes an exemplar's labels take in a slot, at most: enough for every label set within
/// [`MAX_EXEMPLAR_CHARS`], whatever its characters (see [`EncodedLabels`]).
pub const EXEMPLAR_LABEL_BYTES: usize = 512;

/// The bytes of a pair's lengths: the name's (1 byte), the value's (2 bytes).
const PAIR_HEADER: usize = 3;

/// An exemplar's labels, checked and laid out as a slot stores them: filled on the caller's
/// stack by [`ExemplarLabels::encode_exemplar_labels`], without allocating.
///
/// [`EncodedLabels::push`] checks each pair as it comes: a valid label name, no name twice,
/// and no more than [`MAX_EXEMPLAR_CHARS`] characters of names and values in all.
#[derive(Clone)]
pub struct EncodedLabels {
    bytes: [u8; EXEMPLAR_LABEL_BYTES],
    len: usize,
    chars: usize,
}

impl Default for EncodedLabels {
    fn default() -> Self {
        Self::new()
    }
}

impl EncodedLabels {
    /// No labels (a valid exemplar label set: OpenMetrics writes it `# {} value`).
    pub const fn new() -> Self {
        Self {
            bytes: [0; EXEMPLAR_LABEL_BYTES],
            len: 0,
            chars: 0,
        }
    }

    /// Appends the label `name="value"`, or says which rule it breaks (the labels pushed
    /// before it are kept).
    pub fn push(&mut self, name: &str, value: &str) -> Result<(), ExemplarError> {
        if !is_ascii_label_name(name.as_bytes()) {
            return Err(ExemplarError::InvalidLabelName);
        }
        if self.pairs().any(|(seen, _)| seen == name) {
            return Err(ExemplarError::DuplicateLabelName);
        }
        // Names are ASCII: a byte is a character.
        let chars = self.chars + name.len() + value.chars().count();
        if chars > MAX_EXEMPLAR_CHARS {
            return Err(ExemplarError::TooLong { chars });
        }
        let end = self.len + PAIR_HEADER + name.len() + value.len();
        // Within the character limit the pair always fits (the module's arithmetic); the check
        // keeps a broken invariant an error instead of a panic.
        let (Some(target), Ok(name_len), Ok(value_len)) = (
            self.bytes.get_mut(self.len..end),
            u8::try_from(name.len()),
            u16::try_from(value.len()),
        ) else {
            return Err(ExemplarError::TooLong { chars });
        };
        let (header, text) = target.split_at_mut(PAIR_HEADER);
        header[0] = name_len;
        header[1..].copy_from_slice(&value_len.to_le_bytes());
        let (name_bytes, value_bytes) = text.split_at_mut(name.len());
        name_bytes.copy_from_slice(name.as_bytes());
        value_bytes.copy_from_slice(value.as_bytes());
        self.len = end;
        self.chars = chars;
        Ok(())
    }

    /// `pairs` checked and laid out once, to be recorded many times (see
    /// [`ExemplarLabels::as_checked`]).
    pub fn try_from_pairs(pairs: &[(&str, &str)]) -> Result<Self, ExemplarError> {
        let mut labels = Self::new();
        pairs.encode_exemplar_labels(&mut labels)?;
        Ok(labels)
    }

    /// The labels, in the order pushed.
    pub fn pairs(&self) -> LabelPairs<'_> {
        LabelPairs::new(self.as_bytes())
    }

    /// Whether no label was pushed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The characters of names and values so far.
    pub fn chars(&self) -> usize {
        self.chars
    }

    /// The stored form: what a slot copies.
    pub(super) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// The stored form as the little-endian words a slot keeps, the last one padded with
    /// whatever follows the labels in the buffer (a reader takes only the first `len` bytes):
    /// a slot copies them a word at a time, with no byte to shift into place.
    pub(super) fn words(&self) -> impl Iterator<Item = u64> + '_ {
        let padded = self.len.div_ceil(8) * 8;
        let bytes = self.bytes.get(..padded).unwrap_or(&self.bytes);
        bytes.chunks_exact(8).map(|chunk| {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            u64::from_le_bytes(word)
        })
    }
}

impl fmt::Debug for EncodedLabels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.pairs()).finish()
    }
}

/// The label pairs of a stored form, as `(name, value)` borrowed from it. Ends early at
/// anything malformed, which a slot never hands out (its reads check the form whole first).
#[derive(Clone, Debug)]
pub struct LabelPairs<'a> {
    rest: &'a [u8],
}

impl<'a> LabelPairs<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Self { rest: bytes }
    }

    /// Whether `bytes` is a whole stored form: pairs end to end, names valid, text UTF-8.
    pub(super) fn is_well_formed(bytes: &[u8]) -> bool {
        let mut pairs = LabelPairs::new(bytes);
        while !pairs.rest.is_empty() {
            match pairs.next() {
                Some((name, _)) if is_ascii_label_name(name.as_bytes()) => {}
                _ => return false,
            }
        }
        true
    }
}

impl<'a> Iterator for LabelPairs<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        let (&[name_len, low, high], rest) = self.rest.split_first_chunk::<PAIR_HEADER>()?;
        let name_len = usize::from(name_len);
        let value_len = usize::from(u16::from_le_bytes([low, high]));
        let name = rest.get(..name_len)?;
        let value = rest.get(name_len..name_len + value_len)?;
        let pair = (
            std::str::from_utf8(name).ok()?,
            std::str::from_utf8(value).ok()?,
        );
        self.rest = &rest[name_len + value_len..];
        Some(pair)
    }
}

/// Labels an exemplar can carry: `&[("trace_id", id)]`, `[("trace_id", id); N]`, any
/// [`LabelSet`](crate::LabelSet), or a type of your own.
///
/// Slices and arrays of `(&str, &str)` are checked and copied without allocating: the form
/// for hot paths. A `#[derive(LabelSet)]` type is written through prometheus-client's text
/// encoder (its only public way to read a label set), which allocates a scratch registry on
/// each call. A type of your own that knows its labels pushes them itself, allocating nothing:
///
/// ```
/// use metric_handles::exemplar::{EncodedLabels, ExemplarError, ExemplarLabels};
///
/// struct TraceId([u8; 16]);
///
/// impl ExemplarLabels for TraceId {
///     fn encode_exemplar_labels(&self, out: &mut EncodedLabels) -> Result<(), ExemplarError> {
///         const HEX: &[u8; 16] = b"0123456789abcdef";
///         let mut hex = [0u8; 32];
///         for (i, byte) in self.0.iter().enumerate() {
///             hex[2 * i] = HEX[usize::from(byte >> 4)];
///             hex[2 * i + 1] = HEX[usize::from(byte & 15)];
///         }
///         let hex = std::str::from_utf8(&hex).map_err(|_| ExemplarError::Unencodable)?;
///         out.push("trace_id", hex)
///     }
/// }
///
/// let mut out = EncodedLabels::new();
/// TraceId([0xab; 16]).encode_exemplar_labels(&mut out)?;
/// assert_eq!(out.pairs().next(), Some(("trace_id", "abababababababababababababababab")));
/// # Ok::<(), ExemplarError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an exemplar's labels",
    label = "not exemplar labels",
    note = "an exemplar's labels are `(&str, &str)` pairs: write a `String` value as `&[(\"trace_id\", trace_id.as_str())]`; or pass a `#[derive(LabelSet)]` struct, or `EncodedLabels` checked once for many records"
)]
pub trait ExemplarLabels {
    /// Pushes every label into `out` (empty when called), or returns the first rule broken.
    fn encode_exemplar_labels(&self, out: &mut EncodedLabels) -> Result<(), ExemplarError>;

    /// The labels as a slice of `(name, value)` pairs, for types that hold them so: a slot
    /// then checks them in place and copies them straight in, without laying them out on the
    /// stack first. `None` (the default) takes the [`encode_exemplar_labels`] path.
    ///
    /// [`encode_exemplar_labels`]: Self::encode_exemplar_labels
    fn as_pairs(&self) -> Option<&[(&str, &str)]> {
        None
    }

    /// The labels already checked and laid out ([`EncodedLabels`]): a slot copies them without
    /// checking them again. `None` (the default) checks them on every record.
    fn as_checked(&self) -> Option<&EncodedLabels> {
        None
    }
}

impl ExemplarLabels for [(&str, &str)] {
    fn encode_exemplar_labels(&self, out: &mut EncodedLabels) -> Result<(), ExemplarError> {
        self.iter()
            .try_for_each(|&(name, value)| out.push(name, value))
    }

    fn as_pairs(&self) -> Option<&[(&str, &str)]> {
        Some(self)
    }
}

impl ExemplarLabels for &[(&str, &str)] {
    fn encode_exemplar_labels(&self, out: &mut EncodedLabels) -> Result<(), ExemplarError> {
        (**self).encode_exemplar_labels(out)
    }

    fn as_pairs(&self) -> Option<&[(&str, &str)]> {
        Some(self)
    }
}

impl<const N: usize> ExemplarLabels for [(&str, &str); N] {
    fn encode_exemplar_labels(&self, out: &mut EncodedLabels) -> Result<(), ExemplarError> {
        self.as_slice().encode_exemplar_labels(out)
    }

    fn as_pairs(&self) -> Option<&[(&str, &str)]> {
        Some(self)
    }
}

/// Labels checked once and recorded many times: a request builds its trace's labels when it
/// starts, and every exemplar it records copies them without checking them again.
///
/// ```
/// use metric_handles::Histogram;
/// use metric_handles::exemplar::EncodedLabels;
///
/// let trace = EncodedLabels::try_from_pairs(&[("trace_id", "3a2f90c9f80b894f")])?;
/// let latency = Histogram::new([0.1, 1.0]);
/// latency.observe_with_exemplar(0.3, &trace)?;
/// # Ok::<(), metric_handles::exemplar::ExemplarError>(())
/// ```
impl ExemplarLabels for EncodedLabels {
    fn encode_exemplar_labels(&self, out: &mut EncodedLabels) -> Result<(), ExemplarError> {
        out.clone_from(self);
        Ok(())
    }

    fn as_checked(&self) -> Option<&EncodedLabels> {
        Some(self)
    }
}

/// Checks `pairs` against the rules, in place, and returns the bytes their stored form takes
/// (the same answers as pushing them one by one into [`EncodedLabels`], without the copy).
pub(super) fn check_pairs(pairs: &[(&str, &str)]) -> Result<usize, ExemplarError> {
    let mut bytes = 0;
    let mut text_bytes = 0;
    // Characters are counted only once the bytes pass the limit: a character takes at least
    // one byte, so the common (short, ASCII) label set is never counted char by char.
    let mut chars = None;
    for (i, &(name, value)) in pairs.iter().enumerate() {
        if !is_ascii_label_name(name.as_bytes()) {
            return Err(ExemplarError::InvalidLabelName);
        }
        if pairs[..i].iter().any(|&(seen, _)| seen == name) {
            return Err(ExemplarError::DuplicateLabelName);
        }
        bytes += PAIR_HEADER + name.len() + value.len();
        text_bytes += name.len() + value.len();
        if text_bytes > MAX_EXEMPLAR_CHARS {
            let before = *chars.get_or_insert_with(|| {
                pairs[..i]
                    .iter()
                    .map(|&(name, value)| name.len() + value.chars().count())
                    .sum::<usize>()
            });
            let after = before + name.len() + value.chars().count();
            if after > MAX_EXEMPLAR_CHARS {
                return Err(ExemplarError::TooLong { chars: after });
            }
            chars = Some(after);
        }
    }
    // Within the character limit the stored form always fits (the module's arithmetic); the
    // check keeps a broken invariant an error instead of a short copy.
    if bytes > EXEMPLAR_LABEL_BYTES
        || pairs
            .iter()
            .any(|&(_, value)| value.len() > usize::from(u16::MAX))
    {
        return Err(ExemplarError::TooLong {
            chars: MAX_EXEMPLAR_CHARS + 1,
        });
    }
    Ok(bytes)
}

/// Whether `name` is a label name, `[a-zA-Z_][a-zA-Z0-9_]*`, checked byte by byte (any byte
/// of a multi-byte character fails) without decoding characters.
fn is_ascii_label_name(name: &[u8]) -> bool {
    match name.split_first() {
        Some((first, rest)) => {
            (first.is_ascii_alphabetic() || *first == b'_')
                && rest.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
        }
        None => false,
    }
}

/// The stored form's header of one pair: the name's length (1 byte), the value's (2 bytes,
/// little-endian). Only called on checked pairs, whose lengths fit.
pub(super) fn pair_header(name: &str, value: &str) -> [u8; PAIR_HEADER] {
    let [low, high] = (value.len() as u16).to_le_bytes();
    [name.len() as u8, low, high]
}
