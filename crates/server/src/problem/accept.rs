//! Which representation of a problem the client prefers, from its `Accept` header fields
//! (RFC 9110 §12.5.1). A leaf of `problem`.
//!
//! Each of our representations (`text/html`, `application/problem+json`, `application/json`)
//! takes the weight of the most specific range that matches it (`type/subtype` over `type/*`
//! over `*/*`; the first of equally specific ones), or 0 if none does. HTML is chosen only
//! when its weight is strictly higher than both JSON types': ties, no `Accept`, and a list
//! that accepts none of them go to problem+json. So a browser's
//! `text/html,...,*/*;q=0.8` gets HTML; curl's and `fetch()`'s `*/*` and an API client's
//! `application/json` get problem+json.
//!
//! Malformed ranges (no `/`, `*/html`, a bad `q`, a parameter without `=`) are skipped; a range
//! with a parameter other than `q` and `charset=utf-8` names a representation we do not have
//! and matches nothing. At most [`MAX_ACCEPT_RANGES`] list elements are read, over all
//! `Accept` lines; the rest are ignored. Every input is read in one pass, without allocating
//! and without panicking.

use utf8gate_policy::split_outside_quotes as split;

/// The most list elements read from a request's `Accept` fields (a browser sends under ten).
pub const MAX_ACCEPT_RANGES: usize = 32;

/// A representation of a problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `application/problem+json` (RFC 9457).
    Json,
    /// A `text/html` page.
    Html,
}

/// The representation `accept` (the values of the request's `Accept` fields, in order)
/// prefers.
pub fn negotiate<'a>(accept: impl IntoIterator<Item = &'a [u8]>) -> Format {
    let mut html = Best::default();
    let mut problem = Best::default();
    let mut json = Best::default();
    let mut read = 0;
    'fields: for value in accept {
        for element in split(value, b',') {
            if read == MAX_ACCEPT_RANGES {
                break 'fields;
            }
            read += 1;
            let Some(range) = Range::parse(element) else {
                continue;
            };
            html.offer(&range, b"text", b"html");
            problem.offer(&range, b"application", b"problem+json");
            json.offer(&range, b"application", b"json");
        }
    }
    if html.weight > problem.weight.max(json.weight) {
        Format::Html
    } else {
        Format::Json
    }
}

/// One media range: type, subtype, weight in thousandths, and whether it has parameters that
/// none of our representations has.
struct Range<'a> {
    kind: &'a [u8],
    subtype: &'a [u8],
    weight: u16,
    foreign: bool,
}

impl<'a> Range<'a> {
    /// `type/subtype *( OWS ";" OWS parameter )`, or `None` if malformed or empty.
    fn parse(element: &'a [u8]) -> Option<Range<'a>> {
        let mut pieces = split(element, b';');
        let media = trim(pieces.next()?);
        let slash = media.iter().position(|&b| b == b'/')?;
        let (kind, subtype) = (&media[..slash], &media[slash + 1..]);
        if !is_token(kind) || !is_token(subtype) || (kind == b"*" && subtype != b"*") {
            return None;
        }
        let mut range = Range {
            kind,
            subtype,
            weight: 1000,
            foreign: false,
        };
        for parameter in pieces {
            let parameter = trim(parameter);
            if parameter.is_empty() {
                continue;
            }
            let equals = parameter.iter().position(|&b| b == b'=')?;
            let (name, value) = (trim(&parameter[..equals]), trim(&parameter[equals + 1..]));
            if name.eq_ignore_ascii_case(b"q") {
                range.weight = weight(value)?;
                // What follows the weight are extensions (RFC 7231's accept-ext): ignored.
                break;
            }
            let utf8 = name.eq_ignore_ascii_case(b"charset")
                && (value.eq_ignore_ascii_case(b"utf-8")
                    || value.eq_ignore_ascii_case(b"\"utf-8\""));
            range.foreign |= !utf8;
        }
        Some(range)
    }
}

/// The weight of the most specific range matching one representation so far.
#[derive(Default)]
struct Best {
    /// 0: none matched; 1: `*/*`; 2: `type/*`; 3: `type/subtype`.
    specificity: u8,
    weight: u16,
}

impl Best {
    /// Takes `range`'s weight if it matches `kind/subtype` more specifically than any before.
    fn offer(&mut self, range: &Range<'_>, kind: &[u8], subtype: &[u8]) {
        if range.foreign {
            return;
        }
        let specificity = if range.kind == b"*" {
            1
        } else if !range.kind.eq_ignore_ascii_case(kind) {
            0
        } else if range.subtype == b"*" {
            2
        } else if range.subtype.eq_ignore_ascii_case(subtype) {
            3
        } else {
            0
        };
        if specificity > self.specificity {
            self.specificity = specificity;
            self.weight = range.weight;
        }
    }
}

/// A qvalue in thousandths: `0[.ddd]` or `1[.000]` (RFC 9110 §12.4.2).
fn weight(value: &[u8]) -> Option<u16> {
    let (&first, rest) = value.split_first()?;
    let fraction = match rest {
        [] => &[][..],
        [b'.', digits @ ..] if digits.len() <= 3 => digits,
        _ => return None,
    };
    let mut thousandths: u16 = 0;
    for i in 0..3 {
        let digit = fraction.get(i).copied().unwrap_or(b'0');
        if !digit.is_ascii_digit() {
            return None;
        }
        thousandths = thousandths * 10 + u16::from(digit - b'0');
    }
    match first {
        b'0' => Some(thousandths),
        b'1' if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// `bytes` without leading and trailing spaces and tabs (OWS).
fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|&b| b != b' ' && b != b'\t');
    let Some(start) = start else {
        return &[];
    };
    let end = bytes
        .iter()
        .rposition(|&b| b != b' ' && b != b'\t')
        .unwrap_or(start);
    &bytes[start..=end]
}

/// A non-empty RFC 9110 token.
fn is_token(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && bytes
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

#[cfg(test)]
mod tests;
