//! How two keys of one object are told apart: the form a key is compared in, and the keys that
//! Go's `encoding/json` reads as another key.
//!
//! Go binds an object's keys to struct fields case-insensitively, by Unicode simple case
//! folding (`bytes.EqualFold`, CaseFolding.txt statuses C and S), the last key winning. Two
//! characters outside ASCII fold to ASCII letters there: U+017F LATIN SMALL LETTER LONG S to
//! `s`, U+212A KELVIN SIGN to `k`. A key holding one (`"iſ_admin"`) is, to Go, the ASCII key
//! (`is_admin`) every other reader and every check of ours sees as another key: two readings
//! of one document. No real API names a field that way, so such a key is refused whether or
//! not its ASCII twin is in the object.
//!
//! Keys are compared in NFC (a sanitized key is in NFC: two keys that differ only by their
//! normalization would become one); under `[readings] json_keys = "go"`, also by simple case
//! folding, as Go binds them (`action` and `ACTION`, `straße` and `STRAßE`).

use std::borrow::Cow;

use icu_casemap::CaseMapper;
use icu_normalizer::ComposingNormalizerBorrowed;

use crate::profile::JsonKeyReading;

/// The first character of `key` outside ASCII that simple case folding maps into ASCII, and
/// where it starts.
pub(crate) fn folds_to_ascii(key: &[u8]) -> Option<(usize, char)> {
    if key.is_ascii() {
        return None;
    }
    let text = core::str::from_utf8(key).ok()?;
    let fold = CaseMapper::new();
    text.char_indices()
        .find(|&(_, c)| !c.is_ascii() && fold.simple_fold(c).is_ascii())
}

/// The form of `key` that two keys of one object must not share: its NFC, simply case-folded
/// under `reading` [`JsonKeyReading::Go`]. Bytes that are not UTF-8 are compared as they are
/// (the UTF-8 check refuses them).
pub(crate) fn comparison_form(key: &[u8], reading: JsonKeyReading) -> Cow<'_, [u8]> {
    let go = reading == JsonKeyReading::Go;
    if key.is_ascii() {
        return match go && key.iter().any(u8::is_ascii_uppercase) {
            true => Cow::Owned(key.to_ascii_lowercase()),
            false => Cow::Borrowed(key),
        };
    }
    let Ok(text) = core::str::from_utf8(key) else {
        return Cow::Borrowed(key);
    };
    let nfc = ComposingNormalizerBorrowed::new_nfc().normalize(text);
    if !go {
        return match nfc {
            Cow::Borrowed(_) => Cow::Borrowed(key),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        };
    }
    let fold = CaseMapper::new();
    Cow::Owned(
        nfc.chars()
            .map(|c| fold.simple_fold(c))
            .collect::<String>()
            .into_bytes(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_compare_in_nfc_and_fold_only_under_go() {
        let exact = JsonKeyReading::Exact;
        let go = JsonKeyReading::Go;
        assert_eq!(
            &*comparison_form("e\u{301}".as_bytes(), exact),
            "é".as_bytes()
        );
        assert_eq!(&*comparison_form(b"Action", exact), b"Action");
        assert_eq!(&*comparison_form(b"Action", go), b"action");
        assert_eq!(
            &*comparison_form("STRAẞE".as_bytes(), go),
            "straße".as_bytes()
        );
        assert_eq!(&*comparison_form("\u{212a}ind".as_bytes(), go), b"kind");
        assert_eq!(&*comparison_form(b"\xC0\xAE", go), b"\xC0\xAE");
    }

    #[test]
    fn the_two_characters_that_fold_into_ascii() {
        assert_eq!(folds_to_ascii("iſ_admin".as_bytes()), Some((1, 'ſ')));
        assert_eq!(
            folds_to_ascii("\u{212a}ind".as_bytes()),
            Some((0, '\u{212a}'))
        );
        assert_eq!(folds_to_ascii("Åström_ıİ".as_bytes()), None);
        assert_eq!(folds_to_ascii(b"is_admin"), None);
    }
}
