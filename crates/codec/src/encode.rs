//! Encoding one scalar, and the opt-in CESU-8 repair.

use core::fmt;
use std::borrow::Cow;

use crate::diagnose::diagnose;
use crate::kind::MalformedKind;

/// Why a value cannot be encoded as UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeError {
    /// U+D800..U+DFFF: surrogates are not scalar values (RFC 3629 §3).
    Surrogate(u32),
    /// Above U+10FFFF: no 4-byte UTF-8 form exists (RFC 3629 §3; §10 warns that a decoder
    /// writing such a value into a fixed buffer may overflow it).
    AboveMax(u32),
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EncodeError::Surrogate(v) => {
                write!(
                    f,
                    "{} is a surrogate, not a scalar value",
                    crate::scalar::format_scalar(v)
                )
            }
            EncodeError::AboveMax(v) => {
                write!(f, "{} is above U+10FFFF", crate::scalar::format_scalar(v))
            }
        }
    }
}

impl std::error::Error for EncodeError {}

/// Encodes one scalar value in its shortest form into `buf` and returns the bytes written.
///
/// Refuses surrogates and values above U+10FFFF instead of writing a 4- to 6-byte form.
pub fn encode_scalar(value: u32, buf: &mut [u8; 4]) -> Result<&[u8], EncodeError> {
    match char::from_u32(value) {
        Some(c) => Ok(c.encode_utf8(buf).as_bytes()),
        None if value <= 0xDFFF => Err(EncodeError::Surrogate(value)),
        None => Err(EncodeError::AboveMax(value)),
    }
}

/// Rewrites every CESU-8 surrogate pair in `bytes` as the 4-byte UTF-8 of the same scalar and
/// leaves every other byte as it is (other malformations included).
///
/// Opt-in only: the corrigendum allows transforming irregular sequences into the regular form,
/// and a policy decides when that is wanted. Returns `Cow::Borrowed` when no pair is present.
pub fn repair_cesu8(bytes: &[u8]) -> Cow<'_, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    for m in diagnose(bytes).filter(|m| m.kind() == MalformedKind::Cesu8Pair) {
        let Some(c) = m.lax_char() else { continue };
        let out = out.get_or_insert_with(|| Vec::with_capacity(bytes.len()));
        out.extend_from_slice(&bytes[copied..m.offset()]);
        let mut buf = [0; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        copied = m.range().end;
    }
    match out {
        None => Cow::Borrowed(bytes),
        Some(mut out) => {
            out.extend_from_slice(&bytes[copied..]);
            Cow::Owned(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{EncodeError, encode_scalar, repair_cesu8};

    #[test]
    fn encodes_scalars_and_refuses_the_rest() {
        let mut buf = [0; 4];
        assert_eq!(encode_scalar(0x2F, &mut buf), Ok(&b"/"[..]));
        assert_eq!(encode_scalar(0x1F600, &mut buf), Ok("😀".as_bytes()));
        assert_eq!(
            encode_scalar(0xD800, &mut buf),
            Err(EncodeError::Surrogate(0xD800))
        );
        assert_eq!(
            encode_scalar(0x110000, &mut buf),
            Err(EncodeError::AboveMax(0x110000))
        );
        assert_eq!(
            encode_scalar(u32::MAX, &mut buf),
            Err(EncodeError::AboveMax(u32::MAX))
        );
    }

    #[test]
    fn repairs_only_pairs() {
        let input = b"x\xED\xA0\xBD\xED\xB8\x80y\xED\xA0\x80\xC0\xAE";
        let repaired = repair_cesu8(input);
        assert_eq!(&repaired[..], b"x\xF0\x9F\x98\x80y\xED\xA0\x80\xC0\xAE");
        assert!(matches!(
            repair_cesu8(b"plain"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
