//! `evaluate` on arbitrary requests: never panics, stays within its limits, and sanitizing
//! twice changes nothing more.
//!
//! `cargo fuzz run policy_evaluate -s none` (stable toolchain).
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8gate_policy::{Decision, Profile, Request, evaluate};

const CONTENT_TYPES: [&[u8]; 6] = [
    b"text/plain",
    b"application/json",
    b"application/x-www-form-urlencoded",
    b"multipart/form-data; boundary=b",
    b"application/octet-stream",
    b"text/plain; charset=latin1",
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let split = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    let (target, body) = rest.split_at(split);
    let request = Request::new("POST", target)
        .header("Content-Type", CONTENT_TYPES[usize::from(selector) % CONTENT_TYPES.len()])
        .header("X-Raw", &body[..body.len().min(64)])
        .body(body);
    let profile = [Profile::strict(), Profile::lossy()][usize::from(selector >> 7)].clone();
    let first = evaluate(&profile, &request);
    assert!(first.verdict.findings.len() <= profile.limits.max_findings);
    if let Some(sanitized) = first.sanitized {
        let second = evaluate(&profile, &sanitized);
        assert_eq!(second.verdict.decision, Decision::Allow, "{:?}", second.verdict.findings);
    }
});
