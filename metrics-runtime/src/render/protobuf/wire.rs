//! The protobuf wire format, as much of it as `metrics.proto` needs: varints, fixed 64-bit
//! doubles, and length-delimited fields written in place.
//!
//! A nested message is written straight into the output: its length is reserved before its
//! body (as many bytes as the caller expects the length to take) and filled in after, moving
//! the body only when the guess was wrong. Zero values are left out, as proto3 encoders do.

/// The wire type of a field: a varint, a fixed 64-bit value, or a length-delimited one.
#[derive(Clone, Copy, Debug)]
#[repr(u8)]
enum WireType {
    Varint = 0,
    Fixed64 = 1,
    Len = 2,
}

/// Appends `value` as a base-128 varint.
#[inline]
pub(crate) fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// The bytes the varint of `value` takes.
#[inline]
pub(crate) fn varint_len(value: u64) -> usize {
    // 1 byte per 7 significant bits, at least 1.
    (64 - (value | 1).leading_zeros() as usize).div_ceil(7)
}

#[inline]
fn key(out: &mut Vec<u8>, field: u32, wire: WireType) {
    varint(out, u64::from(field << 3 | wire as u32));
}

/// A `double` field, left out when it is zero.
#[inline]
pub(crate) fn double(out: &mut Vec<u8>, field: u32, value: f64) {
    if value != 0.0 {
        key(out, field, WireType::Fixed64);
        out.extend_from_slice(&value.to_le_bytes());
    }
}

/// A `uint64` (or non-negative `int64`/`int32`) field, left out when it is zero.
#[inline]
pub(crate) fn uint(out: &mut Vec<u8>, field: u32, value: u64) {
    if value != 0 {
        key(out, field, WireType::Varint);
        varint(out, value);
    }
}

/// `value` zigzag-encoded, as `sint32` and `sint64` are.
#[inline]
pub(crate) fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

/// A `sint32`/`sint64` field, left out when it is zero.
#[inline]
pub(crate) fn sint(out: &mut Vec<u8>, field: u32, value: i64) {
    uint(out, field, zigzag(value));
}

/// A `string` field, left out when it is empty.
#[inline]
pub(crate) fn string(out: &mut Vec<u8>, field: u32, value: &[u8]) {
    if !value.is_empty() {
        key(out, field, WireType::Len);
        varint(out, value.len() as u64);
        out.extend_from_slice(value);
    }
}

/// A length-delimited field whose body `body` writes, with `reserve` bytes set aside for its
/// length (the length of most bodies of this kind takes that many bytes).
#[inline]
pub(crate) fn message<R>(
    out: &mut Vec<u8>,
    field: u32,
    reserve: usize,
    body: impl FnOnce(&mut Vec<u8>) -> R,
) -> R {
    key(out, field, WireType::Len);
    delimited(out, reserve, body)
}

/// A varint length followed by the body `body` writes: a length-delimited field's value, or
/// one message of a delimited stream. `reserve` bytes are set aside for the length.
#[inline]
pub(crate) fn delimited<R>(
    out: &mut Vec<u8>,
    reserve: usize,
    body: impl FnOnce(&mut Vec<u8>) -> R,
) -> R {
    let length_at = out.len();
    out.resize(length_at + reserve, 0);
    let start = out.len();
    let result = body(out);
    let end = out.len();
    let length = (end - start) as u64;
    let needed = varint_len(length);
    if needed != reserve {
        // The guess was wrong: the body moves to where a length of `needed` bytes ends.
        let to = length_at + needed;
        if needed > reserve {
            out.resize(end + needed - reserve, 0);
        }
        out.copy_within(start..end, to);
        out.truncate(to + (end - start));
    }
    let mut slot = &mut out[length_at..length_at + needed];
    let mut rest = length;
    while rest >= 0x80 {
        slot[0] = (rest as u8) | 0x80;
        slot = &mut slot[1..];
        rest >>= 7;
    }
    slot[0] = rest as u8;
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message as _;

    #[test]
    fn varints_match_prost() {
        for value in [0u64, 1, 127, 128, 300, 16_383, 16_384, u64::MAX] {
            let mut ours = Vec::new();
            varint(&mut ours, value);
            let mut theirs = Vec::new();
            prost::encoding::encode_varint(value, &mut theirs);
            assert_eq!(ours, theirs, "{value}");
            assert_eq!(varint_len(value), theirs.len(), "{value}");
        }
        for value in [0i64, -1, 1, -64, 64, i64::MIN, i64::MAX] {
            let expected = ((value << 1) ^ (value >> 63)) as u64;
            assert_eq!(zigzag(value), expected);
        }
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
    }

    /// A message whose length needs fewer, as many, or more bytes than reserved decodes the
    /// same: the body moves to where its length ends.
    #[test]
    fn a_wrong_length_guess_moves_the_body() {
        for reserve in 1..=3 {
            for size in [0usize, 5, 127, 128, 200, 20_000] {
                let text = "x".repeat(size);
                let mut out = vec![9];
                message(&mut out, 1, reserve, |out| string(out, 1, text.as_bytes()));
                out.push(7);
                let ours = &out[1..out.len() - 1];
                let expected = prometheus_client::encoding::prometheus_protobuf::prometheus_data_model::LabelPair {
                    name: text.clone(),
                    value: String::new(),
                };
                let mut theirs = Vec::new();
                prost::encoding::message::encode(1, &expected, &mut theirs);
                assert_eq!(ours, &theirs[..], "reserve {reserve}, size {size}");
                assert_eq!((out[0], out[out.len() - 1]), (9, 7));
                assert_eq!(
                    expected.encoded_len() + 1 + varint_len(expected.encoded_len() as u64),
                    theirs.len()
                );
            }
        }
    }
}
