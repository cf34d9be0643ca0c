//! One-shot diagnosis: every malformed sequence in a buffer, with what a lax decoder reads there.

use core::fmt;

use crate::kind::MalformedKind;
use crate::lax::{self, MAX_SPAN, Step};

/// One malformed sequence: where it is, which bytes, what kind, and what a lax decoder reads.
///
/// The span is the one a lax (RFC 2279 / CESU-8 tolerant) decoder groups, so `C0 AE` is one
/// malformation of two bytes even though U+FFFD substitution by maximal subparts replaces it
/// with two U+FFFD.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Malformation {
    offset: usize,
    len: u8,
    bytes: [u8; MAX_SPAN],
    kind: MalformedKind,
    lax_scalar: Option<u32>,
}

impl Malformation {
    pub(crate) fn new(
        offset: usize,
        span: &[u8],
        kind: MalformedKind,
        lax_scalar: Option<u32>,
    ) -> Malformation {
        let len = span.len().min(MAX_SPAN);
        let mut bytes = [0; MAX_SPAN];
        bytes[..len].copy_from_slice(&span[..len]);
        Malformation {
            offset,
            len: len as u8,
            bytes,
            kind,
            lax_scalar,
        }
    }

    /// Byte offset of the first byte of the sequence in the input (absolute, for streams).
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Number of bytes in the sequence, 1 to 6.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// `offset()..offset() + len()`.
    pub fn range(&self) -> core::ops::Range<usize> {
        self.offset..self.offset.saturating_add(self.len())
    }

    /// The bytes of the sequence.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len()]
    }

    /// What is wrong with the sequence.
    pub fn kind(&self) -> MalformedKind {
        self.kind
    }

    /// The value a lax decoder produces from these bytes, where it produces one (`C0 AE` →
    /// `0x2E`, `F4 90 80 80` → `0x110000`). `None` for truncated sequences, stray continuation
    /// bytes and `FE`/`FF`. It may be a surrogate or exceed U+10FFFF, so it is a `u32`.
    pub fn lax_scalar(&self) -> Option<u32> {
        self.lax_scalar
    }

    /// The lax scalar as a `char`, when it is a Unicode scalar value (what a lax decoder would
    /// hand to the application as a character).
    pub fn lax_char(&self) -> Option<char> {
        self.lax_scalar.and_then(char::from_u32)
    }

    /// A one-line message: `overlong form at byte 1 (C0 AE): a lax decoder reads U+002E '.'`.
    pub fn message(&self) -> String {
        let hex: Vec<String> = self.bytes().iter().map(|b| format!("{b:02X}")).collect();
        let head = format!(
            "{} at byte {} ({})",
            self.kind.description(),
            self.offset,
            hex.join(" ")
        );
        match (self.lax_scalar, self.lax_char()) {
            (Some(v), Some(c)) if !c.is_control() && !c.is_whitespace() => {
                format!(
                    "{head}: a lax decoder reads {} {c:?}",
                    crate::scalar::format_scalar(v)
                )
            }
            (Some(v), _) => format!(
                "{head}: a lax decoder reads {}",
                crate::scalar::format_scalar(v)
            ),
            (None, _) => head,
        }
    }

    pub(crate) fn with_offset(mut self, offset: usize) -> Malformation {
        self.offset = offset;
        self
    }
}

impl fmt::Debug for Malformation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Malformation")
            .field("offset", &self.offset)
            .field("bytes", &format_args!("{:02X?}", self.bytes()))
            .field("kind", &self.kind)
            .field(
                "lax_scalar",
                &self.lax_scalar.map(crate::scalar::format_scalar),
            )
            .finish()
    }
}

impl fmt::Display for Malformation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

/// Returns an iterator over every malformed sequence in `bytes`, in order.
///
/// Valid stretches are skipped with the SIMD validator; the lax decoder runs only where the
/// strict one failed. An empty iterator means `bytes` is valid UTF-8.
pub fn diagnose(bytes: &[u8]) -> Diagnose<'_> {
    Diagnose { bytes, pos: 0 }
}

/// Iterator over the malformed sequences of a buffer; see [`diagnose`].
#[derive(Debug, Clone)]
pub struct Diagnose<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Iterator for Diagnose<'_> {
    type Item = Malformation;

    fn next(&mut self) -> Option<Malformation> {
        next_malformation(self.bytes, &mut self.pos, true)
            .ok()
            .flatten()
    }
}

impl core::iter::FusedIterator for Diagnose<'_> {}

/// ASCII bytes read one at a time before the vector validator is started.
const SCALAR_LOOKAHEAD: usize = 16;

/// Judges the sequence at `*pos` with the lax decoder: a malformation (`*pos` moves past it),
/// or a valid character (`*pos` moves past it, `None`), or `Err` when it needs more bytes.
fn judge(bytes: &[u8], pos: &mut usize, at_eof: bool) -> Result<Option<Malformation>, ()> {
    match lax::step(&bytes[*pos..], at_eof) {
        Step::Malformed {
            len,
            kind,
            lax_scalar,
        } => {
            let found = Malformation::new(*pos, &bytes[*pos..*pos + len], kind, lax_scalar);
            *pos += len;
            Ok(Some(found))
        }
        Step::NeedMore => Err(()),
        Step::Valid(len) => {
            *pos += len;
            Ok(None)
        }
    }
}

/// Finds the next malformation at or after `*pos` in `bytes`.
///
/// Returns `Ok(None)` when the rest is valid (`*pos` is then `bytes.len()`), and `Err(())` when
/// `at_eof` is false and the sequence at `*pos` needs bytes beyond `bytes` to be judged.
pub(crate) fn next_malformation(
    bytes: &[u8],
    pos: &mut usize,
    at_eof: bool,
) -> Result<Option<Malformation>, ()> {
    while *pos < bytes.len() {
        // Hostile input has a malformation every few bytes, and the vector validator has a
        // start-up cost: a non-ASCII byte among the next few is judged on its own first, and
        // the validator runs from the first character after it.
        let ascii = bytes[*pos..]
            .iter()
            .take(SCALAR_LOOKAHEAD)
            .take_while(|b| b.is_ascii())
            .count();
        *pos += ascii;
        if *pos == bytes.len() {
            return Ok(None);
        }
        if ascii < SCALAR_LOOKAHEAD {
            if let Some(found) = judge(bytes, pos, at_eof)? {
                return Ok(Some(found));
            }
            if *pos == bytes.len() {
                return Ok(None);
            }
        }
        match simdutf8::compat::from_utf8(&bytes[*pos..]) {
            Ok(_) => {
                *pos = bytes.len();
                return Ok(None);
            }
            Err(e) => *pos += e.valid_up_to(),
        }
        // A valid sequence here is unreachable when the strict and lax decoders agree on valid
        // sequences (tested exhaustively); stepping over keeps the loop finite regardless.
        if let Some(found) = judge(bytes, pos, at_eof)? {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::diagnose;
    use crate::kind::MalformedKind;

    #[test]
    fn finds_the_overlong_dot_in_a_traversal() {
        let found: Vec<_> = diagnose(b"/\xC0\xAE./").collect();
        assert_eq!(found.len(), 1);
        let m = found[0];
        assert_eq!(
            (m.offset(), m.len(), m.kind()),
            (1, 2, MalformedKind::Overlong)
        );
        assert_eq!(m.bytes(), [0xC0, 0xAE]);
        assert_eq!(m.lax_char(), Some('.'));
        assert_eq!(
            m.message(),
            "overlong form at byte 1 (C0 AE): a lax decoder reads U+002E '.'"
        );
    }

    #[test]
    fn valid_text_has_no_findings() {
        assert_eq!(diagnose("Grüße, 世界 🎉".as_bytes()).count(), 0);
        assert_eq!(diagnose(b"").count(), 0);
    }
}
