//! Real text in twelve scripts, in every location, passes the default and Windows profiles
//! untouched with zero findings: the false-positive half of the comparison with the peers.

mod support;

use support::coders::{brotli, gzip, zlib};

use utf8gate_policy::{Decision, Profile, Request, evaluate};

/// Each text is NFC (checked with Python's unicodedata when written, and by this test through
/// the verdict) and uses the script's ordinary marks: harakat, niqqud, ZWNJ, RLM, ZWJ, VS16.
const TEXTS: &[(&str, &str)] = &[
    (
        "latin",
        "Příliš žluťoučký kůň úpěl ďábelské ódy. Où est la boîte? Ça coûte 5 €, señor.",
    ),
    (
        "vietnamese",
        "Tiếng Việt có dấu: Tôi có thể ăn thủy tinh mà không hại gì.",
    ),
    ("greek", "Ξεσκεπάζω τὴν ψυχοφθόρα βδελυγμία· Ἀθῆναι."),
    (
        "cyrillic",
        "Съешь же ещё этих мягких французских булок, да выпей чаю. Ѓ ї є ў",
    ),
    ("arabic", "\u{200F}أَنَا قَادِرٌ عَلَى أَكْلِ الزُّجَاجِ وَ هَذَا لَا يُؤْلِمُنِي."),
    ("hebrew", "\u{200F}אֲנִי יָכוֹל לֶאֱכוֹל זְכוּכִית וְזֶה לֹא מַזִּיק לִי."),
    (
        "persian",
        "من می\u{200C}توانم بدونِ احساس درد شیشه بخورم. خانه\u{200C}ها",
    ),
    (
        "devanagari",
        "मैं काँच खा सकता हूँ और मुझे उससे कोई चोट नहीं पहुंचती. क्षत्रिय",
    ),
    ("thai", "ฉันกินกระจกได้ แต่มันไม่ทำให้ฉันเจ็บ ภาษาไทย"),
    (
        "cjk",
        "我能吞下玻璃而不伤身体。私はガラスを食べられます，それは私を傷つけません：はい。",
    ),
    (
        "hangul",
        "나는 유리를 먹을 수 있어요. 그래도 아프지 않아요. 한국어",
    ),
    (
        "emoji",
        "Great 👍🏽 job 👩\u{200D}💻 team 👨\u{200D}👩\u{200D}👧\u{200D}👦 🇫🇷🇯🇵 ❤\u{FE0F} 🏳\u{FE0F}\u{200D}🌈 😀",
    ),
];

fn pct(bytes: &[u8]) -> Vec<u8> {
    bytes
        .iter()
        .flat_map(|&b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                vec![b]
            } else {
                format!("%{b:02X}").into_bytes()
            }
        })
        .collect()
}

fn json_string(text: &str) -> Vec<u8> {
    format!("{{\"comment\":\"{text}\",\"n\":[1,2.5e3,true,null]}}").into_bytes()
}

fn requests(text: &str) -> Vec<(&'static str, Request)> {
    let b = text.as_bytes();
    let multipart = |content: &[u8], filename: &[u8]| {
        let mut body = b"--XX\r\nContent-Disposition: form-data; name=\"f\"; filename=\"".to_vec();
        body.extend_from_slice(filename);
        body.extend_from_slice(b"\"\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n");
        body.extend_from_slice(content);
        body.extend_from_slice(b"\r\n--XX--\r\n");
        Request::new("POST", b"/upload")
            .header("Content-Type", b"multipart/form-data; boundary=XX")
            .body(&body)
    };
    vec![
        (
            "path",
            Request::new("GET", &[&b"/wiki/"[..], &pct(b)].concat()),
        ),
        (
            "query",
            Request::new("GET", &[&b"/search?q="[..], &pct(b), b"&page=2"].concat()),
        ),
        ("header", Request::new("GET", b"/").header("X-Title", b)),
        (
            "form",
            Request::new("POST", b"/f")
                .header("Content-Type", b"application/x-www-form-urlencoded")
                .body(&[&b"a=1&comment="[..], &pct(b)].concat()),
        ),
        (
            "json",
            Request::new("POST", b"/j")
                .header("Content-Type", b"application/json; charset=utf-8")
                .body(&json_string(text)),
        ),
        (
            "text",
            Request::new("POST", b"/t")
                .header("Content-Type", b"text/plain; charset=UTF-8")
                .body(b),
        ),
        ("multipart content", multipart(b, b"notes.txt")),
        ("multipart filename", multipart(b"hello", b)),
        (
            "json gzip",
            coded("application/json", "gzip", &json_string(text), gzip),
        ),
        (
            "text br",
            coded("text/plain; charset=utf-8", "br", b, brotli),
        ),
        (
            "form deflate",
            coded(
                "application/x-www-form-urlencoded",
                "deflate",
                &[&b"a=1&comment="[..], &pct(b)].concat(),
                zlib,
            ),
        ),
        ("browser multipart", browser_multipart(text)),
        (
            "path parameters",
            Request::new(
                "GET",
                &[&b"/shop;v=1/"[..], &pct(b), b";jsessionid=AB12"].concat(),
            )
            .header("Host", b"shop.example:8443"),
        ),
        (
            "untyped json",
            Request::new("POST", b"/j").body(&json_string(text)),
        ),
    ]
}

fn coded(content_type: &str, coding: &str, body: &[u8], code: fn(&[u8]) -> Vec<u8>) -> Request {
    Request::new("POST", b"/c")
        .header("Content-Type", content_type.as_bytes())
        .header("Content-Encoding", coding.as_bytes())
        .body(&code(body))
}

/// The shape Chrome and Firefox send: a WebKit boundary, a text field, a file with its type.
fn browser_multipart(text: &str) -> Request {
    let boundary = "----WebKitFormBoundaryq8KXbSeW2eGZ4ZxT";
    let body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n{text}\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"{text}.txt\"\r\nContent-Type: text/plain\r\n\r\n{text}\n{text}\r\n--{boundary}--\r\n"
    );
    Request::new("POST", b"/upload")
        .header(
            "Content-Type",
            format!("multipart/form-data; boundary={boundary}").as_bytes(),
        )
        .body(body.as_bytes())
}

#[test]
fn twelve_scripts_in_every_location_have_no_findings() {
    assert_eq!(TEXTS.len(), 12);
    let mut failures = Vec::new();
    for profile in [Profile::strict(), Profile::lossy()] {
        for (script, text) in TEXTS {
            for (location, request) in requests(text) {
                let e = evaluate(&profile, &request);
                if e.verdict.decision != Decision::Allow
                    || !e.verdict.findings.is_empty()
                    || e.sanitized.is_some()
                {
                    failures.push(format!(
                        "{} {script} @ {location}: {:?}",
                        profile.name, e.verdict.findings
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} false positives:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn windows_profile_flags_only_best_fit_punctuation() {
    // The Windows profile reports U+2019 (best fit: ') in URLs and headers by design; every
    // script without such punctuation passes it too.
    let profile = Profile::windows_backend();
    for (script, text) in TEXTS {
        let has_best_fit = text.contains(['\u{2019}', '\u{FF0C}', '\u{FF1A}']);
        for (location, request) in requests(text) {
            let e = evaluate(&profile, &request);
            let kinds = e.verdict.kinds();
            assert!(
                kinds.iter().all(|k| *k == "lookalike"),
                "{script} @ {location}: {kinds:?}"
            );
            if !has_best_fit {
                assert_eq!(e.verdict.decision, Decision::Allow, "{script} @ {location}");
            }
        }
    }
}
