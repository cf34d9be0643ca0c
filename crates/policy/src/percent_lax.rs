//! Percent escapes as a lax decoder reads them: hex digits, `%XX` and IIS-style `%uXXXX`
//! escapes, and a lenient second decoding pass. A leaf: the percent layer decodes with it and
//! the traversal check reads fields as a careless second pass would.

use std::borrow::Cow;

/// The value of an ASCII hex digit.
pub(crate) fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The byte two hex digits spell (`b"C0"` → `0xC0`); `None` unless exactly two hex digits.
pub(crate) fn hex_pair(pair: &[u8]) -> Option<u8> {
    match pair {
        [h, l] => Some(hex_value(*h)? << 4 | hex_value(*l)?),
        _ => None,
    }
}

/// The byte a valid `%XX` escape at `i` spells.
pub(crate) fn escape_at(bytes: &[u8], i: usize) -> Option<u8> {
    match bytes.get(i..i + 3)? {
        [b'%', pair @ ..] => hex_pair(pair),
        _ => None,
    }
}

/// The value of a `%uXXXX` escape (IIS) at `i`.
pub(crate) fn iis_escape_at(bytes: &[u8], i: usize) -> Option<u32> {
    match bytes.get(i..i + 6)? {
        [b'%', b'u' | b'U', digits @ ..] => digits
            .iter()
            .try_fold(0u32, |v, &d| Some(v << 4 | u32::from(hex_value(d)?))),
        _ => None,
    }
}

/// Decodes every valid `%XX` escape once, leaving anything else as it is (no `+`, no `%u`): the
/// path as mainstream routers read it.
pub fn decode_once(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match escape_at(bytes, i) {
            Some(v) => {
                out.push(v);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    out
}

/// Decodes every valid `%XX` and `%uXXXX` escape, the way a lax second pass would (lossy).
pub(crate) fn decode_lax(bytes: &[u8]) -> Cow<'_, [u8]> {
    // Most fields that reach here hold a `%` that escapes nothing (a bare one, `%zz`): they
    // read as they are, with no copy.
    let decodes = |i: usize| escape_at(bytes, i).is_some() || iis_escape_at(bytes, i).is_some();
    let Some(first) = memchr::memchr_iter(b'%', bytes).find(|&i| decodes(i)) else {
        return Cow::Borrowed(bytes);
    };
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(&bytes[..first]);
    let mut i = first;
    while i < bytes.len() {
        if let Some(v) = escape_at(bytes, i) {
            out.push(v);
            i += 3;
        } else if let Some(c) = iis_escape_at(bytes, i).and_then(char::from_u32) {
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            i += 6;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lax_second_pass() {
        assert_eq!(&*decode_lax(b"%c0%ae%u002e%zz"), b"\xC0\xAE.%zz");
        assert!(matches!(decode_lax(b"%%zz%"), Cow::Borrowed(_)));
    }

    #[test]
    fn once_decodes_only_valid_pairs() {
        assert_eq!(decode_once(b"%2e%2E%252e%u002e%z+%"), b"..%2e%u002e%z+%");
    }
}
