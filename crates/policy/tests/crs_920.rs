//! The OWASP Core Rule Set's own regression tests for its encoding rules (REQUEST-920:
//! 920250, 920260, 920270-920275), replayed against utf8gate's `strict` profile.
//!
//! Source: github.com/coreruleset/coreruleset, `tests/regression/tests/REQUEST-920-PROTOCOL-
//! ENFORCEMENT/<id>.yaml`; the commit of each file is in `docs/crs-comparison.md`. Every test
//! case of those files is one row: the request go-ftw sends (CRS's default method GET, the
//! `uri`, the `headers`, `data` as the body), what CRS expects, and what utf8gate decides.
//! None of these cases uses `encoded_request`, and none sets a Content-Type.
//!
//! The decisions were found by running this file and then frozen. Every row where utf8gate
//! and CRS disagree is listed in `DELIBERATELY_DIFFERENT` (with the reason) or in `GAPS` (a
//! request utf8gate should refuse by its own mission and does not).

use utf8gate_policy::{Decision, Profile, Request, evaluate};

use Crs::{Refused, Silent, Triggers};
use Decision::{Allow, Reject};

/// What the CRS test case expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Crs {
    /// `expect_ids: [rule]`: the rule fires.
    Triggers,
    /// `no_expect_ids: [rule]`: the rule stays silent.
    Silent,
    /// Only a status (`400`, or `403`/`404`): the web server, or CRS, refuses the request.
    Refused,
}

/// id, CRS's expectation, `uri`, headers besides the standard three, `data`, utf8gate's decision.
type Case = (
    &'static str,
    Crs,
    &'static [u8],
    &'static [(&'static str, &'static [u8])],
    &'static [u8],
    Decision,
);

/// The headers every case sends (a `Host` in a case's own headers replaces the standard one).
const STANDARD: &[(&str, &[u8])] = &[
    ("User-Agent", b"OWASP CRS test agent"),
    ("Host", b"localhost"),
    ("Accept", ACCEPT),
];

const ACCEPT: &[u8] = b"text/xml,application/xml,application/xhtml+xml,text/html;q=0.9,\
text/plain;q=0.8,image/png,*/*;q=0.5";

/// The extra headers of the cases "taken from existing modsec regression".
const MODSEC: &[(&str, &[u8])] = &[
    ("Accept-Language", b"en-us,en;q=0.5"),
    ("Keep-Alive", b"300"),
    ("Proxy-Connection", b"keep-alive"),
];

#[rustfmt::skip] // one case a line
const CASES: &[Case] = &[
    // 920250, PL1: UTF-8 encoding abuse (with CRS_VALIDATE_UTF8_ENCODING set).
    ("920250-1", Triggers, b"/?param=%c0%af", MODSEC, b"", Reject),
    ("920250-2", Triggers, b"/?param=%c0", MODSEC, b"", Reject),
    ("920250-3", Triggers, b"/?param=%F5%80%BF%BF", MODSEC, b"", Reject),
    ("920250-4", Triggers, b"/?param=%E2%A3", MODSEC, b"", Reject),
    // 920260, PL1: Unicode full/half width abuse (`%uFFxx`).
    ("920260-1", Triggers, b"/get?test=%uff0F", &[], b"", Reject),
    ("920260-2", Silent, b"/get?test=%u0F", &[], b"", Allow),
    ("920260-3", Triggers, b"/get?param=foo%uFF01", MODSEC, b"", Reject),
    // 920270, PL1: NUL in the request (after t:urlDecodeUni).
    ("920270-1", Triggers, b"/?test%00=test1", &[], b"", Reject),
    ("920270-2", Triggers, b"/?test=test1%00", &[], b"", Reject),
    ("920270-3", Triggers, b"/?test%00=test1", &[], b"", Reject),
    ("920270-4", Refused, b"/?test=test1", &[("Host", b"localhost%00")], b"", Reject),
    ("920270-5", Triggers, b"/?test=test1", &[("Referer", b"anything%00")], b"", Reject),
    ("920270-6", Silent, b"/?test%40=test1", &[], b"", Allow),
    ("920270-7", Silent, b"/?test%FD=test1", &[], b"", Reject),
    ("920270-8", Silent, b"/?test%FD=test1", &[], b"", Reject),
    ("920270-9", Triggers, b"/?param=foo%00", MODSEC, b"", Reject),
    // 920271, PL2: non-printable ASCII (bytes other than 9, 10, 13, 32-126, 128-255).
    ("920271-1", Triggers, b"/?test=test1%127", &[], b"", Reject),
    ("920271-2", Triggers, b"/?test=test1%03", &[], b"", Reject),
    ("920271-3", Triggers, b"/?test%00=test1", &[], b"", Reject),
    ("920271-4", Triggers, b"/?test=test1", &[("Cookie", b"hi%13=bye")], b"", Reject),
    ("920271-5", Silent, b"/%20index.html?test=test1", &[], b"", Allow),
    ("920271-6", Silent, b"/%FFindex.html?test=test1", &[], b"", Reject),
    // 920272, PL3: outside printable ASCII below 127, and `%` (bytes 32-36, 38-126 only).
    ("920272-1", Triggers, b"/?test=test1%25", &[], b"", Allow),
    ("920272-2", Triggers, b"/?test=test1%80", &[], b"", Reject),
    ("920272-3", Triggers, b"/index.html?test=t%FFest1", &[], b"", Reject),
    ("920272-4", Silent, b"/?test=test1%35", &[], b"", Allow),
    ("920272-5", Refused, b"/i%FFndex.html?test=test1", &[], b"", Reject),
    // 920273, PL4: arguments and body outside `A-Z a-z 0-9 = - _ . , : &`.
    ("920273-1", Triggers, b"/?test=test1%20", &[], b"", Allow),
    ("920273-2", Silent, b"/?test=test1&test=t", &[], b"", Allow),
    ("920273-3", Triggers, b"/index.html?test=test1", &[], b"<hello", Allow),
    ("920273-4", Silent, b"/?test=test1%5FHI", &[], b"", Allow),
    ("920273-5", Triggers, b"/?test=test1%60HI", &[], b"", Allow),
    // 920274, PL4: headers (but User-Agent, Referer, Cookie, booleans) outside a strict set.
    ("920274-1", Refused, b"/get?test=test1", &[("Host", b"localhost%1F")], b"", Reject),
    ("920274-2", Silent, b"/index.html?test=test1", &[], b"", Allow),
    ("920274-3", Silent, b"/get?test=test1HI", &[("Test", b"ThisISATEST%5F")], b"", Allow),
    ("920274-4", Triggers, b"/get?test=test1HI", &[("Test", b"ThisIsATest%60")], b"", Allow),
    ("920274-5", Silent, b"/get?test=test1HI", &[("Cookie", b"ThisIsATest%60")], b"", Allow),
    ("920274-6", Silent, b"/", &[("Sec-CH-UA", b"Test?")], b"", Allow),
    ("920274-7", Silent, b"/", &[("Authorization", b"Bearer 1234|5678|90abcde|f")], b"", Allow),
    ("920274-8", Silent, b"/", &[("From", b"webmaster@example.org")], b"", Allow),
    ("920274-9", Silent, b"/", &[("signature-input", SIGNATURE_INPUT)], b"", Allow),
    // 920275, PL4: Sec-Fetch-User and Sec-CH-UA-Mobile other than `?0`, `?1` or empty.
    ("920275-1", Triggers, b"/", &[("Sec-Fetch-User", b"foo")], b"", Allow),
    ("920275-2", Silent, b"/", &[("Sec-Fetch-User", b"?0")], b"", Allow),
    ("920275-3", Silent, b"/", &[("Sec-Fetch-User", b"?1")], b"", Allow),
    ("920275-4", Triggers, b"/", &[("Sec-CH-UA-Mobile", b"foo")], b"", Allow),
    ("920275-5", Silent, b"/", &[("Sec-CH-UA-Mobile", b"?0")], b"", Allow),
    ("920275-6", Silent, b"/", &[("Sec-CH-UA-Mobile", b"?1")], b"", Allow),
];

const SIGNATURE_INPUT: &[u8] = b"sig=(\"@authority\" \"signature-agent\");created=1782278695;\
keyid=\"e3vpiy0B6M1Wdxnizw3dqRSgpqS6SXM2qiQ6HtUwZ5g\";alg=\"ed25519\";expires=1782278755;\
nonce=\"KCQnrmVEiipeVrgmvSFmw_UVHvYH_XgKfxXC1viT98j0AHhe38WWJtYRjBFoMRD3wrSngsLIDxSKPKgkubHLiQ\";\
tag=\"web-bot-auth\"";

/// Rows where utf8gate decides otherwise than CRS on purpose, each with the reason.
#[rustfmt::skip] // one row a line
const DELIBERATELY_DIFFERENT: &[(&str, &str)] = &[
    ("920270-7", "%FD is malformed UTF-8 (truncated): rejected; CRS leaves it to 920250"),
    ("920270-8", "the same request as 920270-7"),
    ("920271-6", "%FF is never UTF-8 (invalid_byte): rejected; CRS 920271 allows bytes 128-255"),
    ("920272-1", "a literal % (%25 not followed by hex) is text, not an escape: allowed"),
    ("920273-1", "CRS PL4 allow-lists ASCII in arguments; a space is valid text"),
    ("920273-3", "CRS PL4 allow-lists ASCII in the body; `<` is valid text"),
    ("920273-5", "CRS PL4 allow-lists ASCII in arguments; a backtick is valid text"),
    ("920274-4", "CRS PL4 allow-lists ASCII in headers (decoded); a backtick is valid text"),
    ("920275-1", "Structured Field boolean syntax is not encoding; `foo` is valid ASCII"),
    ("920275-4", "the same as 920275-1, for Sec-CH-UA-Mobile"),
];

/// Rows where utf8gate allows what its own mission says it should refuse (malformed UTF-8,
/// overlongs, NUL or controls in the URL or headers, traversal), each also marked `// GAP:` in
/// `CASES`, its decision left as utf8gate decides now. None among these 47 cases.
const GAPS: &[(&str, &str)] = &[];

/// The paranoia level of a CRS rule.
fn paranoia_level(id: &str) -> u8 {
    match &id[..6] {
        "920250" | "920260" | "920270" => 1,
        "920271" => 2,
        "920272" => 3,
        _ => 4,
    }
}

fn request(uri: &[u8], headers: &[(&str, &[u8])], data: &[u8]) -> Request {
    let mut request = Request::new("GET", uri);
    let own_host = headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host"));
    for &(name, value) in STANDARD {
        if !(own_host && name == "Host") {
            request = request.header(name, value);
        }
    }
    for &(name, value) in headers {
        request = request.header(name, value);
    }
    request.body(data)
}

/// `true` if utf8gate's decision is the one CRS's expectation amounts to.
fn agrees(crs: Crs, decision: Decision) -> bool {
    match crs {
        Triggers | Refused => decision == Reject,
        Silent => decision == Allow,
    }
}

fn listed(list: &[(&str, &str)], id: &str) -> bool {
    list.iter().any(|(i, _)| *i == id)
}

#[test]
fn crs_920_cases_get_the_frozen_decisions() {
    let profile = Profile::strict();
    let mut wrong = Vec::new();
    for &(id, crs, uri, headers, data, expected) in CASES {
        let verdict = evaluate(&profile, &request(uri, headers, data)).verdict;
        println!(
            "{id}\tcrs={crs:?}\tutf8gate={:?}\t{:?}",
            verdict.decision,
            verdict.kinds()
        );
        if verdict.decision != expected {
            let decision = verdict.decision;
            wrong.push(format!("{id}: {decision:?}, the table says {expected:?}"));
        }
    }
    assert!(wrong.is_empty(), "decisions changed:\n{}", wrong.join("\n"));
}

#[test]
fn every_disagreement_is_explained() {
    for &(id, crs, _, _, _, decision) in CASES {
        let explained = listed(DELIBERATELY_DIFFERENT, id) || listed(GAPS, id);
        assert_eq!(
            !agrees(crs, decision),
            explained,
            "{id}: CRS {crs:?}, utf8gate {decision:?}; listed: {explained}"
        );
    }
    for (id, reason) in DELIBERATELY_DIFFERENT.iter().chain(GAPS) {
        assert!(CASES.iter().any(|c| c.0 == *id), "{id} is not a case");
        assert!(!reason.is_empty(), "{id} needs a reason");
    }
}

#[test]
fn what_crs_blocks_at_paranoia_level_1_utf8gate_rejects() {
    for &(id, crs, _, _, _, decision) in CASES {
        let excused = listed(DELIBERATELY_DIFFERENT, id) || listed(GAPS, id);
        if paranoia_level(id) == 1 && crs != Silent && !excused {
            assert_eq!(decision, Reject, "{id}: CRS blocks it at PL1");
        }
    }
}

#[test]
fn the_table_covers_every_crs_case_once() {
    let mut ids: Vec<&str> = CASES.iter().map(|c| c.0).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), CASES.len(), "an id twice");
    assert_eq!(ids.len(), 47);
    for (rule, count) in [
        ("920250", 4),
        ("920260", 3),
        ("920270", 9),
        ("920271", 6),
        ("920272", 5),
        ("920273", 5),
        ("920274", 9),
        ("920275", 6),
    ] {
        let n = ids.iter().filter(|id| id.starts_with(rule)).count();
        assert_eq!(n, count, "{rule}");
    }
}
