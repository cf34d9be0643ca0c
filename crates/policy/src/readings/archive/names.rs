//! Entry names as extractors read them: CP437 (a ZIP name not flagged UTF-8, APPNOTE
//! Appendix D), and the shapes no encoding check sees (absolute paths, drive letters,
//! backslashes, empty segments).

/// CP437's characters for the bytes 0x80 to 0xFF (the lower half is ASCII).
const CP437_HIGH: [char; 128] = [
    'Ç', 'ü', 'é', 'â', 'ä', 'à', 'å', 'ç', 'ê', 'ë', 'è', 'ï', 'î', 'ì', 'Ä', 'Å', //
    'É', 'æ', 'Æ', 'ô', 'ö', 'ò', 'û', 'ù', 'ÿ', 'Ö', 'Ü', '¢', '£', '¥', '₧', 'ƒ', //
    'á', 'í', 'ó', 'ú', 'ñ', 'Ñ', 'ª', 'º', '¿', '⌐', '¬', '½', '¼', '¡', '«', '»', //
    '░', '▒', '▓', '│', '┤', '╡', '╢', '╖', '╕', '╣', '║', '╗', '╝', '╜', '╛', '┐', //
    '└', '┴', '┬', '├', '─', '┼', '╞', '╟', '╚', '╔', '╩', '╦', '╠', '═', '╬', '╧', //
    '╨', '╤', '╥', '╙', '╘', '╒', '╓', '╫', '╪', '┘', '┌', '█', '▄', '▌', '▐', '▀', //
    'α', 'ß', 'Γ', 'π', 'Σ', 'σ', 'µ', 'τ', 'Φ', 'Θ', 'Ω', 'δ', '∞', 'φ', 'ε', '∩', //
    '≡', '±', '≥', '≤', '⌠', '⌡', '÷', '≈', '°', '∙', '·', '√', 'ⁿ', '²', '■', '\u{A0}',
];

/// `bytes` read as CP437 (as APPNOTE reads a ZIP name without bit 11).
pub(super) fn cp437(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            0..=0x7F => char::from(b),
            _ => CP437_HIGH[usize::from(b - 0x80)],
        })
        .collect()
}

/// Why an extractor may write the entry `name` outside its directory whatever its encoding,
/// if it may: absolute, a drive letter or UNC prefix, a backslash, an empty segment. (`..`
/// segments are the checks' `dot_segment` and `traversal`.)
pub(super) fn unsafe_shape(name: &[u8]) -> Option<&'static str> {
    let drive = name.len() >= 2 && name[0].is_ascii_alphabetic() && name[1] == b':';
    if name.first() == Some(&b'/') {
        Some("is an absolute path")
    } else if drive {
        Some("starts with a drive letter")
    } else if name.contains(&b'\\') {
        Some("contains a backslash, a separator to Windows extractors")
    } else if memchr::memmem::find(name, b"//").is_some() {
        Some("contains an empty segment ('//')")
    } else if name.is_empty() {
        Some("is empty")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cp437_reads_the_high_half_as_appnote_does() {
        assert_eq!(cp437(b"caf\x82.txt"), "café.txt");
        assert_eq!(cp437(b"\x80\x9B\xE1\xFF"), "Ç¢ß\u{A0}");
        assert_eq!(cp437(b"plain/ascii"), "plain/ascii");
    }

    #[test]
    fn shapes_that_escape_the_directory() {
        for (name, unsafe_) in [
            (&b"/etc/passwd"[..], true),
            (b"C:/x", true),
            (b"c:x", true),
            (b"a\\..\\b", true),
            (b"\\\\host\\share", true),
            (b"a//b", true),
            (b"", true),
            (b"dir/", false),
            (b"dir/name.txt", false),
            (b"x:y", true),
            (b"ab:c", false),
        ] {
            assert_eq!(unsafe_shape(name).is_some(), unsafe_, "{name:?}");
        }
    }
}
