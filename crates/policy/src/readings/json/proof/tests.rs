//! Tests of the proof's reading of one string against the scanner's decoding.

use proptest::prelude::*;

use crate::checks::lookalike;
use crate::readings::json::proof::*;
use crate::readings::json::string::decode_literal;

proptest! {
    /// A literal the proof takes is one the scanner decodes, ending at the same byte, and the
    /// bytes the proof counts are the decoded value's.
    #[test]
    fn a_string_taken_is_decoded_to_the_length_counted(
        pieces in prop::collection::vec(
            prop::sample::select(vec![
                "a", "é", "我", "😀", ".", "%", "\\\"", "\\\\", "\\/", "\\n", "\\t", "\\b",
                "\\u00e9", "\\u0041", "\\u002e", "\\ud83d\\ude00", "\\ud800", "\\u0301",
                "\\u0000", "\\x", "\u{301}", "\"", "\\r", "\\f",
                // Strings across blocks, and escapes across their edges.
                "abcdefghijklmnopqrstuvwxyz01234", "\\\\\\\\\\\\",
            ]),
            0..24,
        ),
        key in any::<bool>(),
    ) {
        let body = format!("\"{}\"", pieces.concat());
        let options = CheckOptions { lookalikes: lookalike::Table::Default, max_nonstarters: 30 };
        let mut p = Proof::new(&options);
        let taken = p.string(body.as_bytes(), 0, key.then_some(7));
        if let Ok(end) = taken {
            let decoded = decode_literal(body.as_bytes(), 0);
            prop_assert!(decoded.is_ok(), "{}", body);
            let decoded = decoded.unwrap();
            prop_assert_eq!(decoded.raw.end, end);
            // The simple escapes are counted for the whole document, whose bytes after its
            // strings hold no backslash when it is valid.
            if !body.as_bytes()[end..].contains(&b'\\') {
                let bytes = p.proven.bytes - p.window.escapes() as u64;
                prop_assert_eq!(bytes, decoded.value.len() as u64, "{}", body);
            }
            prop_assert!(decoded.lone_surrogates.is_empty() && !decoded.value.contains(&0));
        }
    }
}

/// Only the strings whose raw text holds a `.` or `%` leave the fast path, and what they
/// hold is read in the same pass as their special bytes: a document of strings with and
/// without them is proven, and one whose dotted string makes a dot-segment is not.
#[test]
fn dots_are_noted_per_string() {
    let options = CheckOptions {
        lookalikes: lookalike::Table::Default,
        max_nonstarters: 30,
    };
    let limits = JsonLimits {
        max_depth: 8,
        max_strings: 100,
    };
    let filler = "x".repeat(200);
    let clean = format!(r#"["a", "b.c", "{filler}", "{filler}.{filler}", "100%", "d"]"#);
    let proven = prove(clean.as_bytes(), limits, &options).expect("proven");
    assert_eq!(proven.strings, 6);
    let dotted = format!(r#"["a", "{filler}", "x/../y", "d"]"#);
    assert_eq!(prove(dotted.as_bytes(), limits, &options), None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    /// A soup of JSON's bytes (quotes, backslashes and escapes stray or in place, brackets,
    /// long runs across blocks): whatever the proof takes, the scanner takes too, with the
    /// same strings and the same decoded bytes. The window's escapes read a block from a
    /// start with no escape pending; a stray backslash outside a string must never let the
    /// proof read strings the scanner does not.
    #[test]
    fn the_proof_takes_only_what_the_scanner_takes(
        tokens in prop::collection::vec(
            prop::sample::select(vec![
                "\"", "\\", "\\\"", "\\\\", "\\n", "\\/", "\\u0041", "\\ud83d\\ude00", "a", "é",
                ",", "[", "]", "{", "}", ":", "1", " ", "\"x\"", "\"k\":", ",\"",
                "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz012",
            ]),
            0..40,
        ),
    ) {
        let body = format!("[\"{}\"]", tokens.concat());
        let options = CheckOptions { lookalikes: lookalike::Table::Default, max_nonstarters: 30 };
        let limits = JsonLimits { max_depth: 16, max_strings: 1000 };
        if let Some(proven) = prove(body.as_bytes(), limits, &options) {
            let scanned = crate::readings::json::scan(body.as_bytes(), limits);
            prop_assert!(scanned.is_ok(), "{}", body);
            let strings = scanned.unwrap();
            prop_assert_eq!(strings.len(), proven.strings, "{}", body);
            let bytes: usize = strings.iter().map(|s| s.value.len()).sum();
            prop_assert_eq!(bytes as u64, proven.bytes, "{}", body);
        }
    }
}
