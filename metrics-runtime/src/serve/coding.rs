//! Choosing the content coding of a response from the request's `Accept-Encoding` header
//! (RFC 9110, section 12.5.3).
//!
//! ```text
//! Accept-Encoding = #( codings [ weight ] )
//! codings         = content-coding / "identity" / "*"
//! ```
//!
//! * No header: any coding is acceptable, and the body is sent as it is (identity).
//! * An empty header: only identity is acceptable.
//! * `identity` is acceptable unless the header excludes it: `identity;q=0`, or `*;q=0`
//!   without an `identity` element. When the header does not name it, it is the last resort:
//!   `gzip;q=0.5` still gets gzip.
//! * `*` stands for every coding the header does not name; `x-gzip` is `gzip` (RFC 9110,
//!   section 8.4.1.3). Codings this crate does not produce (`br`, `zstd`) are ignored.
//! * The higher weight wins; a tie goes to gzip. When nothing offered is acceptable, the
//!   answer is `406 Not Acceptable`.

use crate::exposition::accept::{parse_qvalue, split_outside_quotes};

/// A content coding the handler can answer with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ContentCoding {
    /// The body as it is, without a `Content-Encoding` header.
    Identity,
    /// gzip (RFC 1952), `Content-Encoding: gzip`.
    Gzip,
}

impl ContentCoding {
    /// The `Content-Encoding` value, `None` for identity (which is never sent).
    pub const fn header_value(self) -> Option<&'static str> {
        match self {
            ContentCoding::Identity => None,
            ContentCoding::Gzip => Some("gzip"),
        }
    }
}

/// The weight (in thousandths) the header gives a coding, `None` when it does not name it.
#[derive(Default)]
struct Weights {
    gzip: Option<u16>,
    identity: Option<u16>,
    any: Option<u16>,
}

/// The coding to answer `accept_encoding` with, or `None` when nothing offered is
/// acceptable (answer 406). `gzip_offered` is false when compression is turned off.
pub(crate) fn choose_coding(
    accept_encoding: Option<&str>,
    gzip_offered: bool,
) -> Option<ContentCoding> {
    let Some(header) = accept_encoding else {
        return Some(ContentCoding::Identity);
    };
    let weights = parse(header);
    // A coding the header does not name takes the weight of `*`, if any.
    let gzip = if gzip_offered {
        weights.gzip.or(weights.any).unwrap_or(0)
    } else {
        0
    };
    let identity = weights.identity.or(weights.any);
    match identity {
        // Excluded: gzip or nothing.
        Some(0) => (gzip > 0).then_some(ContentCoding::Gzip),
        // Named: the higher weight wins, gzip on a tie.
        Some(identity) if identity > gzip => Some(ContentCoding::Identity),
        Some(_) => Some(ContentCoding::Gzip),
        // Not named, not excluded: acceptable, below every named coding.
        None if gzip > 0 => Some(ContentCoding::Gzip),
        None => Some(ContentCoding::Identity),
    }
}

/// The weights of `header`; a malformed element (a weight outside the `qvalue` grammar, an
/// empty coding) is skipped, and the first element naming a coding is the one that counts.
fn parse(header: &str) -> Weights {
    let mut weights = Weights::default();
    for element in split_outside_quotes(header, ',') {
        let mut parts = element.split(';');
        let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        if coding.is_empty() {
            continue;
        }
        let mut weight = Some(1000);
        for param in parts {
            let Some((name, value)) = param.split_once('=') else {
                weight = None;
                break;
            };
            if name.trim().eq_ignore_ascii_case("q") {
                weight = parse_qvalue(value.trim());
                break;
            }
        }
        let Some(weight) = weight else { continue };
        let slot = match coding.as_str() {
            "gzip" | "x-gzip" => &mut weights.gzip,
            "identity" => &mut weights.identity,
            "*" => &mut weights.any,
            _ => continue,
        };
        if slot.is_none() {
            *slot = Some(weight);
        }
    }
    weights
}

#[cfg(test)]
mod tests {
    use super::ContentCoding::{Gzip, Identity};
    use super::*;

    #[test]
    fn each_accept_encoding_gets_the_coding_rfc_9110_says() {
        let cases: &[(Option<&str>, Option<ContentCoding>)] = &[
            // What Prometheus sends with every scrape (compression on, its default).
            (Some("gzip"), Some(Gzip)),
            (None, Some(Identity)),
            (Some(""), Some(Identity)),
            (Some("gzip;q=0"), Some(Identity)),
            (Some("identity;q=0"), None),
            (Some("gzip, identity;q=0"), Some(Gzip)),
            (Some("gzip;q=0, identity;q=0"), None),
            (Some("*"), Some(Gzip)),
            (Some("*;q=0"), None),
            (Some("*;q=0, identity"), Some(Identity)),
            (Some("*;q=0.5, gzip;q=0"), Some(Identity)),
            (Some("identity;q=0.9, gzip;q=0.5"), Some(Identity)),
            (Some("gzip;q=0.5"), Some(Gzip)),
            (Some("gzip;q=0.5, identity;q=0.5"), Some(Gzip)),
            (Some("GZIP ; Q=0.8, identity;q=0.1"), Some(Gzip)),
            (Some("x-gzip"), Some(Gzip)),
            (Some("br, zstd"), Some(Identity)),
            (Some("br, identity;q=0"), None),
            // A malformed weight skips its element: gzip is not named, identity remains.
            (Some("gzip;q=2"), Some(Identity)),
            (Some("gzip;q=abc, identity;q=0"), None),
            (Some("deflate, gzip;q=1.0, *;q=0.5"), Some(Gzip)),
        ];
        for (header, expected) in cases {
            assert_eq!(
                choose_coding(*header, true),
                *expected,
                "Accept-Encoding: {header:?}"
            );
        }
    }

    #[test]
    fn without_compression_only_identity_is_offered() {
        assert_eq!(choose_coding(Some("gzip"), false), Some(Identity));
        assert_eq!(choose_coding(Some("gzip, identity;q=0"), false), None);
        assert_eq!(choose_coding(Some("*"), false), Some(Identity));
    }
}
