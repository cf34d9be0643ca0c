//! Every attack and benign case in every location, through `evaluate` with the default
//! profile, graded against what the profile promises: stop, pass unchanged, or rewrite.
//!
//! The cases are the founding texts' and the known incidents' (RFC 3629 §10, IIS/Nimda, CESU-8,
//! WorstFit), the same set the peers were measured with, so the results compare directly with
//! `../shared/peers/modsec/REPORT.md`.

use utf8gate_policy::{Decision, Profile, Request, evaluate};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Attack,
    Benign,
    Normalize,
}
use Kind::*;

const CASES: &[(&str, Kind, &[u8])] = &[
    ("trav_plain", Attack, b"a/../../b"),
    ("ovl_c0ae_dot", Attack, b"a/\xc0\xae./b"),
    ("ovl_c0ae_2", Attack, b"a/\xc0\xae\xc0\xae/b"),
    ("ovl_c0af", Attack, b"a/..\xc0\xaf..\xc0\xafb"),
    ("ovl_c19c", Attack, b"a/..\xc1\x9c..\xc1\x9cb"),
    ("ovl3_e080ae", Attack, b"a/\xe0\x80\xae\xe0\x80\xae/b"),
    ("ovl3_e080af", Attack, b"a/..\xe0\x80\xaf..\xe0\x80\xafb"),
    ("dbl_25c0", Attack, b"a/%c0%ae%c0%ae/b"),
    ("ovl_nul_c080", Attack, b"a\xc0\x80b"),
    ("lone_surrogate", Attack, b"a\xed\xa0\x80b"),
    ("cesu8_pair", Attack, b"a\xed\xa0\xbd\xed\xb8\x80b"),
    ("above_10ffff", Attack, b"a\xf4\x90\x80\x80b"),
    ("five_byte", Attack, b"a\xf8\x88\x80\x80\x80b"),
    ("fe_ff", Attack, b"a\xfe\xffb"),
    ("trunc_e282", Attack, b"a\xe2\x82"),
    ("stray_cont_80", Attack, b"a\x80b"),
    ("bom_leading", Normalize, b"\xef\xbb\xbfhello"),
    ("bom_interior", Attack, b"hel\xef\xbb\xbflo"),
    ("utf16le_bom", Attack, b"\xff\xfeh\x00i\x00"),
    (
        "fullwidth_trav",
        Attack,
        "a/\u{ff0e}\u{ff0e}\u{ff0f}b".as_bytes(),
    ),
    ("wire_iis_uff0e", Attack, b"a/%uff0e%uff0e%uff0fb"),
    ("wire_iis_u002e", Attack, b"a/%u002e%u002e/b"),
    (
        "non_nfc",
        Normalize,
        "cafe\u{301} re\u{301}sume\u{301}".as_bytes(),
    ),
    (
        "ok_french",
        Benign,
        "Voix ambiguë d’un cœur qui, au zéphyr, préfère les jattes de kiwis.".as_bytes(),
    ),
    (
        "ok_greek",
        Benign,
        "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία.".as_bytes(),
    ),
    (
        "ok_russian",
        Benign,
        "Съешь же ещё этих мягких французских булок, да выпей чаю.".as_bytes(),
    ),
    ("ok_chinese", Benign, "我能吞下玻璃而不伤身体。".as_bytes()),
    (
        "ok_japanese",
        Benign,
        "いろはにほへと ちりぬるを。日本語のテキストです。".as_bytes(),
    ),
    (
        "ok_arabic",
        Benign,
        "أنا قادر على أكل الزجاج و هذا لا يؤلمني.".as_bytes(),
    ),
    (
        "ok_hindi",
        Benign,
        "मैं काँच खा सकता हूँ और मुझे उससे कोई चोट नहीं पहुंचती.".as_bytes(),
    ),
    ("ok_emoji", Benign, "Great job 👍🎉😀 👨‍👩‍👧‍👦 🇫🇷".as_bytes()),
    (
        "ok_korean",
        Benign,
        "나는 유리를 먹을 수 있어요. 그래도 아프지 않아요.".as_bytes(),
    ),
    (
        "ok_greek_2",
        Benign,
        "Το μάθημα ξεκινά στις δέκα.".as_bytes(),
    ),
    ("ok_chinese_2", Benign, "我会记得你的。".as_bytes()),
    (
        "ok_german",
        Benign,
        "Grüße aus München, schöne Tage für alle.".as_bytes(),
    ),
    ("ok_ascii", Benign, b"hello world"),
];

const LOCATIONS: &[&str] = &[
    "path",
    "rawpath",
    "query",
    "header",
    "form",
    "json",
    "text",
    "multipart",
];
const MALFORMED: &[&str] = &[
    "ovl_c0ae_dot",
    "ovl_c0ae_2",
    "ovl_c0af",
    "ovl_c19c",
    "ovl3_e080ae",
    "ovl3_e080af",
    "ovl_nul_c080",
    "lone_surrogate",
    "cesu8_pair",
    "above_10ffff",
    "five_byte",
    "fe_ff",
    "trunc_e282",
    "stray_cont_80",
    "utf16le_bom",
];

fn pct(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for &b in bytes {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b);
        } else {
            out.extend_from_slice(format!("%{b:02x}").as_bytes());
        }
    }
    out
}

fn pct_rawpath(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for &b in bytes {
        if b" %?#\"<>\\^`{|}".contains(&b) || b < 32 || b == 127 {
            out.extend_from_slice(format!("%{b:02x}").as_bytes());
        } else {
            out.push(b);
        }
    }
    out
}

/// The request the application-side bytes `payload` arrive in, at `location`.
fn build(location: &str, id: &str, payload: &[u8]) -> Request {
    let wire = id.starts_with("wire_");
    let enc = |b: &[u8]| if wire { b.to_vec() } else { pct(b) };
    let cat = |a: &[u8], b: &[u8]| [a, b].concat();
    match location {
        "path" => Request::new("GET", &cat(b"/__echo/p/", &enc(payload))),
        "rawpath" => Request::new(
            "GET",
            &cat(
                b"/__echo/p/",
                &if wire {
                    payload.to_vec()
                } else {
                    pct_rawpath(payload)
                },
            ),
        ),
        "query" => Request::new("GET", &cat(b"/__echo/q?q=", &enc(payload))),
        "header" => {
            let v: Vec<u8> = payload.iter().copied().filter(|&b| b != 0).collect();
            Request::new("GET", b"/__echo/q").header("X-Test", &v)
        }
        "form" => Request::new("POST", b"/__echo/q")
            .header("Content-Type", b"application/x-www-form-urlencoded")
            .body(&cat(b"q=", &enc(payload))),
        "json" => Request::new("POST", b"/__echo/q")
            .header("Content-Type", b"application/json")
            .body(&[&b"{\"q\":\""[..], payload, b"\"}"].concat()),
        "text" => Request::new("POST", b"/__echo/q")
            .header("Content-Type", b"text/plain; charset=utf-8")
            .body(payload),
        _ => {
            let boundary = b"----peerboundary7MA4YWxkTrZu0gW";
            let body = [
                &b"--"[..],
                boundary,
                b"\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n",
                b"Content-Type: text/plain\r\n\r\n",
                payload,
                b"\r\n--",
                boundary,
                b"--\r\n",
            ]
            .concat();
            Request::new("POST", b"/__echo/q")
                .header(
                    "Content-Type",
                    &cat(b"multipart/form-data; boundary=", boundary),
                )
                .body(&body)
        }
    }
}

/// What the default profile promises, per case and location (`None`: policy-dependent).
fn expected(id: &str, kind: Kind, loc: &str) -> Option<&'static str> {
    let url = loc == "path" || loc == "rawpath";
    if MALFORMED.contains(&id) {
        return Some("stop");
    }
    if kind == Benign {
        return (loc != "rawpath").then_some("pass");
    }
    match id {
        "trav_plain" | "fullwidth_trav" => url.then_some("stop"),
        "dbl_25c0" => (url || loc == "query" || loc == "form").then_some("stop"),
        "wire_iis_uff0e" | "wire_iis_u002e" => (url || loc == "query").then_some("stop"),
        "bom_interior" | "bom_leading" if url || loc == "query" || loc == "header" => Some("stop"),
        "bom_leading" if loc == "text" || loc == "multipart" => Some("rewrite"),
        "non_nfc" if ["query", "form", "json", "text", "multipart"].contains(&loc) => {
            Some("rewrite")
        }
        "non_nfc" if loc == "header" => Some("pass"),
        _ => None,
    }
}

fn outcome(request: &Request) -> (&'static str, String) {
    let e = evaluate(&Profile::strict(), request);
    let summary = format!("{:?} {:?}", e.verdict.decision, e.verdict.kinds());
    let o = match e.verdict.decision {
        Decision::Reject => "stop",
        Decision::Sanitize => "rewrite",
        Decision::Allow => "pass",
    };
    if o == "rewrite" {
        assert_ne!(
            e.sanitized.as_ref(),
            Some(request),
            "sanitize must change something"
        );
    }
    (o, summary)
}

#[test]
fn every_case_in_every_location() {
    let mut wrong = Vec::new();
    let mut passed_in_target = Vec::new();
    let (mut graded, mut attacks_stopped, mut attacks, mut benign_blocked, mut benign_altered) =
        (0, 0, 0, 0, 0);
    for &(id, kind, payload) in CASES {
        for &loc in LOCATIONS {
            let (got, summary) = outcome(&build(loc, id, payload));
            match kind {
                Attack if ["path", "rawpath", "query"].contains(&loc) => {
                    attacks += 1;
                    attacks_stopped += usize::from(got == "stop");
                    if got != "stop" {
                        passed_in_target.push(format!("{id}@{loc}"));
                    }
                }
                Attack => {}
                Benign => {
                    benign_blocked += usize::from(got == "stop");
                    benign_altered += usize::from(got == "rewrite");
                }
                Normalize => {}
            }
            if let Some(want) = expected(id, kind, loc) {
                graded += 1;
                if want != got {
                    wrong.push(format!(
                        "{id} @ {loc}: expected {want}, got {got} ({summary})"
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {graded} graded requests differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    // 241 here plus the JSON document signature below: the 242 graded requests of the peers' report.
    assert_eq!(graded, 241);
    assert_eq!((benign_blocked, benign_altered), (0, 0));
    // Every attack in the request target is stopped but a plain "../" in a query value, which
    // the default profile logs (dot_segment); elsewhere the undecoded ones are policy-dependent:
    // a plain "../" or a literal "%c0%ae" in a JSON string is text.
    assert_eq!((attacks_stopped, attacks), (62, 63));
    assert_eq!(passed_in_target, ["trav_plain@query"]);
}

#[test]
fn json_document_signature_is_stripped() {
    let request = Request::new("POST", b"/__echo/q")
        .header("Content-Type", b"application/json")
        .body(b"\xef\xbb\xbf{\"q\":\"hello\"}");
    let e = evaluate(&Profile::strict(), &request);
    assert_eq!(e.verdict.decision, Decision::Sanitize, "{:?}", e.verdict);
    assert_eq!(e.sanitized.unwrap().body, &b"{\"q\":\"hello\"}"[..]);
}
