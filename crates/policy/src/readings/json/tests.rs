//! Tests of the JSON scanner: serde_json as the oracle on generated documents, limits,
//! syntax errors and pointers. String literals (escapes, plain runs, encoding) are tested in
//! `tests/strings.rs`.

use crate::readings::json::*;
use proptest::prelude::*;
use serde_json::Value;

mod oracle;
mod strings;
mod syntax;

use oracle::*;

/// Shorthand for a syntax error.
pub(super) fn err<'a>(
    offset: usize,
    message: &'static str,
) -> Result<crate::readings::json::Tokens<'a>, JsonError> {
    Err(JsonError::Syntax { offset, message })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Valid documents: the tokens are exactly the strings of serde_json's parse, and every
    /// span is one string literal that serde_json decodes to the same value.
    #[test]
    fn tokens_match_serde_json(v in arb_value(), seed in any::<u64>()) {
        let expected = expected_tokens(&v);
        for body in bodies(&v, seed) {
            let parsed: Value = serde_json::from_slice(&body).unwrap();
            prop_assert_eq!(&expected_tokens(&parsed), &expected);
            let tokens = scan(&body, LIMITS);
            prop_assert!(tokens.is_ok(), "{:?} on {:?}", tokens, String::from_utf8_lossy(&body));
            let tokens = tokens.unwrap();
            prop_assert_eq!(&triples(&tokens), &expected);
            let mut end = 0;
            for t in &tokens {
                prop_assert!(end <= t.raw.start && t.raw.start + 2 <= t.raw.end);
                end = t.raw.end;
                let literal = &body[t.raw.clone()];
                prop_assert_eq!(literal.first(), Some(&b'"'));
                prop_assert_eq!(literal.last(), Some(&b'"'));
                let s: String = serde_json::from_slice(literal).unwrap();
                prop_assert_eq!(s.as_bytes(), &t.value[..]);
                prop_assert!(t.lone_surrogates.is_empty());
            }
        }
    }

    /// Lone surrogate escapes and raw non-UTF-8 bytes, which serde_json refuses in a
    /// `String`: decoding agrees with serde_json's byte-string decoding, where a lone
    /// surrogate is kept as generalized UTF-8.
    #[test]
    fn lone_surrogates_and_raw_bytes_match_serde_bytes(
        lits in proptest::collection::vec(arb_literal(), 3),
    ) {
        let mut body = b"{".to_vec();
        body.extend_from_slice(&lits[0]);
        body.extend_from_slice(b": [");
        body.extend_from_slice(&lits[1]);
        body.extend_from_slice(b", 1], \"k\": ");
        body.extend_from_slice(&lits[2]);
        body.push(b'}');
        prop_assert!(serde_syntax_ok(&body));
        let tokens = scan(&body, LIMITS).unwrap();
        prop_assert_eq!(tokens.len(), 4);
        prop_assert_eq!(&tokens[1].pointer, &format!("{}/0", tokens[0].pointer));
        prop_assert_eq!(&tokens[3].pointer, "/k");
        for t in &tokens {
            let WtfBytes(wtf) = serde_json::from_slice(&body[t.raw.clone()]).unwrap();
            let (value, lone) = wtf8_to_scan(&wtf);
            prop_assert_eq!(&t.value, &value);
            let at = |(i, u): (u32, u16)| (i as usize, u);
            prop_assert_eq!(&t.lone_surrogates.iter().map(at).collect::<Vec<_>>(), &lone);
        }
        let key = String::from_utf8_lossy(&tokens[0].value).replace('~', "~0").replace('/', "~1");
        prop_assert_eq!(&tokens[0].pointer, &format!("/{key}"));
    }

    /// Rewriting spans with `encode_string` changes those strings and nothing else.
    #[test]
    fn rewriting_spans_keeps_the_rest(v in arb_value(), seed in any::<u64>()) {
        for body in bodies(&v, seed) {
            let tokens = scan(&body, LIMITS).unwrap();
            let same = rewrite(&body, &tokens, |t| {
                encode_string(core::str::from_utf8(&t.value).unwrap())
            });
            prop_assert_eq!(
                serde_json::from_slice::<Value>(&same).unwrap(),
                serde_json::from_slice::<Value>(&body).unwrap()
            );
            let changed = rewrite(&body, &tokens, |t| {
                let s = core::str::from_utf8(&t.value).unwrap();
                if t.is_key {
                    encode_string(&format!("k{s}"))
                } else {
                    encode_string(&s.chars().rev().collect::<String>())
                }
            });
            prop_assert_eq!(
                serde_json::from_slice::<Value>(&changed).unwrap(),
                transform(&serde_json::from_slice::<Value>(&body).unwrap())
            );
        }
        // serde_json escapes exactly as `encode_string` does: an identity rewrite of its
        // output is byte for byte the same body.
        let pretty = serde_json::to_vec_pretty(&v).unwrap();
        let tokens = scan(&pretty, LIMITS).unwrap();
        let same = rewrite(&pretty, &tokens, |t| {
            encode_string(core::str::from_utf8(&t.value).unwrap())
        });
        prop_assert_eq!(&same, &pretty);
    }
}

proptest! {
    // Cheap cases, and what they look for is rare: many of them.
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// Mutated documents: accepted exactly when serde_json's syntax check accepts them, and
    /// when serde_json's `Value` parse disagrees, it is for one of the documented reasons,
    /// which the scan result shows.
    #[test]
    fn acceptance_matches_serde_json(
        v in arb_value(),
        seed in any::<u64>(),
        which in 0usize..3,
        edits in proptest::collection::vec(arb_mutation(), 1..4),
    ) {
        let mut body = bodies(&v, seed).swap_remove(which);
        for m in &edits {
            mutate(&mut body, m);
        }
        let ours = scan(&body, LIMITS);
        prop_assert_eq!(ours.is_ok(), serde_syntax_ok(&body), "{:?} on {:?}", ours, String::from_utf8_lossy(&body));
        let full = serde_json::from_slice::<Value>(&body);
        match (&ours, &full) {
            (Ok(_), Ok(_)) | (Err(_), Err(_)) => {}
            (Err(e), Ok(_)) => prop_assert!(false, "we refuse what serde_json accepts: {:?}", e),
            (Ok(tokens), Err(e)) => {
                let msg = e.to_string();
                let lone = tokens.iter().any(|t| !t.lone_surrogates.is_empty());
                let not_utf8 = tokens.iter().any(|t| core::str::from_utf8(&t.value).is_err());
                prop_assert!(
                    ((msg.starts_with("lone leading surrogate in hex escape")
                        || msg.starts_with("unexpected end of hex escape")) && lone)
                        || (msg.starts_with("invalid unicode code point") && not_utf8)
                        || msg.starts_with("number out of range"),
                    "serde_json: {}, tokens {:?}", msg, tokens
                );
            }
        }
    }

    /// Arbitrary bytes never panic, and the verdict is serde_json's syntax verdict.
    #[test]
    fn arbitrary_bytes(
        body in prop_oneof![
            any::<Vec<u8>>(),
            proptest::collection::vec(arb_byte(), 0..64),
        ],
        max_depth in 0usize..4,
        max_strings in 0usize..4,
    ) {
        let ours = scan(&body, LIMITS);
        prop_assert_eq!(ours.is_ok(), serde_syntax_ok(&body));
        let limited = scan(&body, JsonLimits { max_depth, max_strings });
        if let Ok(tokens) = &limited {
            prop_assert!(tokens.len() <= max_strings);
            prop_assert_eq!(Ok(tokens), ours.as_ref());
        }
    }
}

#[test]
fn pointer_escapes_decoded_key() {
    let tokens = scan(br#"{"a\/b~c":"x"}"#, LIMITS).unwrap();
    assert_eq!(
        triples(&tokens),
        vec![
            ("/a~1b~0c".to_owned(), true, b"a/b~c".to_vec()),
            ("/a~1b~0c".to_owned(), false, b"x".to_vec()),
        ]
    );
    assert_eq!(tokens[0].raw, 1..9);
    assert_eq!(tokens[1].raw, 10..13);
}

#[test]
fn pointer_of_non_utf8_key_is_lossy() {
    let tokens = scan(b"{\"\xFF/\":\"v\"}", LIMITS).unwrap();
    assert_eq!(tokens[0].pointer, "/\u{FFFD}~1");
    assert_eq!(*tokens[0].value, *b"\xFF/");
}

#[test]
fn nested_pointers() {
    let tokens = scan(
        br#" {"a" : [ {"b":"c"} , "d", [], {} , "e"], "":"f"} "#,
        LIMITS,
    )
    .unwrap();
    let got: Vec<(&str, bool)> = tokens
        .iter()
        .map(|t| (t.pointer.as_str(), t.is_key))
        .collect();
    assert_eq!(
        got,
        vec![
            ("/a", true),
            ("/a/0/b", true),
            ("/a/0/b", false),
            ("/a/1", false),
            ("/a/4", false),
            ("/", true),
            ("/", false),
        ]
    );
}

#[test]
fn raw_bytes_are_copied() {
    let tokens = scan(b"\"\xC0\xAE\"", LIMITS).unwrap();
    assert_eq!(*tokens[0].value, [0xC0, 0xAE]);
    assert_eq!(tokens[0].raw, 0..4);
    // Outside a string they are a syntax error.
    assert_eq!(scan(b"[\xC0]", LIMITS), err(1, "expected value"));
}

#[test]
fn top_level_scalars() {
    let tokens = scan(b"\"x\"", LIMITS).unwrap();
    assert_eq!(
        triples(&tokens),
        vec![(String::new(), false, b"x".to_vec())]
    );
    for ok in [
        &b" 1 "[..],
        b"-0.5e+3",
        b"true",
        b"null\r\n",
        b"false\t",
        b"0",
        b"[]",
        b"{ }",
    ] {
        assert!(scan(ok, LIMITS).is_ok(), "{ok:?}");
    }
}

#[test]
fn depth_limit() {
    let limits = |max_depth| JsonLimits {
        max_depth,
        max_strings: 10,
    };
    assert_eq!(
        scan(b"[[[[1]]]]", limits(3)),
        Err(JsonError::TooDeep {
            offset: 3,
            limit: 3
        })
    );
    assert!(scan(b"[[[[1]]]]", limits(4)).is_ok());
    assert_eq!(
        scan(br#"{"a":{"b":1}}"#, limits(1)),
        Err(JsonError::TooDeep {
            offset: 5,
            limit: 1
        })
    );
    assert!(scan(b"\"x\"", limits(0)).is_ok());
    assert_eq!(
        scan(b"[]", limits(0)),
        Err(JsonError::TooDeep {
            offset: 0,
            limit: 0
        })
    );
    // Siblings do not add up.
    let siblings = br#"[[1],[2],{"a":[3]}]"#;
    assert!(scan(siblings, limits(3)).is_ok());
    assert_eq!(
        scan(siblings, limits(2)),
        Err(JsonError::TooDeep {
            offset: 14,
            limit: 2
        })
    );
}

#[test]
fn deep_nesting_does_not_overflow() {
    let deep = vec![b'['; 100_000];
    assert_eq!(
        scan(&deep, LIMITS),
        Err(JsonError::TooDeep {
            offset: 128,
            limit: 128
        })
    );
    // No recursion at all: with no depth limit the scanner walks it to the end.
    let unlimited = JsonLimits {
        max_depth: usize::MAX,
        max_strings: usize::MAX,
    };
    assert_eq!(scan(&deep, unlimited), err(100_000, "expected value"));
    let mut balanced = deep.clone();
    balanced.extend_from_slice(b"\"x\"");
    balanced.extend(vec![b']'; 100_000]);
    let tokens = scan(&balanced, unlimited).unwrap();
    assert_eq!(tokens[0].pointer, "/0".repeat(MAX_POINTER_BYTES / 2));
}

#[test]
fn string_limit() {
    let limits = |max_strings| JsonLimits {
        max_depth: 10,
        max_strings,
    };
    let body = br#"{"a":"b","c":[1,"d"]}"#;
    assert_eq!(scan(body, limits(4)).unwrap().len(), 4);
    assert_eq!(
        scan(body, limits(3)),
        Err(JsonError::TooManyStrings { limit: 3 })
    );
    assert_eq!(
        scan(b"\"x\"", limits(0)),
        Err(JsonError::TooManyStrings { limit: 0 })
    );
    assert!(scan(b"[1, 2]", limits(0)).is_ok());
}
