//! Properties of `evaluate` over random requests.

use proptest::prelude::*;
use unicode_normalization::UnicodeNormalization;
use utf8gate_policy::{Decision, Profile, Request, evaluate};

/// Pieces of text: ordinary scripts, combining marks, and every kind of trouble.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => "[a-zA-Z0-9 ,.-]{1,8}".prop_map(String::into_bytes),
        2 => prop::sample::select(vec!["é", "e\u{301}", "Å", "A\u{30A}", "ж", "中文", "😀", "👩\u{200D}💻", "ﬁ", "\u{FEFF}", "\u{202E}", "\u{FF0F}", "\u{37E}", "\u{1FEF}", "ｶ", "가", "\u{1100}\u{1161}", "\t", "\r\n", "\u{7}"]).prop_map(|s| s.as_bytes().to_vec()),
        1 => prop::sample::select(vec![&b"\xC0\xAE"[..], b"\xC0\x80", b"\xED\xA0\x80", b"\xED\xA0\xBD\xED\xB8\x80", b"\xF4\x90\x80\x80", b"\xFF", b"\x80", b"\xE2\x82", b"\xF8\x88\x80\x80\x80"]).prop_map(<[u8]>::to_vec),
        1 => prop::collection::vec(any::<u8>(), 1..4),
    ]
}

fn text() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(piece(), 0..24).prop_map(|p| p.concat())
}

fn pct(bytes: &[u8]) -> Vec<u8> {
    bytes
        .iter()
        .flat_map(|&b| {
            if b.is_ascii_alphanumeric() {
                vec![b]
            } else {
                format!("%{b:02X}").into_bytes()
            }
        })
        .collect()
}

fn json_literal(bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![b'"'];
    for &b in bytes {
        match b {
            b'"' | b'\\' => out.extend_from_slice(&[b'\\', b]),
            0..=0x1F => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
            _ => out.push(b),
        }
    }
    out.push(b'"');
    out
}

/// A request with the random text in one place, chosen by `shape`.
fn request(shape: u8, a: &[u8], b: &[u8]) -> Request {
    match shape % 6 {
        0 => Request::new("GET", &[&b"/p/"[..], &pct(a), b"?x=", &pct(b)].concat()),
        1 => Request::new("GET", b"/").header("X-A", a).header("X-B", b),
        2 => Request::new("POST", b"/")
            .header("Content-Type", b"text/plain")
            .body(a),
        3 => Request::new("POST", b"/")
            .header("Content-Type", b"application/json")
            .body(
                &[
                    &b"{\"a\": "[..],
                    &json_literal(a),
                    b",\n \"b\":[",
                    &json_literal(b),
                    b", 1]}",
                ]
                .concat(),
            ),
        4 => Request::new("POST", b"/")
            .header("Content-Type", b"application/x-www-form-urlencoded")
            .body(&[&b"a="[..], &pct(a), b"&b=", &pct(b)].concat()),
        _ => Request::new("POST", b"/")
            .header("Content-Type", b"multipart/form-data; boundary=zz")
            .body(
                &[
                    &b"--zz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n"[..],
                    a,
                    b"\r\n--zz\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\n",
                    b,
                    b"\r\n--zz--\r\n",
                ]
                .concat(),
            ),
    }
}

fn is_nfc(bytes: &[u8]) -> bool {
    let s = String::from_utf8_lossy(bytes);
    s.nfc().eq(s.chars())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn sanitizing_is_idempotent_and_leaves_untouched_fields_alone(shape in any::<u8>(), a in text(), b in text()) {
        for profile in [Profile::strict(), Profile::lossy(), Profile::windows_backend()] {
            let original = request(shape, &a, &b);
            let first = evaluate(&profile, &original);
            prop_assert!(first.verdict.findings.len() <= profile.limits.max_findings);
            let listed: u64 = first.verdict.counts.values().sum();
            prop_assert!(listed >= first.verdict.findings.len() as u64);
            prop_assert_eq!(first.sanitized.is_some(), first.verdict.decision == Decision::Sanitize);
            let Some(sanitized) = first.sanitized else { continue };
            let second = evaluate(&profile, &sanitized);
            prop_assert_eq!(second.verdict.decision, Decision::Allow, "{}: {:?}", profile.name, second.verdict.findings);
            prop_assert!(second.sanitized.is_none());
            // Nothing outside the rewritten fields changes: the method, and every header the
            // body shapes never touch.
            prop_assert_eq!(&sanitized.method, &original.method);
            if shape % 6 >= 2 {
                prop_assert_eq!(&sanitized.headers, &original.headers);
                prop_assert_eq!(&sanitized.path, &original.path);
            }
            if shape % 6 == 2 {
                prop_assert!(core::str::from_utf8(&sanitized.body).is_ok());
                if &*profile.name == "strict" {
                    prop_assert!(is_nfc(&sanitized.body));
                }
            }
        }
    }

    #[test]
    fn lossy_text_bodies_equal_std(a in text()) {
        // A UTF-16 or UTF-32 signature makes the body foreign_charset (logged by lossy), unread.
        prop_assume!(utf8gate_codec::detect_signature(&a).is_none_or(|s| s == utf8gate_codec::Signature::Utf8));
        let original = request(2, &a, b"");
        let e = evaluate(&Profile::lossy(), &original);
        let body = e.sanitized.map_or(original.body.clone(), |r| r.body);
        prop_assert_eq!(body, String::from_utf8_lossy(&a).into_owned().into_bytes());
    }

    #[test]
    fn arbitrary_requests_never_panic(target in prop::collection::vec(any::<u8>(), 0..64), ct in "[a-z/+;= -]{0,40}", body in prop::collection::vec(any::<u8>(), 0..256)) {
        let request = Request::new("POST", &target).header("Content-Type", ct.as_bytes()).body(&body);
        let e = evaluate(&Profile::strict(), &request);
        prop_assert!(e.verdict.findings.len() <= 100);
    }
}
