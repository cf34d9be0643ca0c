//! Issue 25's XML reading: a fuzzed `application/xml` body evaluated under `strict`. Never a
//! panic; and what utf8gate lets through holds to invariants written here independently of the
//! reading:
//!
//! * an allowed document is UTF-8 and declares no entity (no `<!ENTITY` before its root
//!   element, comments and processing instructions aside: after it, `<!ENTITY` is text);
//! * an allowed document without CDATA, comments or processing instructions has no reference
//!   to U+0000 (`&#0;`, `&#x00;`) and no `<!ENTITY`;
//! * a sanitized document, evaluated again, is allowed as it is (the rewrite made well-formed
//!   XML with nothing left to rewrite).
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8gate_policy::{Decision, Profile, Request, evaluate};

fuzz_target!(|body: &[u8]| {
    let request = |body: &[u8]| {
        Request::new("POST", b"/")
            .header("Host", b"a.example")
            .header("Content-Type", b"application/xml")
            .body(body)
    };
    let strict = Profile::strict();
    let evaluation = evaluate(&strict, &request(body));
    if evaluation.verdict.decision == Decision::Reject {
        return;
    }
    assert!(core::str::from_utf8(body).is_ok(), "allowed bytes that are not UTF-8");
    let text = String::from_utf8_lossy(body);
    assert!(!prolog(&text).contains("<!ENTITY"), "allowed an entity declaration");
    if !text.contains("<!") && !text.contains("<?") {
        assert!(!nul_reference(&text), "allowed a reference to U+0000: {text:?}");
    }
    if let Some(sanitized) = evaluation.sanitized {
        let again = evaluate(&strict, &request(&sanitized.body)).verdict;
        assert_eq!(
            again.decision,
            Decision::Allow,
            "the sanitized {:?} is {:?}",
            String::from_utf8_lossy(&sanitized.body),
            again.findings
        );
    }
});

/// `true` if `text` has `&#` + zeros + `;` or `&#x` + zeros + `;`.
fn nul_reference(text: &str) -> bool {
    text.match_indices("&#").any(|(i, _)| {
        let rest = &text[i + 2..];
        let rest = rest.strip_prefix('x').unwrap_or(rest);
        let zeros = rest.bytes().take_while(|&b| b == b'0').count();
        zeros > 0 && rest[zeros..].starts_with(';')
    })
}

/// What comes before the first start tag (`<` and a name character), comments and processing
/// instructions removed: where
/// a DOCTYPE, and so an entity declaration, can be.
fn prolog(text: &str) -> String {
    let bytes = text.as_bytes();
    let root = (0..bytes.len())
        .find(|&i| {
            bytes[i] == b'<'
                && bytes
                    .get(i + 1)
                    .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_' || b == b':' || b >= 0x80)
        })
        .unwrap_or(bytes.len());
    let mut prolog = text[..root].to_string();
    for (open, close) in [("<!--", "-->"), ("<?", "?>")] {
        while let Some(start) = prolog.find(open) {
            let end = prolog[start..]
                .find(close)
                .map_or(prolog.len(), |e| start + e + close.len());
            prolog.replace_range(start..end, "");
        }
    }
    prolog
}
