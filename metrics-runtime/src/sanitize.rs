//! What prometheus-client's encoders leave for the parsers to trip on, fixed once per scrape.
//!
//! * **Control characters.** The formats define escapes for `\`, `"` and the line feed only,
//!   and prometheus-client writes every other character raw. A raw carriage return is legal
//!   in the grammar, but Python's `prometheus_client` reads a scrape as text with universal
//!   newlines and rejects the whole scrape; other control characters make no sense in a
//!   label value or help text. Each C0 control character but the line feed, and DEL, is
//!   written as its Unicode control picture (`\r` as `␍` U+240D, NUL as `␀` U+2400, DEL as
//!   `␡` U+2421): visible, valid UTF-8, accepted by every parser, and never confused with the
//!   escapes.
//! * **OpenMetrics help text.** prometheus-client writes `# HELP` text raw in OpenMetrics,
//!   where `\` and `"` must be escaped (`\\`, `\"`); the classic text format escapes them
//!   itself. Line breaks in help text are made spaces at registration (`help_line`), so each
//!   `# HELP` line here is whole.
//!
//! A scrape with neither (the common case) is returned as it is, after one scan.

use std::borrow::Cow;

/// `text` (one encoded exposition) with control characters replaced and, for OpenMetrics,
/// the `# HELP` text escaped.
pub(crate) fn sanitize(text: String, openmetrics: bool) -> String {
    let has_controls = has_replaced_control(text.as_bytes());
    let help_needs_escape = openmetrics && help_has_specials(&text);
    if !has_controls && !help_needs_escape {
        return text;
    }
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for line in text.split_inclusive('\n') {
        match openmetrics.then(|| help_text_start(line)).flatten() {
            Some(start) => {
                push_replacing_controls(&mut out, &line[..start]);
                for c in line[start..].chars() {
                    match c {
                        '\\' => out.push_str("\\\\"),
                        '"' => out.push_str("\\\""),
                        c => push_char_replacing_controls(&mut out, c),
                    }
                }
            }
            None => push_replacing_controls(&mut out, line),
        }
    }
    out
}

/// `help` as one line: every line break (`\r\n`, `\n`, `\r`) and tab becomes one space.
pub(crate) fn help_line(help: &str) -> Cow<'_, str> {
    if !help.contains(['\n', '\r', '\t']) {
        return Cow::Borrowed(help);
    }
    Cow::Owned(help.replace("\r\n", " ").replace(['\n', '\r', '\t'], " "))
}

/// `help` as a family in a run-time set shows it: one line ([`help_line`]) with the final `.`
/// that prometheus-client's registry appends to a registered family's help, so a family reads
/// the same whichever way it was registered.
pub(crate) fn exposed_help(help: &str) -> String {
    format!("{}.", help_line(help))
}

/// The byte offset where the help text of a `# HELP name text` line starts.
fn help_text_start(line: &str) -> Option<usize> {
    let rest = line.strip_prefix("# HELP ")?;
    let name_len = rest.find(' ')?;
    Some("# HELP ".len() + name_len + 1)
}

/// Whether a `# HELP` line has a `\\` or `"` in its text. Only the `# HELP` lines are read,
/// found through the `#` characters of the scrape (a fast byte search; a `#` inside a label
/// value is looked at and passed over).
fn help_has_specials(text: &str) -> bool {
    text.match_indices('#').any(|(at, _)| {
        let starts_line = at == 0 || text.as_bytes().get(at - 1) == Some(&b'\n');
        let line = &text[at..];
        if !starts_line || !line.starts_with("# HELP ") {
            return false;
        }
        let line = line.split_once('\n').map_or(line, |(line, _)| line);
        help_text_start(line).is_some_and(|start| line[start..].contains(['\\', '"']))
    })
}

/// Whether `bytes` has a byte [`is_replaced_control`] replaces: a scan of every byte of the
/// scrape, so it goes a block at a time without an early exit inside a block, which lets the
/// compiler compare 16 bytes per instruction.
fn has_replaced_control(bytes: &[u8]) -> bool {
    bytes.chunks(256).any(|block| {
        block
            .iter()
            .fold(false, |found, &byte| found | is_replaced_control(byte))
    })
}

/// How many bytes `bytes` (part of a label value or help text) takes once written: each
/// replaced control character becomes its picture, 3 bytes of UTF-8.
pub(crate) fn written_len(bytes: &[u8]) -> usize {
    let controls = bytes
        .iter()
        .filter(|&&byte| is_replaced_control(byte))
        .count();
    bytes.len() + controls * (CONTROL_PICTURE_LEN - 1)
}

/// `text` with every replaced control character written as its picture: how a label set is
/// rendered for the text writer, and what the binary exposition applies to a label value or
/// help text, so a series has the same labels whichever format scraped it.
pub(crate) fn replace_controls(text: &str) -> Cow<'_, str> {
    if !has_replaced_control(text.as_bytes()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(written_len(text.as_bytes()));
    push_replacing_controls(&mut out, text);
    Cow::Owned(out)
}

/// Appends `value` as a label value is written: `\\`, `"` and the line feed escaped as
/// prometheus-client escapes them, every other replaced control character as its picture.
/// One scan when there is nothing to replace (the common case).
pub(crate) fn push_escaped_label_value(out: &mut Vec<u8>, value: &str) {
    let special =
        |byte: u8| matches!(byte, b'\\' | b'"') || is_replaced_control(byte) || byte == b'\n';
    if !value.bytes().any(special) {
        out.extend_from_slice(value.as_bytes());
        return;
    }
    let mut last = 0;
    for (at, byte) in value.bytes().enumerate() {
        if !special(byte) {
            continue;
        }
        out.extend_from_slice(&value.as_bytes()[last..at]);
        match byte {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\n' => out.extend_from_slice(b"\\n"),
            control => {
                let mut utf8 = [0; CONTROL_PICTURE_LEN];
                out.extend_from_slice(control_picture(control).encode_utf8(&mut utf8).as_bytes());
            }
        }
        last = at + 1;
    }
    out.extend_from_slice(&value.as_bytes()[last..]);
}

/// The UTF-8 length of every control picture (U+2400 to U+2421).
const CONTROL_PICTURE_LEN: usize = '\u{2400}'.len_utf8();

fn is_replaced_control(byte: u8) -> bool {
    (byte < 0x20 && byte != b'\n') || byte == 0x7f
}

fn push_replacing_controls(out: &mut String, s: &str) {
    let mut last = 0;
    for (i, byte) in s.bytes().enumerate() {
        if is_replaced_control(byte) {
            out.push_str(&s[last..i]);
            out.push(control_picture(byte));
            last = i + 1;
        }
    }
    out.push_str(&s[last..]);
}

fn push_char_replacing_controls(out: &mut String, c: char) {
    match u8::try_from(c) {
        Ok(byte) if is_replaced_control(byte) => out.push(control_picture(byte)),
        _ => out.push(c),
    }
}

/// The Unicode control picture of a C0 control character or DEL.
fn control_picture(byte: u8) -> char {
    let code = if byte == 0x7f {
        0x2421
    } else {
        0x2400 + u32::from(byte)
    };
    char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_text_is_returned_unchanged() {
        let text = "# HELP a Help.\n# TYPE a gauge\na{l=\"x\\\\y\\\"\"} 1\n".to_owned();
        assert_eq!(sanitize(text.clone(), true), text);
        assert_eq!(sanitize(text.clone(), false), text);
    }

    #[test]
    fn controls_become_pictures_and_openmetrics_help_is_escaped() {
        let text = "# HELP a C:\\x \"q\"\t.\na{l=\"\r\u{0}\u{7f}\\\\\"} 1\n".to_owned();
        assert_eq!(
            sanitize(text.clone(), true),
            "# HELP a C:\\\\x \\\"q\\\"\u{2409}.\na{l=\"\u{240d}\u{2400}\u{2421}\\\\\"} 1\n"
        );
        assert_eq!(
            sanitize(text, false),
            "# HELP a C:\\x \"q\"\u{2409}.\na{l=\"\u{240d}\u{2400}\u{2421}\\\\\"} 1\n"
        );
    }

    #[test]
    fn only_help_lines_are_escaped_and_controls_are_found_anywhere() {
        // A `#` and help-like text inside a label value is not a help line.
        let text = "# HELP a Plain.\na{l=\"# HELP x \\\"y\\\"\"} 1\n".to_owned();
        assert_eq!(sanitize(text.clone(), true), text);
        // A control far from the start, past the first blocks of the scan.
        let mut long = "a 1\n".repeat(300);
        long.push_str("b{l=\"\r\"} 1\n");
        let clean = sanitize(long, false);
        assert!(clean.ends_with("b{l=\"\u{240d}\"} 1\n"), "{clean}");
        // A help line after other lines is still found.
        let text = "# TYPE a gauge\na 1\n# HELP b Say \"hi\".\n".to_owned();
        assert!(sanitize(text, true).ends_with("# HELP b Say \\\"hi\\\".\n"));
    }

    #[test]
    fn written_len_is_the_length_sanitize_writes() {
        // Every ASCII byte but the ones a value's encoder escapes, and some multi-byte text.
        let value: String = (0u8..0x80)
            .filter(|b| !matches!(b, b'\n' | b'"' | b'\\'))
            .map(char::from)
            .chain("é␍".chars())
            .collect();
        let written = sanitize(value.clone(), false);
        assert_eq!(written_len(value.as_bytes()), written.len());
        assert_eq!(written_len(b"\r\r\r"), 9);
        assert_eq!(written_len(b"plain"), 5);
    }

    #[test]
    fn label_values_are_escaped_as_prometheus_client_escapes_them_then_sanitised() {
        let mut out = Vec::new();
        push_escaped_label_value(&mut out, "a\\b\"c\nd\re\u{7f}");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "a\\\\b\\\"c\\nd\u{240d}e\u{2421}"
        );
        let mut plain = Vec::new();
        push_escaped_label_value(&mut plain, "plain");
        assert_eq!(plain, b"plain");
        assert_eq!(replace_controls("a\rb"), "a\u{240d}b");
    }

    #[test]
    fn help_lines_join_every_kind_of_line_break() {
        assert_eq!(help_line("a\r\nb\nc\rd\te"), "a b c d e");
        assert!(matches!(help_line("plain"), Cow::Borrowed("plain")));
    }
}
