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
                "\\u0000", "\\x", "\u{301}", "\"",
            ]),
            0..12,
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
            prop_assert_eq!(p.proven.bytes, decoded.value.len() as u64, "{}", body);
            prop_assert!(decoded.lone_surrogates.is_empty() && decoded.escaped_nuls.is_empty());
        }
    }
}

/// The search for `.` and `%` runs once over the document, whatever the number of strings.
#[test]
fn the_trigger_search_never_goes_back() {
    let options = CheckOptions {
        lookalikes: lookalike::Table::Default,
        max_nonstarters: 30,
    };
    let mut p = Proof::new(&options);
    let body = b"\"a\" \"b.c\" \"d\" \"e\" \"%\"";
    let strings = [1..2, 5..8, 11..12, 15..16, 19..20];
    let found: Vec<bool> = strings
        .iter()
        .map(|r| p.holds_trigger(body, r.clone()))
        .collect();
    assert_eq!(found, [false, true, false, false, true]);
    assert_eq!(p.trigger, Some(19));
}
