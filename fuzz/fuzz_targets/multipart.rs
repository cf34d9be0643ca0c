//! `multipart/form-data` bodies: the boundary is the input up to its first `\n`, the body the
//! rest. `read_multipart` and `evaluate` never panic; a non-empty body `evaluate` lets through
//! (allowed or sanitized) is one `read_multipart` reads; and every part `read_multipart`
//! returns is a span of the body where a part's content is: after CRLF, before CRLF and the
//! delimiter, in order and without overlap.
//!
//! `fuzz/regressions/multipart/`: a `name` value that starts with a quote and goes on after it
//! (`name="a"e\u{301}`) was read unquoted and not flagged, and its NFC rewrite was refused on
//! the second evaluation (found by this target; fixed in 57ca9f7, such a value is ambiguous).
//!
//! `cargo fuzz run multipart -s none` (stable toolchain).
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8gate_policy::{ContentType, Decision, Mode, Profile, Request, evaluate, read_multipart};

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let (boundary, body) = (&data[..split], data.get(split + 1..).unwrap_or_default());
    let mut content_type = b"multipart/form-data; boundary=".to_vec();
    content_type.extend_from_slice(boundary);

    let profile = Profile::strict();
    let max_parts = profile.limits.max_multipart_parts;
    let read = read_multipart(&content_type, body, max_parts);
    let request = Request::new("POST", b"/upload")
        .mode(Mode::Proxy)
        .header("content-type", &content_type)
        .body(body);
    let evaluation = evaluate(&profile, &request);
    assert!(evaluation.verdict.findings.len() <= profile.limits.max_findings);
    // An empty body is not read at all (nothing reaches the application), so it is allowed
    // whatever its Content-Type says; `read_multipart` calls it malformed.
    if evaluation.verdict.decision != Decision::Reject && !body.is_empty() {
        assert!(
            read.is_ok(),
            "{:?} but read_multipart: {read:?}",
            evaluation.verdict.decision
        );
    }
    if let Some(sanitized) = &evaluation.sanitized {
        let again = evaluate(&profile, sanitized);
        assert_eq!(
            again.verdict.decision,
            Decision::Allow,
            "{:?}",
            again.verdict.findings
        );
        assert!(read_multipart(&content_type, &sanitized.body, max_parts).is_ok());
    }

    let Ok(parts) = read else { return };
    assert!(parts.len() <= max_parts);
    let total: usize = parts.iter().map(|p| p.content.len()).sum();
    assert!(total <= body.len());
    // The boundary as utf8gate reads it from the header (quotes removed, cut at `;`).
    let boundary = ContentType::parse(&content_type)
        .param("boundary")
        .unwrap_or_default()
        .to_vec();
    // Each content, found in order: CRLF, the content, CRLF and the delimiter. Searching from
    // the end of the previous content never skips a part's true place (parts do not overlap).
    let mut from = 0;
    for (i, part) in parts.iter().enumerate() {
        let mut framed = b"\r\n".to_vec();
        framed.extend_from_slice(&part.content);
        framed.extend_from_slice(b"\r\n--");
        framed.extend_from_slice(&boundary);
        let at = find(&body[from..], &framed)
            .unwrap_or_else(|| panic!("part {i}'s content is not framed in the body"));
        from += at + 2 + part.content.len();
    }
});

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
