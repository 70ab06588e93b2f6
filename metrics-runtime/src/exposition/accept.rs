//! Parsing an HTTP `Accept` header (RFC 9110, section 12.5.1) into media ranges.
//!
//! ```text
//! Accept      = #( media-range [ weight ] )
//! media-range = ( "*/*" / ( type "/" "*" ) / ( type "/" subtype ) ) parameters
//! parameters  = *( OWS ";" OWS [ parameter ] )
//! parameter   = name "=" ( token / quoted-string )
//! weight      = OWS ";" OWS "q=" qvalue
//! qvalue      = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
//! ```
//!
//! Commas and semicolons inside a quoted string are data, so a `q=` inside one is a parameter
//! value, not a weight. The first `q` parameter ends the media type's own parameters; what
//! follows it is an accept extension and ignored. An element whose weight is not a valid
//! `qvalue` (`q=1.5`, `q=abc`, `q=0.1234`) is malformed and skipped whole.

/// One media range of an `Accept` header, with its weight in thousandths (`q=0.5` is 500).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MediaRange {
    /// `type/subtype`, lowercased (`*` for a wildcard part).
    pub(crate) media_type: String,
    /// The media type's parameters before the weight: names lowercased, values unquoted.
    pub(crate) params: Vec<(String, String)>,
    /// The weight in thousandths, `0..=1000`; 1000 without a `q` parameter.
    pub(crate) weight: u16,
}

impl MediaRange {
    /// The value of parameter `name` (lowercase), if present.
    pub(crate) fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Every well-formed media range of `header`, in order; malformed elements are skipped.
pub(crate) fn parse_accept(header: &str) -> Vec<MediaRange> {
    split_outside_quotes(header, ',')
        .into_iter()
        .filter_map(parse_media_range)
        .collect()
}

fn parse_media_range(element: &str) -> Option<MediaRange> {
    let mut parts = split_outside_quotes(element, ';').into_iter();
    let media_type = parts.next()?.trim().to_ascii_lowercase();
    let (kind, subtype) = media_type.split_once('/')?;
    if !is_token(kind) || !is_token(subtype) || (kind == "*" && subtype != "*") {
        return None;
    }
    let mut params = Vec::new();
    let mut weight = 1000;
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let (name, value) = part.split_once('=')?;
        let name = name.trim_end().to_ascii_lowercase();
        let value = value.trim_start();
        if !is_token(&name) {
            return None;
        }
        if name == "q" {
            weight = parse_qvalue(value)?;
            // Everything after the weight is an accept extension.
            break;
        }
        params.push((name, unquote(value)?));
    }
    Some(MediaRange {
        media_type,
        params,
        weight,
    })
}

/// `qvalue` in thousandths, or `None` when it does not follow the grammar.
pub(crate) fn parse_qvalue(value: &str) -> Option<u16> {
    let (int, frac) = match value.split_once('.') {
        Some((int, frac)) => (int, frac),
        None => (value, ""),
    };
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut thousandths = 0u16;
    for (i, digit) in frac.bytes().enumerate() {
        thousandths += u16::from(digit - b'0') * [100, 10, 1][i];
    }
    match int {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// A token or quoted-string parameter value, unquoted; `None` when malformed.
fn unquote(value: &str) -> Option<String> {
    let Some(inner) = value.strip_prefix('"') else {
        return is_token(value).then(|| value.to_owned());
    };
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?),
            '"' => return chars.as_str().is_empty().then_some(out),
            c => out.push(c),
        }
    }
    None // unterminated
}

/// RFC 9110 `token`: one or more `tchar`.
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Splits at `separator` where it is not inside a quoted string (backslash escapes honoured).
pub(crate) fn split_outside_quotes(s: &str, separator: char) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
        } else if quoted && c == '\\' {
            escaped = true;
        } else if c == '"' {
            quoted = !quoted;
        } else if c == separator && !quoted {
            pieces.push(&s[start..i]);
            start = i + c.len_utf8();
        }
    }
    pieces.push(&s[start..]);
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(media_type: &str, params: &[(&str, &str)], weight: u16) -> MediaRange {
        MediaRange {
            media_type: media_type.into(),
            params: params
                .iter()
                .map(|(n, v)| ((*n).into(), (*v).into()))
                .collect(),
            weight,
        }
    }

    #[test]
    fn quoted_parameters_keep_their_commas_semicolons_and_q() {
        assert_eq!(
            parse_accept(r#"application/openmetrics-text;x="a,b;q=1";q=0.2, text/plain"#),
            [
                range("application/openmetrics-text", &[("x", "a,b;q=1")], 200),
                range("text/plain", &[], 1000),
            ]
        );
        assert_eq!(
            parse_accept(r#"text/plain;x="say \"hi\"";q=0.5"#),
            [range("text/plain", &[("x", r#"say "hi""#)], 500)]
        );
    }

    #[test]
    fn weights_follow_the_qvalue_grammar() {
        for (q, weight) in [
            ("0", Some(0)),
            ("0.", Some(0)),
            ("0.5", Some(500)),
            ("0.125", Some(125)),
            ("1", Some(1000)),
            ("1.000", Some(1000)),
            ("1.5", None),
            ("1.001", None),
            ("2", None),
            ("0.1234", None),
            ("-0.5", None),
            ("abc", None),
            ("", None),
            (".5", None),
            ("0x1", None),
        ] {
            let parsed = parse_accept(&format!("text/plain;q={q}"));
            assert_eq!(
                parsed.first().map(|r| r.weight),
                weight,
                "q={q}: {parsed:?}"
            );
        }
    }

    #[test]
    fn parameters_after_the_weight_are_extensions_and_malformed_elements_are_skipped() {
        assert_eq!(
            parse_accept("Text/Plain ; Version=0.0.4 ; Q=0.3 ; version=9, bogus, a/b;x"),
            [range("text/plain", &[("version", "0.0.4")], 300)]
        );
        assert_eq!(parse_accept(r#"text/plain;x="unterminated"#), []);
        assert_eq!(parse_accept("*/plain, /, text/, , ;"), []);
    }
}
