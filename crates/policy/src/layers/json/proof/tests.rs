//! Tests of the proof's reading of one string against the scanner's decoding.

use proptest::prelude::*;

use super::*;
use crate::checks::lookalike;
use crate::layers::json::string::decode_literal;

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
            prop_assert!(decoded.lone_surrogates.is_empty() && decoded.escaped_nuls.is_empty());
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
