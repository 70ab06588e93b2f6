//! Any [`LabelSet`] as an exemplar's labels: written through prometheus-client's text encoder
//! (its only public way to read a label set) and read back into [`EncodedLabels`]. Here, beside
//! the label sets, rather than with the exemplar slots, which need nothing from this module.

use std::fmt;

use prometheus_client::encoding::text;
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::Registry;

use crate::exemplar::{
    EncodedLabels, ExemplarError, ExemplarLabels, EXEMPLAR_LABEL_BYTES, MAX_EXEMPLAR_CHARS,
};
use crate::labels::LabelSet;

// Not suggested in errors: a slice of pairs with a `String` value is much likelier meant as
// pairs than as a label set, and the trait's own message says what to write.
#[diagnostic::do_not_recommend]
impl<L: LabelSet> ExemplarLabels for L {
    fn encode_exemplar_labels(&self, out: &mut EncodedLabels) -> Result<(), ExemplarError> {
        label_set_as_written(self, out)
    }
}

/// The metric name of the scratch registry a label set is written through.
const SCRATCH_NAME: &str = "exemplar";

/// Bytes of scratch text: the `# HELP`/`# TYPE` lines and the sample line of a label set
/// within [`MAX_EXEMPLAR_CHARS`], each value escaped (at most twice its bytes). A longer text
/// is a label set over the limit.
const SCRATCH_BYTES: usize = 2048;

/// Writes `labels` through prometheus-client's text encoder (as an info metric's sample,
/// `exemplar_info{k="v",...} 1`) and reads the pairs back from the text.
fn label_set_as_written<L: LabelSet>(
    labels: &L,
    out: &mut EncodedLabels,
) -> Result<(), ExemplarError> {
    let mut registry = Registry::default();
    registry.register(SCRATCH_NAME, "", Info::new(labels.clone()));
    let mut text = FixedText::<SCRATCH_BYTES>::new();
    text::encode_registry(&mut text, &registry).map_err(|_| ExemplarError::TooLong {
        chars: MAX_EXEMPLAR_CHARS + 1,
    })?;
    let sample = text
        .as_str()
        .lines()
        .find_map(|line| line.strip_prefix("exemplar_info{"))
        .and_then(|line| line.strip_suffix("} 1"))
        .ok_or(ExemplarError::Unencodable)?;
    parse_written_labels(sample, out)
}

/// Pushes the labels of `k="v",k2="v2"` (values escaped as prometheus-client's text encoder
/// escapes them: `\\`, `\"`, `\n`) into `out`.
fn parse_written_labels(mut text: &str, out: &mut EncodedLabels) -> Result<(), ExemplarError> {
    let mut value = FixedText::<EXEMPLAR_LABEL_BYTES>::new();
    while !text.is_empty() {
        let (name, rest) = text.split_once("=\"").ok_or(ExemplarError::Unencodable)?;
        value.clear();
        let mut chars = rest.char_indices();
        let end = loop {
            match chars.next() {
                Some((i, '"')) => break i,
                Some((_, '\\')) => {
                    let unescaped = match chars.next() {
                        Some((_, 'n')) => '\n',
                        Some((_, c)) => c,
                        None => return Err(ExemplarError::Unencodable),
                    };
                    push_char(&mut value, unescaped)?;
                }
                Some((_, c)) => push_char(&mut value, c)?,
                None => return Err(ExemplarError::Unencodable),
            }
        };
        out.push(name, value.as_str())?;
        text = &rest[end + 1..];
        text = text.strip_prefix(',').unwrap_or(text);
    }
    Ok(())
}

/// Appends `c` to a value being unescaped; a value past the slot's bytes is over the limit.
fn push_char<const N: usize>(value: &mut FixedText<N>, c: char) -> Result<(), ExemplarError> {
    fmt::Write::write_char(value, c).map_err(|_| ExemplarError::TooLong {
        chars: MAX_EXEMPLAR_CHARS + 1,
    })
}

/// A `fmt::Write` into a fixed array: writing past its end is an error, not a reallocation.
struct FixedText<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> FixedText<N> {
    fn new() -> Self {
        Self {
            bytes: [0; N],
            len: 0,
        }
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    fn as_str(&self) -> &str {
        // Only whole `str`s are written, so the bytes are UTF-8.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

impl<const N: usize> fmt::Write for FixedText<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        self.bytes
            .get_mut(self.len..end)
            .ok_or(fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}
