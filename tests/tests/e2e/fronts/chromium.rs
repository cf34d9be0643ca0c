//! Headless Chromium (Debian's `chromium`) loads a page through utf8gate's proxy listener and
//! submits forms in several scripts: native urlencoded POST and GET forms and a multipart form
//! with a non-ASCII file name (into a frame), and fetch with JSON; then two attacks with fetch.
//! The page (`forms.html`) writes what it saw into the DOM, which `--dump-dom` prints when the
//! page's virtual time budget is spent; Chromium then exits by itself.
//!
//! What reached the upstream is compared with what the page sent: byte for byte where the
//! bytes are deterministic (urlencoded bodies and queries, serialized here by the WHATWG
//! algorithm; JSON), and read by Python's standard library parsers (`email`, `urllib.parse`,
//! `json`; `tests/python/read_forms_stdlib.py`) for all of them, the multipart bodies
//! (random boundary) included.

use serde_json::{Value, json};
use utf8gate_e2e::{
    Gateway, Recorded, ScratchDir, Upstream, chromium_tool, headless_chromium, hex, page_results,
    read_forms,
};

/// One case: a script's name, a text in it and a file name in it.
struct Case {
    script: &'static str,
    text: &'static str,
    filename: &'static str,
}

const CASES: &[Case] = &[
    Case {
        script: "latin",
        text: "Crème brûlée à Ærøskøbing, Łódź, Þórshöfn",
        filename: "Résumé Ærøskøbing.txt",
    },
    Case {
        script: "cyrillic",
        text: "Привет, мир! Щука и ёж",
        filename: "Отчёт за год.txt",
    },
    Case {
        script: "greek",
        text: "Καλημέρα κόσμε, ψυχή",
        filename: "Έγγραφο.txt",
    },
    Case {
        script: "cjk",
        text: "東京都渋谷区 履歴書 한국어 ひらがな",
        filename: "履歴書 東京.txt",
    },
    Case {
        script: "arabic",
        text: "مرحبا بالعالم",
        filename: "ملف عربي.txt",
    },
    Case {
        script: "hindi",
        text: "नमस्ते दुनिया",
        filename: "सूची.txt",
    },
    Case {
        script: "emoji",
        text: "👍🏽 🎉 family 👨‍👩‍👧 flag 🇫🇷",
        filename: "🎉 party.txt",
    },
];

/// The WHATWG `application/x-www-form-urlencoded` serializer over UTF-8 (what a browser sends
/// for a form): `*-._`, digits and ASCII letters as they are, space as `+`, every other byte
/// `%XX` in upper case.
fn urlencoded(pairs: &[(&str, &str)]) -> String {
    let encode = |s: &str| {
        s.bytes()
            .map(|b| match b {
                b'*' | b'-' | b'.' | b'_' | b'0'..=b'9' | b'A'..=b'Z' | b'a'..=b'z' => {
                    (b as char).to_string()
                }
                b' ' => "+".to_string(),
                _ => format!("%{b:02X}"),
            })
            .collect::<String>()
    };
    pairs
        .iter()
        .map(|(n, v)| format!("{}={}", encode(n), encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

fn record<'a>(records: &'a [Recorded], target_prefix: &str) -> &'a Recorded {
    let found: Vec<_> = records
        .iter()
        .filter(|r| r.target.starts_with(target_prefix))
        .collect();
    assert_eq!(found.len(), 1, "requests for {target_prefix}: {records:#?}");
    found[0]
}

fn header_str<'a>(r: &'a Recorded, name: &str) -> &'a str {
    std::str::from_utf8(r.header(name).unwrap_or_default()).unwrap_or("(not UTF-8)")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_form_submissions_in_many_scripts_reach_the_upstream_unchanged() {
    let Some(bin) = chromium_tool() else {
        return;
    };
    let cases: Vec<Value> = CASES
        .iter()
        .map(|c| json!({"script": c.script, "text": c.text, "filename": c.filename}))
        .collect();
    let html = include_str!("forms.html").replace("/*CASES*/", &Value::from(cases).to_string());
    let upstream = Upstream::start_with_page("/forms", html).await;
    let gw = Box::pin(Gateway::start("", Some(&upstream.url()))).await;

    let dir = ScratchDir::new("chromium");
    // Virtual time stands still while requests are pending, so the budget is spent only when
    // the page is idle: it bounds the page's timers, not the requests.
    let args = ["--dump-dom", "--virtual-time-budget=30000"];
    let url = format!("http://{}/forms", gw.proxy);
    let dom = headless_chromium(&bin, &dir, "forms", &url, &args).await;
    let results = page_results(&dom).unwrap_or_else(|| panic!("no results in the DOM:\n{dom}"));
    assert_eq!(results["submitted"], 4 * CASES.len(), "{results}");
    assert_eq!(
        results["json_status"],
        json!(vec![200; CASES.len()]),
        "{results}"
    );

    // The attacks: utf8gate's refusal reached the page, nothing reached the upstream.
    for (attack, kind) in [("json", "escaped_surrogate"), ("query", "bidi_control")] {
        let seen = &results["attacks"][attack];
        assert_eq!(seen["status"], 400, "{attack}: {seen}");
        assert_eq!(seen["type"], "application/problem+json", "{attack}: {seen}");
        assert_eq!(
            seen["problem"]["type"], "urn:utf8gate:problem:rejected",
            "{seen}"
        );
        let kinds: Vec<&str> = seen["problem"]["verdict"]["findings"]
            .as_array()
            .map(|f| f.iter().filter_map(|f| f["kind"].as_str()).collect())
            .unwrap_or_default();
        assert!(kinds.contains(&kind), "{attack}: {kinds:?}");
    }
    let records = upstream.records();
    assert!(
        !records
            .iter()
            .any(|r| r.target.starts_with("/submit/attack")),
        "an attack reached the upstream"
    );

    // Every submission, byte for byte where the bytes are deterministic.
    let mut readings = Vec::new();
    for (i, c) in CASES.iter().enumerate() {
        let fields = [("script", c.script), ("text", c.text)];
        let form = urlencoded(&fields);

        let posted = record(&records, &format!("/submit/urlencoded/{i}"));
        assert_eq!(posted.method, "POST");
        assert_eq!(
            header_str(posted, "content-type"),
            "application/x-www-form-urlencoded"
        );
        assert_eq!(
            posted.body,
            form.as_bytes(),
            "{}: urlencoded body",
            c.script
        );

        let got = record(&records, &format!("/submit/get/{i}"));
        assert_eq!(got.method, "GET");
        assert_eq!(
            got.target,
            format!("/submit/get/{i}?{form}"),
            "{}: query",
            c.script
        );

        let json_body = format!(
            "{{\"script\":{},\"text\":{}}}",
            Value::from(c.script),
            Value::from(c.text)
        );
        let fetched = record(&records, &format!("/submit/json/{i}"));
        assert_eq!(header_str(fetched, "content-type"), "application/json");
        assert_eq!(
            fetched.body,
            json_body.as_bytes(),
            "{}: JSON body",
            c.script
        );

        let multipart = record(&records, &format!("/submit/multipart/{i}"));
        let ct = header_str(multipart, "content-type").to_string();
        assert!(ct.starts_with("multipart/form-data; boundary="), "{ct}");
        let quoted = format!("filename=\"{}\"", c.filename);
        assert!(
            multipart
                .body
                .windows(quoted.len())
                .any(|w| w == quoted.as_bytes()),
            "{}: the raw UTF-8 file name is not in the body",
            c.script
        );
        readings.push(("urlencoded", String::new(), posted.body.clone()));
        let query = got.target.split_once('?').map_or("", |(_, q)| q);
        readings.push(("urlencoded", String::new(), query.as_bytes().to_vec()));
        readings.push(("json", String::new(), fetched.body.clone()));
        readings.push(("multipart", ct, multipart.body.clone()));
    }

    // Every submission read by Python's parsers, against the page's values.
    let read = read_forms(std::path::Path::new("python3"), &readings);
    for (i, c) in CASES.iter().enumerate() {
        let pairs = json!([["script", c.script], ["text", c.text]]);
        assert_eq!(read[4 * i], pairs, "{}: urlencoded body", c.script);
        assert_eq!(read[4 * i + 1], pairs, "{}: query", c.script);
        assert_eq!(read[4 * i + 2], json!({"script": c.script, "text": c.text}));
        let part = |name: &str, filename: Option<&str>, ct: Option<&str>, content: &str| json!({"name": name, "filename": filename, "content_type": ct, "content": hex(content.as_bytes())});
        assert_eq!(
            read[4 * i + 3],
            json!([
                part("script", None, None, c.script),
                part("text", None, None, c.text),
                part("file", Some(c.filename), Some("text/plain"), c.text),
            ]),
            "{}: multipart",
            c.script
        );
    }
}
