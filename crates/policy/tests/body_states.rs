//! A check that came without the request's body, or with its first bytes only: reported as
//! `body_not_inspected` whenever the head describes a body, never silently allowed as read.

use utf8gate_policy::{BodyState, Decision, FindingKind, Profile, Request, evaluate};

fn kinds(request: &Request) -> Vec<FindingKind> {
    let e = evaluate(&Profile::strict(), request);
    e.verdict.findings.iter().map(|f| f.kind).collect()
}

fn withheld(headers: &[(&str, &[u8])]) -> Request {
    let mut r = Request::new("POST", b"/submit");
    for (name, value) in headers {
        r = r.header(name, value);
    }
    r.body_state = BodyState::Withheld;
    r
}

#[test]
fn a_withheld_body_is_reported_when_the_head_describes_one() {
    let json: &[u8] = b"application/json";
    for (headers, reported) in [
        // nginx `auth_request` with the shipped `X-Original-Content-Length`.
        (&[("Content-Length", &b"14"[..])][..], true),
        (&[("Transfer-Encoding", &b"chunked"[..])][..], true),
        // Traefik ForwardAuth without `forwardBody`: no length, the type passed on.
        (&[("Content-Type", json)][..], true),
        // A length of zero says there is no body, whatever the type.
        (
            &[("Content-Type", json), ("Content-Length", &b"0"[..])][..],
            false,
        ),
        (&[][..], false),
        (&[("Content-Type", &b" "[..])][..], false),
    ] {
        let request = withheld(headers);
        let found = kinds(&request).contains(&FindingKind::BodyNotInspected);
        assert_eq!(found, reported, "{headers:?}");
        // Reported, not refused: `strict` logs it (a route's `require_body` rejects).
        let e = evaluate(&Profile::strict(), &request);
        assert_eq!(e.verdict.decision, Decision::Allow, "{headers:?}");
    }
}

#[test]
fn a_cut_body_is_checked_as_far_as_it_goes_or_refused_when_read_as_fields() {
    let cut = |content_type: &[u8], body: &[u8]| {
        let mut r = Request::new("POST", b"/submit")
            .header("Content-Type", content_type)
            .body(body);
        r.body_state = BodyState::Cut;
        r
    };
    // Plain text: checked up to the cut (its last, incomplete character left out).
    let text = cut(b"text/plain", "caf\u{e9} \u{0}".as_bytes());
    assert!(kinds(&text).contains(&FindingKind::Nul));
    let torn = cut(b"text/plain", &"caf\u{e9}".as_bytes()[..4]);
    assert_eq!(kinds(&torn), [FindingKind::BodyNotInspected]);
    // A JSON document whose strings may go on past the cut: refused.
    let json = cut(b"application/json", b"{\"a\":\"fine\",\"b\":\"");
    let e = evaluate(&Profile::strict(), &json);
    assert_eq!(e.verdict.decision, Decision::Reject);
    assert!(kinds(&json).contains(&FindingKind::LimitExceeded));
}
