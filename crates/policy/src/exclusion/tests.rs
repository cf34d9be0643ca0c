use proptest::prelude::*;

use super::*;
use crate::{Decision, Profile, Request, evaluate};

fn spec(kinds: &[&str], key: &str, value: &str) -> ExclusionSpec {
    let mut s = ExclusionSpec {
        kinds: kinds.iter().map(|k| k.to_string()).collect(),
        ..ExclusionSpec::default()
    };
    let v = Some(value.to_string());
    match key {
        "query" => s.query = v,
        "form" => s.form = v,
        "header" => s.header = v,
        "cookie" => s.cookie = v,
        "json" => s.json = v,
        "multipart" => s.multipart = v,
        "path" => s.path = v,
        _ => unreachable!(),
    }
    s
}

fn strict_with(specs: Vec<ExclusionSpec>) -> Profile {
    let mut p = Profile::strict();
    for s in specs {
        p.exclusions.push(s.build().expect("valid exclusion"));
    }
    p
}

/// The actions of the findings of `request` under `profile`, as (kind, action) names.
fn actions(profile: &Profile, request: &Request) -> (Decision, Vec<(String, String)>) {
    let v = evaluate(profile, request).verdict;
    let found = v.findings.iter();
    let found = found.map(|f| (f.kind.as_str().to_string(), f.action.as_str().to_string()));
    (v.decision, found.collect())
}

#[test]
fn pointers_match_segment_by_segment() {
    assert!(pointer_matches("/a/*/b", "/a/0/b"));
    assert!(pointer_matches("/a/*/b", "/a/x/b"));
    assert!(!pointer_matches("/a/*/b", "/a/0/b/c"), "no implied subtree");
    assert!(!pointer_matches("/a/*/b", "/a/b"));
    assert!(pointer_matches("/", "/"));
    assert!(!pointer_matches("/a", "/ab"));
}

#[test]
fn specs_name_one_selector_and_exemptable_kinds() {
    let err = |s: ExclusionSpec| s.build().expect_err("invalid");
    assert!(err(ExclusionSpec::default()).contains("kinds"));
    let mut two = spec(&["*"], "query", "q");
    two.header = Some("x".into());
    assert!(err(two).contains("one selector"));
    let none = ExclusionSpec {
        kinds: vec!["*".into()],
        ..ExclusionSpec::default()
    };
    assert!(err(none).contains("needs one selector"));
    assert!(err(spec(&["nope"], "query", "q")).contains("unknown finding kind"));
    for kind in ["repeated_header", "limit_exceeded", "malformed_body"] {
        assert!(err(spec(&[kind], "query", "q")).contains("cannot be excluded"));
    }
    assert!(err(spec(&["*", "nul"], "query", "q")).contains("alone"));
    let all = spec(&["*"], "query", "q").build().expect("valid");
    assert!(all.kinds.is_empty(), "* is every exemptable kind");
}

#[test]
fn lints_find_selectors_that_never_match() {
    let lint =
        |key, value| Target::from_key(key, String::from(value)).and_then(|t| t.never_matches());
    assert!(lint("json", "items/0").is_some());
    assert!(lint("path", "wiki").is_some());
    assert!(lint("header", "X Custom").is_some());
    assert!(lint("query", "").is_some());
    assert!(lint("json", "/items/*").is_none());
    assert!(lint("header", "X-Custom").is_none());
}

/// A bidi override in query parameter `q` is rejected by strict; exempted there, it is
/// reported as excluded and the request is allowed; the same in `r` is still rejected.
#[test]
fn a_query_exclusion_exempts_that_parameter_only() {
    let p = strict_with(vec![spec(&["bidi_control"], "query", "q")]);
    let q = Request::new("GET", "/s?q=a%E2%80%AEb".as_bytes());
    assert_eq!(
        actions(&p, &q),
        (
            Decision::Allow,
            vec![("bidi_control".into(), "excluded".into())]
        )
    );
    let r = Request::new("GET", "/s?r=a%E2%80%AEb".as_bytes());
    assert_eq!(actions(&p, &r).0, Decision::Reject);
    let other_kind = Request::new("GET", "/s?q=a%00b".as_bytes());
    assert_eq!(
        actions(&p, &other_kind).0,
        Decision::Reject,
        "only bidi_control"
    );
}

/// Every selector against a request carrying the same overlong traversal in each place.
#[test]
fn every_selector_exempts_its_place() {
    let evil = "%C0%AE%C0%AE%2F";
    let json = br#"{"items":[{"name":"\u00c0"},{"name":"x"}],"other":"x"}"#;
    let cases: Vec<(&str, &str, Request)> = vec![
        ("query", "q", Request::new("GET", format!("/?q={evil}").as_bytes())),
        (
            "form",
            "f",
            Request::new("POST", b"/")
                .header("content-type", b"application/x-www-form-urlencoded")
                .body(format!("f={evil}").as_bytes()),
        ),
        ("header", "x-note", Request::new("GET", b"/").header("X-Note", b"\xC0\xAE\xC0\xAE/")),
        // (The whole Cookie line's lax reading is a header's: `header = "cookie"` exempts that.)
        ("cookie", "sid", Request::new("GET", b"/").header("cookie", b"sid=a%E2%80%AEb")),
        ("path", "/files/", Request::new("GET", format!("/files/{evil}").as_bytes())),
        (
            "multipart",
            "doc",
            Request::new("POST", b"/")
                .header("content-type", b"multipart/form-data; boundary=XX")
                .body(b"--XX\r\nContent-Disposition: form-data; name=\"doc\"\r\n\r\n\xC0\xAE\xC0\xAE/\r\n--XX--\r\n"),
        ),
    ];
    for (key, value, request) in cases {
        let plain = actions(&Profile::strict(), &request);
        assert_eq!(plain.0, Decision::Reject, "{key}: strict rejects");
        let p = strict_with(vec![spec(&["*"], key, value)]);
        let (decision, found) = actions(&p, &request);
        assert_eq!(decision, Decision::Allow, "{key}: {found:?}");
        assert!(
            found.iter().all(|(_, a)| a == "excluded"),
            "{key}: {found:?}"
        );
        assert_eq!(found.len(), plain.1.len(), "{key}: still reported");
        // A place of the same kind that is not this one (a header name is a token).
        let other = if key == "header" { "x-other" } else { "/other" };
        let elsewhere = strict_with(vec![spec(&["*"], key, other)]);
        assert_eq!(actions(&elsewhere, &request).0, Decision::Reject, "{key}");
    }
    // JSON: a pattern with `*` covers every item's name, not other members.
    let body = |b: &[u8]| {
        Request::new("POST", b"/")
            .header("content-type", b"application/json")
            .body(b)
    };
    let bad = br#"{"items":[{"name":"a\u0000b"},{"name":"c\u0000d"}],"other":"e\u0000f"}"#;
    let p = strict_with(vec![spec(&["nul"], "json", "/items/*/name")]);
    let (decision, found) = actions(&p, &body(bad));
    assert_eq!(
        decision,
        Decision::Reject,
        "/other is not exempted: {found:?}"
    );
    let excluded = found.iter().filter(|(_, a)| a == "excluded").count();
    assert_eq!(excluded, 2, "{found:?}");
    assert_eq!(actions(&p, &body(json)).0, Decision::Allow);
}

/// A request with two readings is refused whatever the exclusions.
#[test]
fn readings_cannot_be_exempted() {
    let p = strict_with(vec![spec(&["*"], "header", "host")]);
    let request = Request::new("GET", b"/")
        .header("host", b"a.example")
        .header("host", b"b.example");
    let (decision, found) = actions(&p, &request);
    assert_eq!(decision, Decision::Reject);
    assert!(
        found
            .iter()
            .any(|(k, a)| k == "repeated_header" && a == "reject")
    );
}

proptest! {
    /// Exclusions change actions only: the same findings (kind, place, bytes) are reported,
    /// an exempted finding is `excluded`, every other keeps the action it had.
    #[test]
    fn exclusions_change_only_actions(
        value in proptest::collection::vec(any::<u8>(), 0..24),
        key in prop::sample::select(vec!["q", "r"]),
    ) {
        let mut target = b"/p?q=".to_vec();
        target.extend(value.iter().flat_map(|b| format!("%{b:02X}").into_bytes()));
        let request = Request::new("GET", &target);
        let plain = evaluate(&Profile::strict(), &request).verdict;
        let p = strict_with(vec![spec(&["*"], "query", key)]);
        let tuned = evaluate(&p, &request).verdict;
        // Findings of a rewritten field's second check exist only where it was rewritten.
        let first = |f: &&crate::Finding| !f.message.starts_with("after rewriting");
        let plain: Vec<_> = plain.findings.iter().filter(first).collect();
        let listed: Vec<_> = tuned.findings.iter().filter(first).collect();
        prop_assert_eq!(plain.len(), listed.len());
        for (a, b) in plain.iter().zip(&listed) {
            prop_assert_eq!((a.kind, &a.location, a.offset), (b.kind, &b.location, b.offset));
            let exempt = Exclusion::is_exemptable(a.kind)
                && matches!(a.location.part, Part::QueryKey | Part::QueryValue)
                && a.location.name.as_deref() == Some(key);
            let want = if exempt { Action::Excluded } else { a.action };
            prop_assert_eq!(b.action, want);
        }
        if tuned.findings.iter().all(|f| f.action != Action::Reject) {
            prop_assert_ne!(tuned.decision, Decision::Reject);
        }
    }
}
