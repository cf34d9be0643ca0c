//! Tests of syntax errors and of the cap on pointers.

use crate::readings::json::pointer::capped;
use crate::readings::json::tests::err;
use crate::readings::json::tests::oracle::*;
use crate::readings::json::*;

#[test]
fn syntax_errors() {
    let cases: &[(&[u8], usize, &str)] = &[
        (b"", 0, "expected value"),
        (b"  ", 2, "expected value"),
        (b"\xEF\xBB\xBF{}", 0, "expected value"),
        (br#"{"a" 1}"#, 5, "expected ':'"),
        (b"{1:2}", 1, "expected string key"),
        (br#"{"a":1,}"#, 7, "expected string key"),
        (b"[1,]", 3, "expected value"),
        (b"[1 2]", 3, "expected ',' or ']'"),
        (br#"{"a":1 "b":2}"#, 7, "expected ',' or '}'"),
        (b"[1}", 2, "expected ',' or ']'"),
        (b"1 2", 2, "trailing data"),
        (b"{} x", 3, "trailing data"),
        (b"01", 1, "leading zero in number"),
        (b"-", 1, "invalid number"),
        (b"-a", 1, "invalid number"),
        (b"1.", 2, "invalid number"),
        (b"1.e3", 2, "invalid number"),
        (b"1e+", 3, "invalid number"),
        (b"+1", 0, "expected value"),
        (b".5", 0, "expected value"),
        (b"tru", 0, "invalid literal"),
        (b"[nul]", 1, "invalid literal"),
        (b"True", 0, "expected value"),
        (b"\"ab", 3, "unterminated string"),
        (b"\"a\nb\"", 2, "control character in string"),
        (b"\"\x00\"", 1, "control character in string"),
        (b"\"a\\x\"", 2, "invalid escape"),
        (b"\"\\u12G4\"", 1, "invalid escape"),
        (b"\"\\u12\"", 1, "invalid escape"),
        (b"\"\\", 1, "invalid escape"),
        (b"\"\\uD800\\u\"", 7, "invalid escape"),
        (b"\x0c1", 0, "expected value"),
        (b"[1]]", 3, "trailing data"),
        (b"[[1]", 4, "expected ',' or ']'"),
    ];
    for &(body, offset, message) in cases {
        assert_eq!(scan(body, LIMITS), err(offset, message), "{body:?}");
        assert!(!serde_syntax_ok(body), "{body:?}");
    }
    for b in 0..0x20u8 {
        assert_eq!(
            scan(&[b'"', b, b'"'], LIMITS),
            err(1, "control character in string")
        );
    }
    for b in [0x20u8, 0x7F, 0x80, 0xFF] {
        assert_eq!(*scan(&[b'"', b, b'"'], LIMITS).unwrap()[0].value, [b]);
    }
}

#[test]
fn pointers_are_capped_so_output_stays_linear() {
    let key = "k".repeat(5000);
    let body = format!("{{\"{key}\":[\"\",\"\",\"\"]}}");
    let limits = JsonLimits {
        max_depth: 8,
        max_strings: 100,
    };
    let tokens = scan(body.as_bytes(), limits).unwrap();
    assert_eq!(tokens.len(), 4);
    assert!(tokens.iter().all(|t| t.pointer.len() == MAX_POINTER_BYTES));
    assert_eq!(capped("é".repeat(600).as_str()).len(), MAX_POINTER_BYTES);
}
