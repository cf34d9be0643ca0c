//! Lossy decoding: U+FFFD substitution of maximal subparts.
//!
//! Unicode (chapter 3, "U+FFFD Substitution of Maximal Subparts") replaces each maximal subpart
//! of an ill-formed sequence with one U+FFFD. That is what `String::from_utf8_lossy`, the WHATWG
//! Encoding Standard and Python's `errors="replace"` do, and the output here is byte-identical to
//! `String::from_utf8_lossy` for every input. The grouping differs from the diagnosis on purpose:
//! `C0 AE` is one overlong malformation but two maximal subparts, hence two U+FFFD.

use std::borrow::Cow;

/// The replacement character U+FFFD.
pub const REPLACEMENT: char = '\u{FFFD}';

/// Converts `bytes` to text, replacing each maximal subpart of an ill-formed sequence with
/// U+FFFD. Valid input is borrowed, not copied.
pub fn to_lossy(bytes: &[u8]) -> Cow<'_, str> {
    if let Some(text) = crate::validate::short_ascii(bytes) {
        return Cow::Borrowed(text);
    }
    match simdutf8::compat::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        // The scan that found the first error is reused: decoding continues from it.
        Err(first) => {
            let mut out = String::with_capacity(bytes.len() + bytes.len() / 8 + 3);
            push_from(bytes, Err(first), &mut out);
            Cow::Owned(out)
        }
    }
}

/// Appends the lossy decoding of `bytes` to `out`; returns how many U+FFFD were written.
pub fn push_lossy(bytes: &[u8], out: &mut String) -> usize {
    out.reserve(bytes.len());
    push_from(bytes, simdutf8::compat::from_utf8(bytes), out)
}

/// The length in bytes of the lossy decoding of `bytes` ([`to_lossy`]), counted without
/// writing it: what repairing a buffer costs before it is repaired.
pub fn lossy_len(bytes: &[u8]) -> usize {
    let (mut rest, mut len) = (bytes, 0);
    loop {
        let e = match simdutf8::compat::from_utf8(rest) {
            Ok(_) => return len + rest.len(),
            Err(e) => e,
        };
        len += e.valid_up_to() + REPLACEMENT.len_utf8();
        match e.error_len() {
            Some(n) => rest = &rest[e.valid_up_to() + n..],
            None => return len,
        }
    }
}

/// [`push_lossy`] given `simdutf8::compat`'s verdict on `rest`.
fn push_from<'a>(
    mut rest: &'a [u8],
    mut verdict: Result<&'a str, simdutf8::compat::Utf8Error>,
    out: &mut String,
) -> usize {
    let mut replaced = 0;
    loop {
        let e = match verdict {
            Ok(text) => {
                out.push_str(text);
                return replaced;
            }
            Err(e) => e,
        };
        let (valid, after) = rest.split_at(e.valid_up_to());
        out.push_str(validated_prefix(valid));
        out.push(REPLACEMENT);
        replaced += 1;
        match e.error_len() {
            Some(n) => rest = &after[n..],
            None => return replaced,
        }
        verdict = simdutf8::compat::from_utf8(rest);
    }
}

/// `valid` as text, for a prefix that `simdutf8::compat` reported valid (`..valid_up_to()`).
///
/// Re-validating it with `simdutf8::basic` cost 1.6 of the 7.4 instructions per byte of lossy
/// decoding on text with 1 % invalid bytes (`docs/BENCHMARKS.md`), so this is one of the crate's
/// two `unsafe` blocks; `tests/lossy_prefix.rs` compares it with the checked conversion.
#[allow(unsafe_code)]
#[inline]
fn validated_prefix(valid: &[u8]) -> &str {
    debug_assert!(core::str::from_utf8(valid).is_ok());
    // SAFETY: `valid` is `rest[..e.valid_up_to()]` for the `compat::Utf8Error` `e` of `rest`,
    // and `valid_up_to` is, as for `core::str::Utf8Error`, the length of the longest prefix of
    // `rest` that is valid UTF-8 (ending at a character boundary).
    unsafe { core::str::from_utf8_unchecked(valid) }
}

/// The length of the maximal subpart at the start of `bytes` when it is not a valid character:
/// `Some(1..=3)`, or `None` if `bytes` starts with a valid character or is empty. A truncated
/// sequence at the end of `bytes` gives its whole length.
pub fn maximal_subpart_len(bytes: &[u8]) -> Option<usize> {
    let head = &bytes[..bytes.len().min(4)];
    match simdutf8::compat::from_utf8(head) {
        Ok(_) => None,
        Err(e) if e.valid_up_to() > 0 => None,
        Err(e) => Some(e.error_len().unwrap_or(head.len())),
    }
}

#[cfg(test)]
mod tests {
    use super::{lossy_len, maximal_subpart_len, to_lossy};

    #[test]
    fn lossy_len_is_the_length_of_the_lossy_decoding() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for len in 0..2000 {
            let bytes: Vec<u8> = (0..len % 40)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    [0x41, 0x80, 0xC0, 0xE2, 0xED, 0xF0, 0xF4, 0xFF, 0x9F, 0xA0]
                        [(seed % 10) as usize]
                })
                .collect();
            assert_eq!(lossy_len(&bytes), to_lossy(&bytes).len(), "{bytes:02X?}");
        }
    }
    use std::borrow::Cow;

    #[test]
    fn unicode_chapter_3_example() {
        let input = [
            0x61, 0xF1, 0x80, 0x80, 0xE1, 0x80, 0xC2, 0x62, 0x80, 0x63, 0x80, 0xBF, 0x64,
        ];
        assert_eq!(
            to_lossy(&input),
            "a\u{FFFD}\u{FFFD}\u{FFFD}b\u{FFFD}c\u{FFFD}\u{FFFD}d"
        );
        assert_eq!(to_lossy(&input), String::from_utf8_lossy(&input));
    }

    #[test]
    fn valid_input_is_borrowed() {
        assert!(matches!(to_lossy("ok ✓".as_bytes()), Cow::Borrowed("ok ✓")));
    }

    #[test]
    fn maximal_subparts() {
        assert_eq!(maximal_subpart_len(b"\xC0\xAE"), Some(1));
        assert_eq!(maximal_subpart_len(b"\xF1\x80\x80\xE1"), Some(3));
        assert_eq!(maximal_subpart_len(b"\xE2\x82"), Some(2));
        assert_eq!(maximal_subpart_len(b"\xE2\x82\xAC"), None);
        assert_eq!(maximal_subpart_len(b""), None);
    }
}
