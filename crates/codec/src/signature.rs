//! Byte order marks: signatures at the start of a text, and U+FEFF anywhere else.
//!
//! RFC 3629 §6: U+FEFF at the very start of a UTF-8 text may be a signature ("BOM"); anywhere
//! else it is ZERO WIDTH NO-BREAK SPACE and must not be stripped as a signature. A UTF-16 or
//! UTF-32 signature at the start says the text is not UTF-8 at all.

/// The UTF-8 encoding of U+FEFF.
pub const UTF8_BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// An encoding signature found at the start of a byte string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Signature {
    /// `EF BB BF`.
    Utf8,
    /// `FF FE` (and not `FF FE 00 00`).
    Utf16Le,
    /// `FE FF`.
    Utf16Be,
    /// `FF FE 00 00`.
    Utf32Le,
    /// `00 00 FE FF`.
    Utf32Be,
}

impl Signature {
    /// The signature's bytes.
    pub const fn bytes(self) -> &'static [u8] {
        match self {
            Signature::Utf8 => &UTF8_BOM,
            Signature::Utf16Le => &[0xFF, 0xFE],
            Signature::Utf16Be => &[0xFE, 0xFF],
            Signature::Utf32Le => &[0xFF, 0xFE, 0x00, 0x00],
            Signature::Utf32Be => &[0x00, 0x00, 0xFE, 0xFF],
        }
    }

    /// The encoding it announces, as a lowercase label (`"utf-8"`, `"utf-16le"`, ...).
    pub const fn encoding(self) -> &'static str {
        match self {
            Signature::Utf8 => "utf-8",
            Signature::Utf16Le => "utf-16le",
            Signature::Utf16Be => "utf-16be",
            Signature::Utf32Le => "utf-32le",
            Signature::Utf32Be => "utf-32be",
        }
    }
}

/// The encoding signature at the start of `bytes`, if any. UTF-32LE (`FF FE 00 00`) is
/// preferred over UTF-16LE (`FF FE`), as the WHATWG and most sniffers do.
pub fn detect_signature(bytes: &[u8]) -> Option<Signature> {
    [
        Signature::Utf8,
        Signature::Utf32Le,
        Signature::Utf32Be,
        Signature::Utf16Le,
        Signature::Utf16Be,
    ]
    .into_iter()
    .find(|s| bytes.starts_with(s.bytes()))
}

/// Byte offsets of every U+FEFF (`EF BB BF`) in `bytes`, including one at offset 0.
pub fn feff_positions(bytes: &[u8]) -> FeffPositions<'_> {
    FeffPositions { bytes, pos: 0 }
}

/// Iterator over the offsets of U+FEFF; see [`feff_positions`].
#[derive(Debug, Clone)]
pub struct FeffPositions<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Iterator for FeffPositions<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        while self.pos < self.bytes.len() {
            let found = self.bytes[self.pos..].iter().position(|&b| b == 0xEF)?;
            let at = self.pos + found;
            self.pos = at + 1;
            if self.bytes[at..].starts_with(&UTF8_BOM) {
                self.pos = at + UTF8_BOM.len();
                return Some(at);
            }
        }
        None
    }
}

impl core::iter::FusedIterator for FeffPositions<'_> {}

#[cfg(test)]
mod tests {
    use super::{Signature, detect_signature, feff_positions};

    #[test]
    fn signatures() {
        assert_eq!(detect_signature(b"\xEF\xBB\xBFhi"), Some(Signature::Utf8));
        assert_eq!(detect_signature(b"\xFF\xFEh\x00"), Some(Signature::Utf16Le));
        assert_eq!(
            detect_signature(b"\xFF\xFE\x00\x00"),
            Some(Signature::Utf32Le)
        );
        assert_eq!(
            detect_signature(b"\x00\x00\xFE\xFF"),
            Some(Signature::Utf32Be)
        );
        assert_eq!(detect_signature(b"\xFE\xFF\x00h"), Some(Signature::Utf16Be));
        assert_eq!(detect_signature(b"\xEF\xBB"), None);
        assert_eq!(detect_signature(b""), None);
        assert_eq!(Signature::Utf32Le.bytes().len(), 4);
    }

    #[test]
    fn feff_anywhere() {
        let text = "\u{FEFF}a\u{FEFF}\u{FEFF}é\u{FEFF}".as_bytes();
        let expected: Vec<usize> = text
            .windows(3)
            .enumerate()
            .filter(|(_, w)| *w == "\u{FEFF}".as_bytes())
            .map(|(i, _)| i)
            .collect();
        assert_eq!(feff_positions(text).collect::<Vec<_>>(), expected);
        assert_eq!(expected, [0, 4, 7, 12]);
        assert_eq!(feff_positions(b"\xEF\xEF\xBB\xBF").collect::<Vec<_>>(), [1]);
    }
}
