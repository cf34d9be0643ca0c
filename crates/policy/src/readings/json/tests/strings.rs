//! Tests of string literals: plain runs, escapes (NUL, lone surrogates, pairs) and the
//! encoding of rewritten values, against their definitions and serde_json.

use crate::readings::json::string::{REPLACEMENT, decode_literal, plain_run, skip_literal};
use crate::readings::json::tests::oracle::*;
use crate::readings::json::*;
use proptest::prelude::*;

proptest! {
    #[test]
    fn plain_run_stops_where_the_definition_does(
        plain in proptest::collection::vec(0x20u8..=0xFF, 0..300),
        special in proptest::sample::select(vec![b'"', b'\\', 0x00, 0x1F, b'\n']),
        at in 0usize..300,
        present in any::<bool>(),
    ) {
        let mut bytes: Vec<u8> = plain
            .into_iter()
            .map(|b| if b == b'"' || b == b'\\' { b'a' } else { b })
            .collect();
        if present {
            bytes.insert(at.min(bytes.len()), special);
        }
        let expected = bytes
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            .unwrap_or(bytes.len());
        prop_assert_eq!(plain_run(&bytes), expected);
    }

    /// A literal read through without its value ends where its decoding does, or fails with
    /// the same error: on literals of escapes (valid, cut short, of bad letters or digits),
    /// controls, quotes and text, closed or not.
    #[test]
    fn a_literal_skipped_ends_where_its_decoding_does(
        pieces in proptest::collection::vec(proptest::sample::select(vec![
            "a", "é", "\\\"", "\\\\", "\\/", "\\n", "\\b", "\\u00e9", "\\ud800",
            "\\udc00", "\\ud83d\\ude00", "\\u12", "\\uzzzz", "\\x", "\\", "\"", "\n", "\u{1f}",
            "\u{7f}", " ",
        ]), 0..12),
        closed in any::<bool>(),
    ) {
        let mut literal = format!("\"{}", pieces.concat());
        if closed {
            literal.push('"');
        }
        let decoded = decode_literal(literal.as_bytes(), 0).map(|d| d.raw.end);
        prop_assert_eq!(skip_literal(literal.as_bytes(), 0), decoded, "{:?}", literal);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `encode_string` is serde_json's encoding, round-trips, and leaves non-ASCII raw.
    #[test]
    fn encode_string_round_trips(s in prop_oneof![arb_string(), any::<String>()]) {
        let encoded = encode_string(&s);
        prop_assert_eq!(&encoded, &serde_json::to_string(&s).unwrap());
        prop_assert_eq!(serde_json::from_str::<String>(&encoded).unwrap(), s.clone());
        let non_ascii = |x: &str| x.chars().filter(|c| !c.is_ascii()).collect::<String>();
        prop_assert_eq!(non_ascii(&encoded), non_ascii(&s));
        let tokens = scan(encoded.as_bytes(), LIMITS).unwrap();
        prop_assert_eq!(tokens.len(), 1);
        prop_assert_eq!(&tokens[0].value, &s.as_bytes().to_vec());
        prop_assert_eq!(tokens[0].raw.clone(), 0..encoded.len());
    }
}

#[test]
fn escaped_nul() {
    let tokens = scan(br#"["\u0000"]"#, LIMITS).unwrap();
    assert_eq!(*tokens[0].value, [0]);
    let tokens = scan(br#""ab\u0000c\u0000""#, LIMITS).unwrap();
    assert_eq!(*tokens[0].value, *b"ab\0c\0");
    assert_eq!(tokens[0].pointer, "");
}

#[test]
fn lone_surrogates() {
    let tokens = scan(br#"{"k":"\uD800x"}"#, LIMITS).unwrap();
    assert_eq!(*tokens[1].value, [0xEF, 0xBF, 0xBD, b'x']);
    assert_eq!(
        tokens[1].lone_surrogates.iter().collect::<Vec<_>>(),
        [(0, 0xD800)]
    );
    assert_eq!(tokens[1].pointer, "/k");
    // A low surrogate alone, a high one before a non-surrogate escape, two highs before a
    // low (the second pairs), and a high one at the end of the string.
    let tokens = scan(br#""a\udc00\uD800\u0041\ud800\ud800\udc00\uDBFF""#, LIMITS).unwrap();
    let mut value = b"a".to_vec();
    value.extend_from_slice(&REPLACEMENT);
    value.extend_from_slice(&REPLACEMENT);
    value.push(b'A');
    value.extend_from_slice(&REPLACEMENT);
    value.extend_from_slice("\u{10000}".as_bytes());
    value.extend_from_slice(&REPLACEMENT);
    assert_eq!(*tokens[0].value, value);
    assert_eq!(
        tokens[0].lone_surrogates.iter().collect::<Vec<_>>(),
        [(1, 0xDC00), (4, 0xD800), (8, 0xD800), (15, 0xDBFF)]
    );
}

#[test]
fn surrogate_pair() {
    let tokens = scan(br#""\uD83D\uDE00""#, LIMITS).unwrap();
    assert_eq!(*tokens[0].value, [0xF0, 0x9F, 0x98, 0x80]);
    assert!(tokens[0].lone_surrogates.is_empty());
    assert_eq!(tokens[0].pointer, "");
    assert!(!tokens[0].is_key);
}

#[test]
fn long_runs_of_lone_surrogates() {
    // Every unpaired high surrogate is looked at again as the start of the next escape:
    // still one pass.
    let mut body = b"\"".to_vec();
    body.extend("\\uD800".repeat(200_000).as_bytes());
    body.push(b'"');
    let tokens = scan(&body, LIMITS).unwrap();
    assert_eq!(tokens[0].lone_surrogates.len(), 200_000);
    assert_eq!(tokens[0].value.len(), 600_000);
    assert_eq!(
        tokens[0].lone_surrogates.iter().last(),
        Some((599_997, 0xD800))
    );
}

#[test]
fn encode_string_escapes_only_what_is_required() {
    assert_eq!(
        encode_string("a\"b\\c/\u{0}\u{1f}\u{8}\u{c}\n\r\t\u{7f}é😀"),
        "\"a\\\"b\\\\c/\\u0000\\u001f\\b\\f\\n\\r\\t\u{7f}é😀\""
    );
    assert_eq!(encode_string(""), "\"\"");
}
