//! Requests and verdict assertions shared by the reading tests.

use utf8gate_policy::{Decision, FindingKind, Profile, Request, evaluate};

/// A POST to `/submit` with a `Content-Type` and, if given, a `Content-Encoding`.
pub(crate) fn post(content_type: &[u8], coding: Option<&str>, body: &[u8]) -> Request {
    let mut r = Request::new("POST", b"/submit").header("Content-Type", content_type);
    if let Some(c) = coding {
        r = r.header("Content-Encoding", c.as_bytes());
    }
    r.body(body)
}

/// The kinds of the findings, in order.
pub(crate) fn kinds_of(profile: &Profile, request: &Request) -> Vec<FindingKind> {
    evaluate(profile, request)
        .verdict
        .findings
        .iter()
        .map(|f| f.kind)
        .collect()
}

/// Asserts a rejection with a finding of `kind`.
pub(crate) fn rejects_with(profile: &Profile, request: &Request, kind: FindingKind) {
    let e = evaluate(profile, request);
    assert_eq!(
        e.verdict.decision,
        Decision::Reject,
        "{request:?}: {:?}",
        e.verdict.findings
    );
    assert!(
        e.verdict.findings.iter().any(|f| f.kind == kind),
        "{request:?}: expected {kind}, got {:?}",
        kinds_of(profile, request)
    );
}
