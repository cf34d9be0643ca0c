//! Strict validation: `&[u8]` to `&str`, or the first error with std-compatible details.

use core::fmt;

use crate::diagnose::{Malformation, next_malformation};
use crate::kind::MalformedKind;

/// Validates `bytes` as RFC 3629 UTF-8 and returns them as `&str`.
///
/// The SIMD validator (`simdutf8::basic`) decides the common, valid case at memory speed; the
/// error details are computed only on failure. The error's [`valid_up_to`](Utf8Error::valid_up_to)
/// and [`error_len`](Utf8Error::error_len) equal those of `core::str::from_utf8` for every input.
pub fn validate(bytes: &[u8]) -> Result<&str, Utf8Error> {
    if let Some(text) = short_ascii(bytes) {
        return Ok(text);
    }
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(_) => Err(first_error(bytes)),
    }
}

/// Below this many bytes, [`short_ascii`] tries [`ascii_text`].
const SHORT: usize = 64;

/// Short ASCII (names, tokens, query values) as text, by a word-at-a-time test instead of the
/// vector validator's set-up, which falls back to `core::str::from_utf8` below 64 bytes
/// anyway; `None` for longer or other bytes. What [`validate`] and `to_lossy` try first.
#[inline]
pub(crate) fn short_ascii(bytes: &[u8]) -> Option<&str> {
    if bytes.len() < SHORT {
        ascii_text(bytes)
    } else {
        None
    }
}

/// `bytes` as text when they are all ASCII (each byte a character), else `None`: the standard
/// library's word-at-a-time ASCII test, without a validation pass after it. About 70 fewer
/// instructions than `core::str::from_utf8` on each short field of a request (a GET's header
/// names, query values: `docs/BENCHMARKS.md`), so this is one of the crate's two `unsafe`
/// blocks; a test compares it with the checked conversion.
#[allow(unsafe_code)]
#[inline]
pub fn ascii_text(bytes: &[u8]) -> Option<&str> {
    if !bytes.is_ascii() {
        return None;
    }
    // SAFETY: every byte is below 0x80, a one-byte character of its own: `bytes` is UTF-8.
    Some(unsafe { core::str::from_utf8_unchecked(bytes) })
}

/// `true` if `bytes` are RFC 3629 UTF-8.
pub fn is_valid(bytes: &[u8]) -> bool {
    simdutf8::basic::from_utf8(bytes).is_ok()
}

#[cold]
fn first_error(bytes: &[u8]) -> Utf8Error {
    let (valid_up_to, error_len) = match simdutf8::compat::from_utf8(bytes) {
        Ok(_) => (bytes.len(), None),
        Err(e) => (e.valid_up_to(), e.error_len().map(|n| n as u8)),
    };
    let mut pos = valid_up_to;
    let first = next_malformation(bytes, &mut pos, true).ok().flatten();
    // The lax decoder reports its first malformation exactly at `valid_up_to` (tested
    // exhaustively); the fallback only keeps this total if the two ever disagreed.
    let first = first.unwrap_or_else(|| {
        let end = bytes.len().min(valid_up_to + 1);
        Malformation::new(
            valid_up_to,
            &bytes[valid_up_to.min(end)..end],
            MalformedKind::InvalidByte,
            None,
        )
    });
    Utf8Error {
        valid_up_to,
        error_len,
        first,
    }
}

/// The first error in a byte string that is not UTF-8.
///
/// Mirrors `core::str::Utf8Error` and adds what std does not say: the kind of the malformed
/// sequence, its whole lax span and the scalar a lax decoder would read there.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Utf8Error {
    valid_up_to: usize,
    error_len: Option<u8>,
    first: Malformation,
}

impl Utf8Error {
    /// The index up to which the input is valid UTF-8; identical to
    /// `core::str::Utf8Error::valid_up_to`.
    pub fn valid_up_to(&self) -> usize {
        self.valid_up_to
    }

    /// The length of the maximal subpart at `valid_up_to` (1 to 3 bytes), or `None` if the
    /// input ends in the middle of a sequence that could still be valid; identical to
    /// `core::str::Utf8Error::error_len`.
    pub fn error_len(&self) -> Option<usize> {
        self.error_len.map(usize::from)
    }

    /// The kind of the malformed sequence that starts at `valid_up_to`.
    pub fn kind(&self) -> MalformedKind {
        self.first.kind()
    }

    /// The malformed sequence at `valid_up_to` as a lax decoder groups it.
    pub fn malformation(&self) -> &Malformation {
        &self.first
    }
}

impl fmt::Debug for Utf8Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Utf8Error")
            .field("valid_up_to", &self.valid_up_to)
            .field("error_len", &self.error_len)
            .field("first", &self.first)
            .finish()
    }
}

impl fmt::Display for Utf8Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid UTF-8: {}", self.first)
    }
}

impl std::error::Error for Utf8Error {}

#[cfg(test)]
mod tests {
    use super::validate;
    use crate::kind::MalformedKind;

    #[test]
    fn valid_input_is_returned_as_str() {
        assert_eq!(validate("añ€😀".as_bytes()), Ok("añ€😀"));
    }

    #[test]
    #[allow(invalid_from_utf8)]
    fn error_matches_std_and_names_the_kind() {
        let input = b"ab\xED\xA0\xBD\xED\xB8\x80";
        let ours = validate(input).unwrap_err();
        let std = core::str::from_utf8(input).unwrap_err();
        assert_eq!(ours.valid_up_to(), std.valid_up_to());
        assert_eq!(ours.error_len(), std.error_len());
        assert_eq!(ours.kind(), MalformedKind::Cesu8Pair);
        assert_eq!(ours.malformation().lax_scalar(), Some(0x1F600));
    }
}
