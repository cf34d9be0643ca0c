//! Percent-decoding, exactly once, on raw bytes, with findings for what a careless decoder does
//! differently: malformed escapes, IIS `%uXXXX`, and escapes left after one pass.

use smallvec::SmallVec;

use crate::decide::found::{Found, Report};
use crate::field::FieldBytes;
use crate::finding::{FindingKind, Fix, RawFinding};
use crate::percent_lax::{escape_at, iis_escape_at};

/// An RFC 8187 `ext-value` (`charset'language'value-chars`) split: the charset and where the
/// percent-encoded value starts; `None` without the two quotes.
pub(crate) fn split_ext_value(ext: &[u8]) -> Option<(&[u8], usize)> {
    let first = ext.iter().position(|&b| b == b'\'')?;
    let second = first + 1 + ext[first + 1..].iter().position(|&b| b == b'\'')?;
    Some((&ext[..first], second + 1))
}

/// Decodes `%XX` escapes once (and `+` as a space if `plus_is_space`). Anything that is not a
/// valid escape stays as it is, as in every mainstream decoder; the returned findings use
/// offsets in the decoded bytes, which keep those characters. At most `room` of them are
/// detailed (the request's room for layer findings, which this takes from), the rest counted.
pub(crate) fn decode<'r>(
    raw: &'r [u8],
    plus_is_space: bool,
    room: &mut usize,
) -> (FieldBytes<'r>, Found) {
    // Most components have no escape and no `+`: they decode to themselves, with no finding
    // (every finding below starts at a `%`).
    let plain = match plus_is_space {
        true => memchr::memchr2(b'%', b'+', raw).is_none(),
        false => memchr::memchr(b'%', raw).is_none(),
    };
    if plain {
        return (FieldBytes::Borrowed(raw), Found::none());
    }
    let mut findings = Found::new(*room, crate::decide::found::KindSet::default());
    let decoded = decode_in_full(raw, plus_is_space, &mut findings);
    *room -= findings.detailed.len();
    (decoded, findings)
}

/// [`decode`] without the shortcut for components with nothing to decode.
fn decode_in_full(raw: &[u8], plus_is_space: bool, findings: &mut Found) -> FieldBytes<'static> {
    let (decoded, escaped) = decode_escapes(raw, plus_is_space, findings);
    double_encoding(&decoded, &escaped, findings);
    decoded
}

/// Which decoded bytes came from an escape rather than verbatim from the raw bytes: a bit per
/// byte, inline for components of up to 256 bytes.
struct Escaped(SmallVec<[u64; 4]>);

impl Escaped {
    /// No byte marked, room for the decoding of `raw_len` bytes (never longer than they are).
    fn for_raw(raw_len: usize) -> Escaped {
        Escaped(SmallVec::from_elem(0, raw_len / 64 + 1))
    }

    /// Marks decoded byte `at`.
    fn mark(&mut self, at: usize) {
        self.0[at / 64] |= 1 << (at % 64);
    }

    /// `true` if a byte in `range` is marked.
    fn any(&self, range: core::ops::Range<usize>) -> bool {
        range.into_iter().any(|at| {
            let word = self.0.get(at / 64).copied().unwrap_or(0);
            word & (1 << (at % 64)) != 0
        })
    }
}

/// The decoding of [`decode_in_full`], with the bytes that came from escapes marked.
fn decode_escapes(
    raw: &[u8],
    plus_is_space: bool,
    findings: &mut Found,
) -> (FieldBytes<'static>, Escaped) {
    let mut out = FieldBytes::with_capacity(raw.len());
    let mut escaped = Escaped::for_raw(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        if b == b'%' {
            if let Some(v) = escape_at(raw, i) {
                escaped.mark(out.len());
                out.push(v);
                i += 3;
                continue;
            }
            let at = out.len();
            if let Some(v) = iis_escape_at(raw, i) {
                let kind = FindingKind::IisUnicodeEscape;
                findings.report(kind, at, 6, Fix::None, || {
                    let c = char::from_u32(v)
                        .map(|c| format!(" {c:?}"))
                        .unwrap_or_default();
                    RawFinding::new(
                        kind,
                        at,
                        &raw[i..i + 6],
                        Fix::None,
                        Some(utf8gate_codec::format_scalar(v)),
                        format!(
                            "IIS-style %u escape: a lax decoder reads {}{c}",
                            utf8gate_codec::format_scalar(v)
                        ),
                    )
                });
                out.extend_from_slice(&raw[i..i + 6]);
                i += 6;
                continue;
            }
            let len = raw[i..].len().min(3);
            // One decoded byte: a run of them is adjacent in the decoded bytes.
            findings.report(FindingKind::MalformedEscape, at, 1, Fix::None, || {
                let mut f = RawFinding::new(
                    FindingKind::MalformedEscape,
                    at,
                    &raw[i..i + len],
                    Fix::None,
                    None,
                    "'%' not followed by two hex digits".to_string(),
                );
                f.length = len;
                f
            });
            out.push(b'%');
            i += 1;
            continue;
        }
        out.push(if plus_is_space && b == b'+' { b' ' } else { b });
        i += 1;
    }
    (out, escaped)
}

/// Escapes that exist only after one decoding pass (`%252e` → `%2e`, `%%32%65` → `%2e`); an
/// escape that was already literal in the raw bytes was reported there.
fn double_encoding(decoded: &[u8], escaped: &Escaped, findings: &mut Found) {
    for i in memchr::memchr_iter(b'%', decoded) {
        if decoded[i] != b'%' {
            continue;
        }
        let (len, value) = match (escape_at(decoded, i), iis_escape_at(decoded, i)) {
            (Some(v), _) => (3, u32::from(v)),
            (None, Some(v)) => (6, v),
            _ => continue,
        };
        if !escaped.any(i..i + len) {
            continue;
        }
        let kind = FindingKind::DoubleEncoding;
        findings.report(kind, i, len, Fix::None, || {
            RawFinding::new(
                kind,
                i,
                &decoded[i..i + len],
                Fix::None,
                Some(utf8gate_codec::format_scalar(value)),
                format!(
                    "escape left after one decoding pass: a second pass reads byte {value:02X}"
                ),
            )
        });
    }
}

/// `%2F` / `%5C` (any case) in a raw path: separators the router does not see.
pub(crate) fn encoded_separators(raw: &[u8], findings: &mut Found) {
    let mut decoded_at = 0;
    let mut i = 0;
    while i < raw.len() {
        match escape_at(raw, i) {
            Some(v @ (b'/' | b'\\')) => {
                let (kind, at) = (FindingKind::EncodedSeparator, decoded_at);
                findings.report(kind, at, 1, Fix::None, || {
                    let mut f = RawFinding::new(
                        kind,
                        at,
                        &raw[i..i + 3],
                        Fix::None,
                        Some(utf8gate_codec::format_scalar(u32::from(v))),
                        format!("encoded separator {:?} in the path", v as char),
                    );
                    f.length = 1;
                    f
                });
                i += 3;
            }
            Some(_) => i += 3,
            None => i += 1,
        }
        decoded_at += 1;
    }
}

/// Percent-encodes `bytes` for a path (`encode_slash` false) or a query/form component,
/// leaving RFC 3986 unreserved characters and, in paths, sub-delims, `:`, `@` and `/`.
pub(crate) fn encode(bytes: &[u8], in_path: bool) -> Vec<u8> {
    escape(bytes, |b| kept(b, in_path))
}

/// [`encode`] of a form component, but bytes above 0x7F written as they are (raw UTF-8).
pub(crate) fn encode_ascii(bytes: &[u8]) -> Vec<u8> {
    escape(bytes, |b| b >= 0x80 || kept(b, false))
}

/// `bytes` with every byte `keep` refuses percent-encoded, in a buffer of the exact size (each
/// escaped byte is three), so that a long value is never grown by doubling.
fn escape(bytes: &[u8], keep: impl Fn(u8) -> bool) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let escaped = bytes.iter().filter(|&&b| !keep(b)).count();
    let mut out = Vec::with_capacity(bytes.len() + 2 * escaped);
    for &b in bytes {
        if keep(b) {
            out.push(b);
        } else {
            out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
        }
    }
    out
}

/// Whether [`encode`] keeps `b` as it is.
fn kept(b: u8, in_path: bool) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(b, b'-' | b'.' | b'_' | b'~')
        || (in_path
            && matches!(
                b,
                b'/' | b':'
                    | b'@'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
            ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(raw: &[u8], plus_is_space: bool) -> (Vec<u8>, Found) {
        let (decoded, found) = super::decode(raw, plus_is_space, &mut usize::MAX.clone());
        (decoded.into_owned(), found)
    }

    fn kinds(raw: &[u8]) -> Vec<(FindingKind, usize)> {
        decode(raw, false)
            .1
            .detailed
            .iter()
            .map(|f| (f.kind, f.offset))
            .collect()
    }

    #[test]
    fn decodes_once() {
        assert_eq!(decode(b"a%2Fb%c0%ae+", false).0, b"a/b\xC0\xAE+");
        assert_eq!(decode(b"a+b", true).0, b"a b");
        assert_eq!(decode(b"%252e", false).0, b"%2e");
    }

    #[test]
    fn reports_what_a_lax_decoder_does_differently() {
        assert_eq!(kinds(b"100%"), [(FindingKind::MalformedEscape, 3)]);
        assert_eq!(
            kinds(b"%zz%4"),
            [
                (FindingKind::MalformedEscape, 0),
                (FindingKind::MalformedEscape, 3)
            ]
        );
        assert_eq!(kinds(b"a/%u002e"), [(FindingKind::IisUnicodeEscape, 2)]);
        // Adjacent escapes of one kind are one run.
        assert_eq!(kinds(b"a/%252e%252e/"), [(FindingKind::DoubleEncoding, 2)]);
        assert_eq!(
            kinds(b"a/%252e/%252e/"),
            [
                (FindingKind::DoubleEncoding, 2),
                (FindingKind::DoubleEncoding, 6)
            ]
        );
        assert_eq!(kinds(b"plain%20text"), []);
        assert_eq!(
            kinds(b"%%32%65"),
            [
                (FindingKind::MalformedEscape, 0),
                (FindingKind::DoubleEncoding, 0)
            ]
        );
    }

    proptest::proptest! {
        /// The shortcut for components without `%` (and `+` where it is a space) gives what
        /// decoding them in full gives.
        #[test]
        fn the_shortcut_decodes_as_the_decoder_does(
            raw in proptest::collection::vec(
                proptest::sample::select(b"%+25aFu0Gx\xc0".to_vec()), 0..64),
            plus_is_space in proptest::prelude::any::<bool>(),
        ) {
            let mut escapes = Found::new(usize::MAX, crate::decide::found::KindSet::default());
            let decoded = decode_in_full(&raw, plus_is_space, &mut escapes);
            let (shortcut, found) = decode(&raw, plus_is_space);
            proptest::prop_assert_eq!(&shortcut[..], &decoded[..]);
            proptest::prop_assert_eq!(found.detailed, escapes.detailed);
        }
    }

    #[test]
    fn separators() {
        let mut found = Found::unbounded();
        encoded_separators(b"/a%2fb%5Cc%41", &mut found);
        let seps: Vec<_> = found.detailed.iter().map(|f| f.offset).collect();
        assert_eq!(seps, [2, 4]);
    }

    #[test]
    fn encoding_round_trips() {
        for input in [&b"a b/c?d=e&f"[..], b"\xC3\xA9\xE2\x82\xAC%+", b""] {
            for in_path in [true, false] {
                let encoded = encode(input, in_path);
                assert_eq!(decode(&encoded, false).0, input);
                assert!(decode(&encoded, false).1.detailed.is_empty());
            }
        }
    }
}
