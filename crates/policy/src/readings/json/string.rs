//! String literals: decoding (escapes, lone surrogates, the plain runs copied as is) and
//! encoding for rewritten values.

use core::fmt::Write as _;
use core::ops::Range;

use crate::field::FieldBytes;

use crate::readings::json::error::{JsonError, syntax};
use crate::readings::json::words;

/// Encodes `value` as a JSON string literal with quotes, escaping only what RFC 8259 requires
/// (`"`, `\`, and controls U+0000 to U+001F as `\n` `\r` `\t` `\b` `\f` or `\u00xx`); everything
/// else, `/` and DEL included, is written as raw UTF-8. The output is byte-identical to
/// `serde_json::to_string(value)`.
pub(crate) fn encode_string(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\0'..='\u{1f}' => {
                // Writing to a String cannot fail.
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// U+FFFD in UTF-8, what a lone surrogate escape decodes to.
pub(super) const REPLACEMENT: [u8; 3] = [0xEF, 0xBF, 0xBD];

/// The value of an ASCII hex digit.
pub(super) fn hex_digit(b: u8) -> Option<u16> {
    match b {
        b'0'..=b'9' => Some(u16::from(b - b'0')),
        b'a'..=b'f' => Some(u16::from(b - b'a' + 10)),
        b'A'..=b'F' => Some(u16::from(b - b'A' + 10)),
        _ => None,
    }
}

/// The code unit of the four hex digits at `at`, if there are four.
pub(super) fn hex4(body: &[u8], at: usize) -> Option<u16> {
    body.get(at..at.checked_add(4)?)?
        .iter()
        .try_fold(0u16, |acc, &d| Some((acc << 4) | hex_digit(d)?))
}

/// What a `\\u` escape stands for.
pub(super) enum Unicode {
    /// A scalar value (a valid surrogate pair joined).
    Scalar(u32),
    /// A lone surrogate code unit (a high one not followed by a `\\u` low one, or a low one).
    Lone(u16),
}

/// Reads the `\\u` escape whose backslash is at `at`: what it stands for and the offset just
/// past it. A high surrogate not followed by a `\\u` low surrogate consumes only its own six
/// bytes, so that the escape after it is read on its own.
pub(super) fn unicode_escape(body: &[u8], at: usize) -> Result<(Unicode, usize), JsonError> {
    let unit = hex4(body, at + 2).ok_or_else(|| syntax(at, "invalid escape"))?;
    let next = at + 6;
    Ok(match unit {
        0xD800..=0xDBFF => {
            let low = match body.get(next..next + 2) {
                Some(b"\\u") => hex4(body, next + 2),
                _ => None,
            };
            match low {
                Some(low @ 0xDC00..=0xDFFF) => {
                    let pair = (u32::from(unit - 0xD800) << 10) | u32::from(low - 0xDC00);
                    (Unicode::Scalar(0x1_0000 + pair), next + 6)
                }
                _ => (Unicode::Lone(unit), next),
            }
        }
        0xDC00..=0xDFFF => (Unicode::Lone(unit), next),
        _ => (Unicode::Scalar(u32::from(unit)), next),
    })
}

/// A string token decoded, before it is given its pointer.
pub(super) struct Decoded<'a> {
    /// Span of the literal, quotes included.
    pub(super) raw: Range<usize>,
    /// Decoded bytes: borrowed from the body when the literal has no escape.
    pub(super) value: FieldBytes<'a>,
    /// Lone surrogates replaced by U+FFFD: offset in `value`, code unit. Eight bytes each (a
    /// string of a million `\ud800` escapes keeps 8 MiB of them, not 16): an offset past
    /// 4 GiB is written as `u32::MAX`.
    pub(super) lone_surrogates: crate::readings::json::lone::LoneSurrogates,
}

impl Decoded<'_> {
    /// Appends the UTF-8 of a scalar value (U+FFFD if `scalar` is not one, which the callers
    /// never pass).
    pub(super) fn push_scalar(&mut self, scalar: u32) {
        match char::from_u32(scalar) {
            Some(c) => {
                let mut buf = [0u8; 4];
                self.value
                    .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            None => self.value.extend_from_slice(&REPLACEMENT),
        }
    }

    /// Appends U+FFFD for a lone surrogate and records it.
    pub(super) fn push_lone(&mut self, unit: u16) {
        let at = u32::try_from(self.value.len()).unwrap_or(u32::MAX);
        self.lone_surrogates.push(at, unit);
        self.value.extend_from_slice(&REPLACEMENT);
    }

    /// Decodes the escape whose backslash is at `at`; returns the offset just past it. A high
    /// surrogate not followed by a `\u` low surrogate consumes only its own six bytes, so the
    /// escape after it is decoded on its own.
    pub(super) fn escape(&mut self, body: &[u8], at: usize) -> Result<usize, JsonError> {
        let simple = match body.get(at + 1) {
            Some(b'"') => b'"',
            Some(b'\\') => b'\\',
            Some(b'/') => b'/',
            Some(b'b') => 0x08,
            Some(b'f') => 0x0C,
            Some(b'n') => b'\n',
            Some(b'r') => b'\r',
            Some(b't') => b'\t',
            Some(b'u') => {
                let (unicode, next) = unicode_escape(body, at)?;
                match unicode {
                    Unicode::Scalar(scalar) => self.push_scalar(scalar),
                    Unicode::Lone(unit) => self.push_lone(unit),
                }
                return Ok(next);
            }
            _ => return Err(syntax(at, "invalid escape")),
        };
        self.value.push(simple);
        Ok(at + 2)
    }
}

/// Decodes the string literal whose opening quote is at `start` of `body`: its value with
/// escapes decoded (borrowed when it has none) and its span, quotes included.
pub(super) fn decode_literal(body: &[u8], start: usize) -> Result<Decoded<'_>, JsonError> {
    let mut pos = start + 1;
    let rest = body.get(pos..).unwrap_or_default();
    let run = plain_run(rest);
    let mut decoded = Decoded {
        raw: start..start,
        value: FieldBytes::Borrowed(rest.get(..run).unwrap_or_default()),
        lone_surrogates: Default::default(),
    };
    pos += run;
    if body.get(pos) == Some(&b'\\') {
        // An escape: the value is decoded into a buffer, as long as the literal's rest
        // (decoding never lengthens a string), so that it never grows.
        let mut value =
            FieldBytes::with_capacity(run + literal_len(body.get(pos..).unwrap_or_default()));
        value.extend_from_slice(&decoded.value);
        decoded.value = value;
    }
    loop {
        match body.get(pos) {
            None => return Err(syntax(pos, "unterminated string")),
            Some(b'"') => break,
            Some(b'\\') => pos = decoded.escape(body, pos)?,
            Some(_) => return Err(syntax(pos, "control character in string")),
        }
        let rest = body.get(pos..).unwrap_or_default();
        let run = plain_run(rest);
        (decoded.value).extend_from_slice(rest.get(..run).unwrap_or_default());
        pos += run;
    }
    decoded.raw = start..pos + 1;
    Ok(decoded)
}

/// Reads the string literal whose opening quote is at `start` of `body` as
/// [`decode_literal`] does, with the same errors, but builds nothing: the offset just past it.
pub(super) fn skip_literal(body: &[u8], start: usize) -> Result<usize, JsonError> {
    let mut pos = start + 1;
    loop {
        pos += plain_run(body.get(pos..).unwrap_or_default());
        match body.get(pos) {
            None => return Err(syntax(pos, "unterminated string")),
            Some(b'"') => return Ok(pos + 1),
            Some(b'\\') => match body.get(pos + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => pos += 2,
                Some(b'u') => pos = unicode_escape(body, pos)?.1,
                _ => return Err(syntax(pos, "invalid escape")),
            },
            Some(_) => return Err(syntax(pos, "control character in string")),
        }
    }
}

/// The length of the leading run of `bytes` that a string copies as is: up to the first quote,
/// backslash or control byte. The first [`SHORT`] bytes are read a word at a time (escape-dense
/// text ends runs every few bytes); past them, the quote or backslash is found with `memchr2`
/// and the run before it tested for control bytes 64 bytes at a time with a minimum (a loop
/// LLVM vectorizes), so long strings of text cost little more than a copy.
pub(super) fn plain_run(bytes: &[u8]) -> usize {
    let start = match words::first_special(bytes, SHORT) {
        Ok(at) => return at,
        Err(at) => at,
    };
    let rest = &bytes[start..];
    if start < SHORT || rest.len() < 8 {
        // Fewer than 8 bytes left: byte by byte.
        let special = |&b: &u8| b == b'"' || b == b'\\' || b < 0x20;
        return start + rest.iter().position(special).unwrap_or(rest.len());
    }
    start + words::long_run(rest)
}

/// Bytes of a string read a word at a time before `memchr2` takes over.
const SHORT: usize = 64;

/// The length of a string literal's rest that starts at `bytes`: up to its closing quote (the
/// first one no backslash escapes), or all of `bytes` when there is none.
pub(super) fn literal_len(bytes: &[u8]) -> usize {
    let mut at = 0;
    loop {
        let rest = &bytes[at.min(bytes.len())..];
        let found = match words::first_quote_or_backslash(rest, SHORT) {
            Ok(i) => Some(i),
            Err(read) if read < SHORT || rest.len() - read < 8 => {
                let tail = &rest[read..];
                (tail.iter().position(|&b| b == b'"' || b == b'\\')).map(|i| read + i)
            }
            Err(read) => memchr::memchr2(b'"', b'\\', &rest[read..]).map(|i| read + i),
        };
        match found {
            Some(i) if rest[i] == b'"' => return at + i,
            Some(i) => at += i + 2,
            None => return bytes.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// The run and the literal's length are what a byte-by-byte reading finds, for
        /// escape-dense and long strings alike (the words, their tail, and `memchr2` past
        /// [`super::SHORT`]).
        #[test]
        fn runs_and_literals_are_found_as_byte_by_byte(
            bytes in prop::collection::vec(
                prop_oneof![
                    40 => prop::sample::select(b"ab \xc3\xa9".to_vec()),
                    1 => prop::sample::select(b"\"\\\x00\x1f".to_vec()),
                ],
                0..300,
            ),
        ) {
            let special = |&b: &u8| b == b'"' || b == b'\\' || b < 0x20;
            let run = bytes.iter().position(special).unwrap_or(bytes.len());
            prop_assert_eq!(super::plain_run(&bytes), run);
            let mut at = 0;
            let literal = loop {
                match bytes.get(at) {
                    None => break bytes.len(),
                    Some(b'"') => break at,
                    Some(b'\\') => at += 2,
                    Some(_) => at += 1,
                }
            };
            prop_assert_eq!(super::literal_len(&bytes), literal.min(bytes.len()));
        }
    }
}
