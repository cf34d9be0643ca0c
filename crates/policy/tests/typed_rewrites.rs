//! A sanitized document is still the document: where a rewrite normalizes text in a JSON, XML
//! or YAML body or multipart part, it rewrites the reading's text (a JSON string, an XML text
//! node) and never the document as raw text, where NFC can write syntax (`>` U+0338 composes
//! into U+226F, U+1FEF becomes a backtick, U+037E a semicolon). Generated documents from
//! syntax and characters that normalization changes: whatever the gate forwards rewritten,
//! read again, is no less well-formed than what it was given.

use proptest::prelude::*;
use utf8gate_policy::{Decision, FindingKind, Profile, Request, evaluate};

/// Text pieces: syntax, characters NFC composes with syntax or maps to it, decomposed text.
const PIECES: &[&str] = &[
    "a",
    " ",
    ">",
    "<",
    "=",
    "`",
    ";",
    "&amp;",
    "\u{338}",
    "\u{1FEF}",
    "\u{37E}",
    "e\u{301}",
    "\u{212B}",
    "\u{1100}\u{1161}",
    "가",
    "日本",
    "ع",
    "\u{FEFF}",
    "\\n",
    "'",
    "\"",
    ":",
    "#",
];

fn text(picks: &[usize]) -> String {
    picks.iter().map(|&i| PIECES[i % PIECES.len()]).collect()
}

/// A document of `kind` with the three texts in its text places.
fn document(kind: usize, [a, b, c]: [&str; 3]) -> (&'static [u8], String) {
    let json_escaped = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    match kind {
        0 => (
            b"application/json",
            format!(
                "{{\"{}\": \"{}\", \"n\": [\"{}\"]}}",
                json_escaped(a),
                json_escaped(b),
                json_escaped(c)
            ),
        ),
        1 => (
            b"application/xml",
            format!("<r t=\"{a}\">{b}<e>{c}</e>{a}</r>"),
        ),
        _ => (
            b"application/yaml",
            format!("k: {a}\nq: \"{b}\"\nl:\n  - {c}\n"),
        ),
    }
}

fn multipart(content_type: &[u8], content: &str) -> Vec<u8> {
    let mut body =
        b"--b\r\nContent-Disposition: form-data; name=\"doc\"\r\nContent-Type: ".to_vec();
    body.extend_from_slice(content_type);
    body.extend_from_slice(b"\r\n\r\n");
    body.extend_from_slice(content.as_bytes());
    body.extend_from_slice(b"\r\n--b--\r\n");
    body
}

/// The kinds that say a document was not read as one.
fn unreadable(profile: &Profile, request: &Request) -> Vec<FindingKind> {
    let e = evaluate(profile, request);
    (e.verdict.findings.iter())
        .map(|f| f.kind)
        .filter(|k| matches!(k, FindingKind::MalformedBody | FindingKind::AmbiguousYaml))
        .collect()
}

fn check(profile: &Profile, request: &Request) -> Result<(), TestCaseError> {
    let e = evaluate(profile, request);
    let Some(sanitized) = e.sanitized else {
        return Ok(());
    };
    prop_assert_eq!(e.verdict.decision, Decision::Sanitize);
    let before = unreadable(profile, request);
    let after = unreadable(profile, &sanitized);
    prop_assert!(
        after.iter().all(|k| before.contains(k)),
        "rewriting made {:?} of {:?}: {:?}",
        after,
        String::from_utf8_lossy(&request.body),
        String::from_utf8_lossy(&sanitized.body)
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn a_rewritten_document_stays_the_document(
        kind in 0usize..3,
        texts in proptest::array::uniform3(proptest::collection::vec(0usize..64, 0..6)),
    ) {
        let profile = Profile::strict();
        let [a, b, c] = texts.map(|t| text(&t));
        let (content_type, doc) = document(kind, [&a, &b, &c]);
        let whole = Request::new("POST", b"/submit")
            .header("Content-Type", content_type)
            .body(doc.as_bytes());
        check(&profile, &whole)?;
        let part = Request::new("POST", b"/submit")
            .header("Content-Type", b"multipart/form-data; boundary=b")
            .body(&multipart(content_type, &doc));
        check(&profile, &part)?;
    }
}

#[test]
fn a_typed_part_is_rewritten_by_its_reading() {
    let profile = Profile::strict();
    let cases: [(&[u8], &str, Option<&str>); 4] = [
        // The JSON string is normalized where it is.
        (
            b"application/json",
            "{\"k\": \"e\u{301}\"}",
            Some("{\"k\": \"\u{e9}\"}"),
        ),
        // An XML text node that starts with U+0338 after a tag stays itself: NFC of the node
        // alone, not of `>` U+0338.
        (
            b"application/xml",
            "<a>\u{338}e\u{301}</a>",
            Some("<a>\u{338}\u{e9}</a>"),
        ),
        // A YAML scalar cannot be rewritten alone: refused (raw NFC would write a backtick).
        (b"application/yaml", "k: 2\u{1FEF}\n", None),
        (b"application/yaml", "k: e\u{301}\n", None),
    ];
    for (content_type, content, rewritten) in cases {
        let request = Request::new("POST", b"/submit")
            .header("Content-Type", b"multipart/form-data; boundary=b")
            .body(&multipart(content_type, content));
        let e = evaluate(&profile, &request);
        match rewritten {
            Some(expected) => {
                let body = e.sanitized.expect("sanitized").body;
                assert_eq!(body, multipart(content_type, expected), "{content}");
            }
            None => assert_eq!(e.verdict.decision, Decision::Reject, "{content}"),
        }
    }
}

/// A form value rewritten to NFC is written back as its client wrote it: raw UTF-8 stays raw
/// (percent-encoding would triple it), an escaped value stays escaped; its ASCII is escaped as
/// before either way.
#[test]
fn a_form_value_is_written_back_as_its_client_wrote_it() {
    for (body, expected) in [
        ("a=Jose\u{301}+L&b=x", "a=Jos\u{e9}%20L&b=x"),
        ("a=Jose%CC%81+L&b=x", "a=Jos%C3%A9%20L&b=x"),
        ("a=e\u{301}%CC%81", "a=%C3%A9%CC%81"),
    ] {
        let request = Request::new("POST", b"/form")
            .header("Content-Type", b"application/x-www-form-urlencoded")
            .body(body.as_bytes());
        let e = evaluate(&Profile::strict(), &request);
        assert_eq!(e.verdict.decision, Decision::Sanitize, "{body}");
        let sanitized = e.sanitized.expect("sanitized");
        assert_eq!(String::from_utf8_lossy(&sanitized.body), expected, "{body}");
    }
}
