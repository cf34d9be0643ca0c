//! The exchange against the policy itself: every request's outcome is what `evaluate` decides,
//! and the edits, applied to the host's header list as a host applies them, give the request
//! the sanitizer wrote.

use utf8gate_policy::{Profile, evaluate};

use super::*;
use crate::settings::{BodyRewrite, Settings};
use std::collections::BTreeMap;

type List = Vec<(String, Vec<u8>)>;

fn list(target: &[u8], headers: &[(&str, &[u8])]) -> List {
    let mut list = vec![
        (":method".to_string(), b"POST".to_vec()),
        (":scheme".to_string(), b"http".to_vec()),
        (":path".to_string(), target.to_vec()),
        (":authority".to_string(), b"app.example".to_vec()),
    ];
    list.extend(headers.iter().map(|(k, v)| (k.to_string(), v.to_vec())));
    list
}

/// The host's `set`: every value of the name replaced, in place of the first.
fn apply(mut list: List, edits: &Edits) -> List {
    for (name, values) in &edits.headers {
        let at = list
            .iter()
            .position(|(k, _)| k == name)
            .unwrap_or(list.len());
        list.retain(|(k, _)| k != name);
        let new = values.iter().map(|v| (name.clone(), v.clone()));
        let at = at.min(list.len());
        list.splice(at..at, new);
    }
    list
}

/// The request through the exchange as a host runs it: the head's edits made to the list, then
/// the body's; the outcome, and the list and body that went on.
fn run(settings: &Settings, list: List, body: &[u8]) -> (Decided, List, Vec<u8>) {
    let (exchange, head_edits) = match Exchange::head(settings, list.clone(), body.is_empty()) {
        HeadStep::Decided(decided) => {
            let (list, body) = match &decided.outcome {
                Outcome::Rewrite(edits) => (apply(list, edits), body.to_vec()),
                _ => (list, body.to_vec()),
            };
            return (*decided, list, body);
        }
        HeadStep::Body(exchange, edits) => (exchange, edits),
    };
    assert!(head_edits.body.is_none());
    let list = apply(list, &head_edits);
    let decided = match exchange.body(settings, body.len(), true) {
        BodyStep::Read { len, cut } => exchange.finish(settings, body[..len].to_vec(), cut),
        BodyStep::Decided(decided) => *decided,
        BodyStep::Wait => panic!("a whole body waits"),
    };
    let mut sent = body.to_vec();
    if let Outcome::Rewrite(edits) = &decided.outcome {
        assert!(
            edits.headers.is_empty(),
            "head edits after the head went on: {edits:?}"
        );
        sent = edits.body.clone().unwrap_or(sent);
    }
    (decided, list, sent)
}

const NFD: &str = "cafe\u{301}";

fn cases() -> Vec<(List, Vec<u8>)> {
    let json = format!("{{\"name\":\"{NFD}\",\"n\":[1,2]}}");
    let json_type: (&str, &[u8]) = ("content-type", b"application/json");
    vec![
        (list(b"/ok?q=1", &[]), vec![]),
        (list(format!("/s?q={NFD}").as_bytes(), &[]), vec![]),
        (list(b"/a/%c0%ae%c0%ae/etc/passwd", &[]), vec![]),
        (
            list(
                b"/j",
                &[
                    json_type,
                    ("content-length", json.len().to_string().as_bytes()),
                ],
            ),
            json.clone().into_bytes(),
        ),
        (
            list(format!("/j?q={NFD}").as_bytes(), &[json_type]),
            b"{\"a\":1}".to_vec(),
        ),
        (
            list(b"/t", &[("content-type", b"text/plain; charset=utf-8")]),
            format!("a {NFD} b").into_bytes(),
        ),
        (
            list(b"/t", &[("content-type", b"text/plain")]),
            b"bad \xC0\xAE".to_vec(),
        ),
        (
            list(b"/h", &[("x-note", NFD.as_bytes()), ("x-note", b"plain")]),
            vec![],
        ),
        (list(b"/h", &[("x-bad", b"\xED\xA0\x80")]), vec![]),
        (list(b"/h", &[("x-bad", b"\xED\xA0\x80")]), b"body".to_vec()),
    ]
}

/// With `body_rewrite = "reframe"` every outcome is the policy's, and what went on is the
/// request the sanitizer wrote (without its Content-Length); with `"refuse"` the same, but a
/// body rewritten to another length is refused.
#[test]
fn every_outcome_is_the_policys_and_what_goes_on_is_the_sanitized_request() {
    for rewrite in [BodyRewrite::Reframe, BodyRewrite::Refuse] {
        let settings = Settings {
            body_rewrite: rewrite,
            ..Settings::default()
        };
        let mut seen = BTreeMap::new();
        for (list, body) in cases() {
            let mut request = ListedHead::read(list.clone()).into_request();
            request.body = body.clone().into();
            let evaluation = evaluate(&Profile::strict(), &request);
            let verdict = evaluation.verdict;
            let (decided, sent_list, sent_body) = run(&settings, list.clone(), &body);
            let length_changed = evaluation
                .sanitized
                .as_ref()
                .is_some_and(|s| s.body.len() != request.body.len());
            let framed = request.header_value("content-length").is_some();
            let refused_rewrite = rewrite == BodyRewrite::Refuse && length_changed && framed;
            let expected = match refused_rewrite {
                true => "reject",
                false => verdict.decision.as_str(),
            };
            assert_eq!(decided.decision, expected, "{request:?}");
            assert_eq!(
                decided.verdict.as_ref().map(|v| &v.counts),
                Some(&verdict.counts)
            );
            *seen.entry(expected).or_insert(0) += 1;
            match decided.outcome {
                Outcome::Continue => assert!(evaluation.sanitized.is_none()),
                Outcome::Reply { status, body, .. } => {
                    assert_eq!(status, 400);
                    let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
                    assert_eq!(json["type"], "urn:utf8gate:problem:rejected");
                    let said = json["detail"].as_str().unwrap_or_default();
                    assert_eq!(refused_rewrite, said.contains("another length"), "{said}");
                }
                Outcome::Rewrite(_) => {
                    let mut expected = evaluation.sanitized.expect("a rewrite of nothing");
                    let mut read = ListedHead::read(sent_list).into_request();
                    read.headers.retain(|(k, _)| k != DECISION_HEADER);
                    let framing =
                        |r: &mut Request| r.headers.retain(|(k, _)| k != "content-length");
                    if rewrite == BodyRewrite::Reframe {
                        assert!(read.header_value("content-length").is_none() || body.is_empty());
                        framing(&mut expected);
                    }
                    assert_eq!(read.target(), expected.target());
                    assert_eq!(read.headers, expected.headers);
                    assert_eq!(sent_body, expected.body);
                }
            }
        }
        // The table reaches every decision.
        assert_eq!(seen.len(), 3, "{seen:?}");
    }
}

#[test]
fn a_body_over_the_limit_is_refused_or_checked_by_its_first_bytes() {
    let mut settings = Settings {
        max_body_bytes: 8,
        ..Settings::default()
    };
    let head = || list(b"/t", &[("content-type", b"text/plain")]);
    let HeadStep::Body(exchange, _) = Exchange::head(&settings, head(), false) else {
        panic!("a request with a body decided at its head");
    };
    assert!(matches!(exchange.body(&settings, 8, false), BodyStep::Wait));
    let BodyStep::Decided(decided) = exchange.body(&settings, 9, false) else {
        panic!("a body over the limit read");
    };
    let Outcome::Reply { status, body, .. } = decided.outcome else {
        panic!("a body over the limit goes on");
    };
    assert_eq!(status, 413);
    assert!(String::from_utf8_lossy(&body).contains("body-too-large"));
    settings.over_limit = OverLimit::Pass;
    assert!(matches!(
        exchange.body(&settings, 100, false),
        BodyStep::Read { len: 8, cut: true }
    ));
    // The first bytes are checked: a bad one among them still rejects.
    let decided = exchange.finish(&settings, b"ok \xC0\xAE ok".to_vec(), true);
    assert!(matches!(
        decided.outcome,
        Outcome::Reply { status: 400, .. }
    ));
}
