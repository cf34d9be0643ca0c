//! Parser differential: generated `Cookie` headers read by utf8gate and by the cookie parsers
//! of Python's `http.cookies`, Django, Werkzeug (Flask) and Node's `cookie` package
//! (`tests/python/cookie_readers.py`, pinned in the test virtualenv). For every header the
//! default profile does not refuse, every name and value a parser hands the application must
//! be text utf8gate checked: one of its cookie fields, or bytes of the raw header (checked
//! whole). A parser that drops a pair or the header is no bypass.
//!
//! Python and Node hand the application strings, not bytes: a string is compared in each
//! form its bytes may have had (as UTF-8; as Latin-1, which is how WSGI and Node's `http`
//! decode header bytes), and inside the DQUOTEs Node's `cookie` keeps.
//!
//! Without Python and PyPI the test says so and passes, unless `REQUIRE_PYTHON_PARSERS=1`
//! (CI) makes that a failure.

mod support;

use std::collections::HashSet;

use serde_json::json;
use support::differential::{Rng, b64, python_or_skip, run_readers, unb64};
use utf8gate_policy::{Decision, Part, Profile, Request, evaluate, read_fields};

#[rustfmt::skip]
const NAMES: &[&str] = &[
    "a", "b", "sid", "__Host-x", "_ga", "_ga_ABC123", "csrftoken", "messages", "é", "%41", "k.k",
    "%E2%80%80a", "a b",
];
/// Names some framework reads otherwise.
#[rustfmt::skip]
const TRICKY_NAMES: &[&str] = &[
    "$Version", "$Path", "\u{2000}__Host-x", "x\u{a0}", "c\"d", "e\\f", "\u{3000}a", "name\u{85}",
];
#[rustfmt::skip]
const VALUES: &[&str] = &[
    "1", "GA1.2.1234.5678", "\"x\"", "\"x\\054y\"", "\"\\056\\056\\057\"", "\"\\303\\251\"",
    "\"\\015\\012\"", "\"q\\\"r\"", "%2e%2e%2f", "x y", "é", "\"é\"", "", "\"\"", "\"\\\\\"",
    "\"a\\b\"", "\"\\1\"", "{\"k\":1}", "%22x%22", "\"%41\"", "\"\\342\\200\\246\"",
    "\"[[\\\"__json_message\\\"\\0540\\05420\\054\\\"Hi\\\"]]:1s2:abc\"", "\"Jos\\303\\251\"",
];
/// Values some framework reads otherwise, or that hold what a check refuses.
#[rustfmt::skip]
const TRICKY_VALUES: &[&str] = &[
    "\"\\300\\256\"", "\"\\351\"", "\"\\000\"", "\"a", "b\"", "%C0%AE", "\u{2000}v", "v\u{3000}",
    "x\"y", "\"\\342\\200\\256\"",
];

fn header(rng: &mut Rng) -> Vec<u8> {
    let mut out = String::new();
    for i in 0..1 + rng.below(4) {
        if i > 0 {
            out.push_str(if rng.chance(80) { "; " } else { ";" });
        }
        let names = if rng.chance(8) { TRICKY_NAMES } else { NAMES };
        let name = *rng.pick::<&str>(names);
        out.push_str(name);
        if rng.chance(92) {
            out.push_str(if rng.chance(90) { "=" } else { " = " });
            let values = if rng.chance(10) {
                TRICKY_VALUES
            } else {
                VALUES
            };
            let value = *rng.pick::<&str>(values);
            out.push_str(value);
        }
    }
    out.into_bytes()
}

/// Published tricks: each refused.
const REFUSED: &[&str] = &[
    "a=\"x; b=y\"",
    "\u{2000}__Host-x=1; __Host-x=2",
    "\u{2000}__Host-x=evil",
    "__Host-x\u{3000}=evil",
    "$Version=1; a=\"b\\\\c\"",
    "a=1; $Path=\"/\"",
    "sid=\"\\300\\256\\300\\256\"",
    "a=\"\\000\"",
    "a=\"\\342\\200\\256txt.exe\"",
];

/// Their benign twins, passed byte for byte (allowed, nothing rewritten): quoted RFC 6265
/// values, a Django messages cookie, analytics and consent cookies, cookies set by Flask
/// with a UTF-8 value (Werkzeug writes it as octal escapes) and raw UTF-8.
const BENIGN: &[&str] = &[
    "a=\"x\\054y\"; b=1",
    "session=\"abc def\"; theme=dark; prefs={\"theme\":\"dark\"}; q=\"x\"y\"",
    "_ga=GA1.2.1111111111.1700000000; _gid=GA1.2.22.33; OptanonConsent=isGpcEnabled=0&datestamp=Mon+Dec+07+2026&version=202409.1.0&groups=C0001%3A1%2CC0002%3A0",
    "euconsent-v2=CQKzKAAQKzKAAAHABBENBRFgAP_AAH_AAAqIJNNf_X__b3_j; __Host-session=abc123; __Secure-id=1",
    "messages=\"[[\\\"__json_message\\\"\\0540\\05425\\054\\\"Welcome back\\\"]]:1tJ:abc\"",
    "name=\"Jos\\303\\251\"; city=Z\u{fc}rich",
    "lang=\u{65e5}\u{672c}\u{8a9e}; q=%E2%9C%93",
];

#[test]
fn published_tricks_are_refused_and_their_benign_twins_pass_unchanged() {
    for header in REFUSED {
        let request = Request::new("GET", b"/").header("Cookie", header.as_bytes());
        let verdict = evaluate(&Profile::strict(), &request).verdict;
        assert_eq!(
            verdict.decision,
            Decision::Reject,
            "{header:?}: {:?}",
            verdict.counts
        );
    }
    for header in BENIGN {
        let request = Request::new("GET", b"/").header("Cookie", header.as_bytes());
        let verdict = evaluate(&Profile::strict(), &request).verdict;
        assert_eq!(
            verdict.decision,
            Decision::Allow,
            "{header:?}: {:?}",
            verdict.counts
        );
    }
}

/// The texts of utf8gate's cookie fields of `value`.
fn our_texts(value: &[u8]) -> HashSet<Vec<u8>> {
    let request = Request::new("GET", b"/").header("Cookie", value);
    read_fields(&Profile::strict(), &request)
        .into_iter()
        .filter(|(l, _)| matches!(l.part, Part::CookieName | Part::CookieValue))
        .map(|(_, bytes)| bytes)
        .collect()
}

/// The forms a string a parser handed over (as `theirs`) may have had as bytes.
fn forms(theirs: &[u8]) -> Vec<Vec<u8>> {
    let mut forms = vec![theirs.to_vec()];
    if let Ok(text) = std::str::from_utf8(theirs)
        && text.chars().all(|c| u32::from(c) <= 0xFF)
    {
        forms.push(text.chars().map(|c| c as u8).collect());
    }
    forms.push(
        theirs
            .iter()
            .map(|&b| char::from(b))
            .collect::<String>()
            .into_bytes(),
    );
    for i in 0..forms.len() {
        if let [b'"', inner @ .., b'"'] = &forms[i][..] {
            forms.push(inner.to_vec());
        }
    }
    forms
}

fn checked(theirs: &[u8], ours: &HashSet<Vec<u8>>, raw: &[u8]) -> bool {
    forms(theirs).iter().any(|form| {
        form.is_empty() || ours.contains(form) || raw.windows(form.len()).any(|w| w == &form[..])
    })
}

#[test]
fn what_the_default_profile_allows_every_cookie_parser_reads_as_utf8gate_checked_it() {
    let Some(py) = python_or_skip() else {
        return;
    };
    let mut rng = Rng(0x00C0_0C1E_5EED_2026);
    let hand = REFUSED.iter().chain(BENIGN);
    let mut cases: Vec<Vec<u8>> = hand.map(|s| s.as_bytes().to_vec()).collect();
    cases.extend((0..4000).map(|_| header(&mut rng)));
    let input =
        json!({"cases": cases.iter().map(|h| json!({"header": b64(h)})).collect::<Vec<_>>()});
    let readings = run_readers(&py, "cookie_readers.py", &input);
    let parsers: Vec<String> = serde_json::from_value(readings["parsers"].clone()).unwrap();
    assert!(parsers.len() >= 3, "{parsers:?}");
    let (mut allowed, mut compared, mut refused) = (0, 0, 0);
    let mut differences = Vec::new();
    for (value, result) in cases.iter().zip(readings["results"].as_array().unwrap()) {
        let request = Request::new("GET", b"/").header("Cookie", value);
        let verdict = evaluate(&Profile::strict(), &request).verdict;
        if verdict.decision == Decision::Reject {
            refused += 1;
            if std::env::var("SHOW_REFUSED").is_ok() {
                eprintln!(
                    "REFUSED {:?} {:?}",
                    String::from_utf8_lossy(value),
                    verdict.counts.keys().collect::<Vec<_>>()
                );
            }
            continue;
        }
        allowed += 1;
        let ours = our_texts(value);
        for parser in &parsers {
            let Some(pairs) = result[parser]["pairs"].as_array() else {
                continue;
            };
            compared += 1;
            for pair in pairs {
                for side in pair.as_array().unwrap() {
                    let theirs = unb64(side.as_str().unwrap());
                    if !checked(&theirs, &ours, value) {
                        differences.push((
                            parser.clone(),
                            String::from_utf8_lossy(value).into_owned(),
                            String::from_utf8_lossy(&theirs).into_owned(),
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "{} headers, {allowed} allowed, {refused} refused, {compared} readings compared",
        cases.len()
    );
    assert!(
        allowed > 1000 && compared > 3000,
        "too few headers compared"
    );
    let shown: Vec<_> = differences.iter().take(12).collect();
    assert!(
        differences.is_empty(),
        "{} names or values no field holds: {shown:#?}",
        differences.len()
    );
}
