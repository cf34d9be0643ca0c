//! A head refused on its own (`head_refused`: two readings of its framing, host, media type or
//! coding) is refused by the whole evaluation too, whatever its body: the proxy answers such a
//! head before reading its body, unless the body has all arrived with it, and then evaluates
//! the two together instead of checking the head twice. Both paths must refuse alike.

use proptest::prelude::*;
use utf8gate_policy::{Decision, Profile, Request, evaluate, head_refused};

/// Header lines a head is drawn from: benign ones and every reading `head_refused` knows.
const LINES: &[(&str, &[u8])] = &[
    ("Host", b"a.example"),
    ("Host", b"b.example"),
    ("Host", b"a.example:80"),
    ("Host", b"a example"),
    ("Host", b""),
    ("Content-Length", b"5"),
    ("Content-Length", b"010"),
    ("Content-Length", b"5, 5"),
    ("Content-Length", b"+5"),
    ("Transfer-Encoding", b"chunked"),
    ("Transfer-Encoding", b"chunked, chunked"),
    ("Transfer-Encoding", b"gzip"),
    ("Transfer-Encoding", b"xchunked"),
    ("Content-Type", b"application/json"),
    ("Content-Type", b"text/plain; charset=utf-8"),
    (
        "Content-Type",
        b"application/x-www-form-urlencoded, text/plain",
    ),
    ("Content-Type", b"text/plain; charset=utf-8, charset=ibm037"),
    ("Content-Type", b"multipart/form-data-x; boundary=a"),
    ("Content-Encoding", b"gzip"),
    ("Content-Encoding", b"compress"),
    (
        "Content-Encoding",
        b"gzip, gzip, gzip, gzip, gzip, gzip, gzip, gzip, gzip",
    ),
    ("X_Forwarded_For", b"1.2.3.4"),
    ("X-Forwarded-For", b"5.6.7.8"),
    ("Bad Name", b"x"),
    ("Accept", b"*/*"),
];

/// Bodies: empty, text, JSON, a form, bytes that are not UTF-8.
const BODIES: &[&[u8]] = &[
    b"",
    b"hello",
    b"{\"a\":\"caf\xc3\xa9\"}",
    b"a=1&b=%C0%AE",
    b"\xC0\xAE\xff\xfe",
];

fn profiles() -> Vec<Profile> {
    Profile::BUILT_IN
        .iter()
        .map(|n| Profile::built_in(n).expect("a built-in profile"))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn a_refused_head_is_refused_with_any_body(
        lines in proptest::collection::vec(0..LINES.len(), 0..6),
        body in 0..BODIES.len(),
        host_required in any::<bool>(),
    ) {
        let mut request = Request::new("POST", b"/a");
        for &k in &lines {
            let (name, value) = LINES[k];
            request = request.header(name, value);
        }
        request.host_required = host_required;
        for profile in profiles() {
            if !head_refused(&profile, &request) {
                continue;
            }
            let mut whole = request.clone();
            whole.body = BODIES[body].to_vec().into();
            let verdict = evaluate(&profile, &whole).verdict;
            prop_assert!(
                verdict.decision == Decision::Reject && verdict.enforced,
                "{}: head refused alone, but with its body: {verdict:?}",
                profile.name
            );
        }
    }
}

/// The pool holds heads `head_refused` refuses and heads it lets through, so the property is
/// not vacuous.
#[test]
fn the_pool_has_refused_and_passing_heads() {
    let strict = Profile::strict();
    let refused = Request::new("POST", b"/")
        .header("Host", b"a.example")
        .header("Content-Length", b"5")
        .header("Transfer-Encoding", b"chunked");
    assert!(head_refused(&strict, &refused));
    let passing = Request::new("POST", b"/")
        .header("Host", b"a.example")
        .header("Content-Type", b"application/json");
    assert!(!head_refused(&strict, &passing));
}
