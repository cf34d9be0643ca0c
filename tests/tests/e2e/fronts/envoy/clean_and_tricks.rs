//! Clean non-ASCII in every place reaches the application byte-identical through Envoy; every
//! trick in every place is denied before it, by utf8gate (403 problem+json, the shipped
//! `authz_deny_status`) or by Envoy's own codec (a bare 400 for raw bytes in the request
//! target and a NUL in a header, which HTTP/1.1 does not allow there), and utf8gate was not
//! asked about what Envoy refused itself. The one exception is the default profile's own:
//! `strict` rejects bidi controls in the path, query and headers and logs them in bodies
//! (docs/verdict.md), so a U+202E in a JSON, form or multipart body is allowed with
//! `bidi_control` in the audit line.

use utf8gate_e2e::request;

use super::{Front, Mode, assert_envoy_refused};
use crate::support::*;

async fn clean_requests_reach_the_application_byte_identical(mode: Mode) {
    let Some(front) = Box::pin(Front::start(mode)).await else {
        return;
    };
    let target =
        "/shop/caf%C3%A9/%E6%9D%B1%E4%BA%AC?q=%D0%9F%D1%80%D0%B8%D0%B2%D0%B5%D1%82&e=%F0%9F%91%8D";
    let header: &[u8] = "Zoë Ærøskøbing 東京 Αθήνα".as_bytes();
    let json = r#"{"city":"Αθήνα","greeting":"مرحبا नमस्ते Привет","emoji":"👍🏽"}"#.as_bytes();
    let form = "name=Zo%C3%AB&city=東京&note=Crème+brûlée".as_bytes();
    let multipart = "--b0\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nCrème brûlée\r\n\
                     --b0\r\nContent-Disposition: form-data; name=\"file\"; filename=\"履歴書 résumé.txt\"\r\n\
                     Content-Type: text/plain\r\n\r\n東京 data\r\n--b0--\r\n"
        .as_bytes();
    let sent = [
        request("GET", target, &[("X-Name", header)], b""),
        post("/api/json", "application/json", json),
        post("/api/form", "application/x-www-form-urlencoded", form),
        post("/api/upload", "multipart/form-data; boundary=b0", multipart),
    ];
    for bytes in &sent {
        let response = front.send(bytes).await;
        let log = || front.envoy.log();
        assert_eq!(
            response.status,
            200,
            "{mode:?}: {}\n{}",
            response.text(),
            log()
        );
    }
    let received = front.received();
    assert_eq!(received.len(), 4, "{received:#?}");
    assert_eq!(received[0].target, target, "path and query byte-identical");
    assert_eq!(received[0].header("x-name"), Some(header));
    for (r, body) in received[1..].iter().zip([json, form, multipart]) {
        assert_eq!(r.body, body, "{} body byte-identical", r.target);
    }
    for r in &received {
        assert_eq!(r.header("utf8gate-decision"), Some(&b"allow"[..]), "{r:?}");
    }
    // utf8gate judged what the application received.
    let asked = front.asked();
    assert_eq!(asked.len(), 4, "{asked:?}");
    for (a, r) in asked.iter().zip(&received) {
        assert_eq!(a.target, r.target.as_bytes());
        if let Some(body) = &a.body {
            assert_eq!(body, &r.body, "raw_body is the body as received");
        }
    }
}

fn post(target: &str, content_type: &str, body: &[u8]) -> Vec<u8> {
    request(
        "POST",
        target,
        &[("Content-Type", content_type.as_bytes())],
        body,
    )
}

/// A trick: its name, raw bytes, percent-encoded form and the kind utf8gate reports.
struct Trick {
    name: &'static str,
    raw: &'static [u8],
    percent: &'static str,
    kind: &'static str,
}

const TRICKS: &[Trick] = &[
    Trick {
        name: "overlong",
        raw: b"\xC0\xAE",
        percent: "%C0%AE",
        kind: "overlong",
    },
    Trick {
        name: "CESU-8 pair",
        raw: b"\xED\xA0\x80\xED\xB0\x80",
        percent: "%ED%A0%80%ED%B0%80",
        kind: "cesu8_pair",
    },
    Trick {
        name: "NUL",
        raw: b"\x00",
        percent: "%00",
        kind: "nul",
    },
    Trick {
        name: "lone surrogate",
        raw: b"\xED\xA0\x80",
        percent: "%ED%A0%80",
        kind: "surrogate",
    },
    Trick {
        name: "bidi override",
        raw: "\u{202E}".as_bytes(),
        percent: "%E2%80%AE",
        kind: "bidi_control",
    },
];

/// What a request should come to: utf8gate's denial naming `kind`, Envoy's own 400, or
/// allowed with `kind` logged (the profile's action in bodies).
enum Expect {
    Denied(&'static str),
    EnvoyRefuses,
    Logged(&'static str),
}

/// Every trick in every place, each request with what it should come to.
fn tricky_requests() -> Vec<(String, Vec<u8>, Expect)> {
    let mut out = Vec::new();
    let wrap = |t: &[u8]| [&b"x"[..], t, b"y"].concat();
    for t in TRICKS {
        let pct = t.percent;
        let raw = wrap(t.raw);
        let denied = || Expect::Denied(t.kind);
        // In bodies, what `strict` does with the character.
        let in_body = || match t.kind {
            "bidi_control" => Expect::Logged(t.kind),
            kind => Expect::Denied(kind),
        };
        let mut path_raw = b"GET /p/".to_vec();
        path_raw.extend(&raw);
        path_raw.extend(b" HTTP/1.1\r\nHost: e2e.test\r\nConnection: close\r\n\r\n");
        let mut query_raw = b"GET /q?v=".to_vec();
        query_raw.extend(&raw);
        query_raw.extend(b" HTTP/1.1\r\nHost: e2e.test\r\nConnection: close\r\n\r\n");
        let header = match t.raw {
            b"\x00" => Expect::EnvoyRefuses,
            _ => denied(),
        };
        let mut json = b"{\"v\":\"".to_vec();
        json.extend(&raw);
        json.extend(b"\"}");
        let form_raw = [&b"v="[..], &raw].concat();
        let multipart = [
            &b"--b0\r\nContent-Disposition: form-data; name=\"v\"\r\n\r\n"[..],
            &raw,
            b"\r\n--b0--\r\n",
        ]
        .concat();
        let cases = [
            (
                "path, percent-encoded",
                get(&format!("/p/x{pct}y")),
                denied(),
            ),
            (
                "query, percent-encoded",
                get(&format!("/q?v=x{pct}y")),
                denied(),
            ),
            ("path, raw", path_raw, Expect::EnvoyRefuses),
            ("query, raw", query_raw, Expect::EnvoyRefuses),
            (
                "header",
                request("GET", "/h", &[("X-Name", &raw)], b""),
                header,
            ),
            (
                "JSON body",
                post("/j", "application/json", &json),
                in_body(),
            ),
            (
                "form body, percent-encoded",
                post("/f", FORM, format!("v=x{pct}y").as_bytes()),
                in_body(),
            ),
            ("form body, raw", post("/f", FORM, &form_raw), in_body()),
            ("multipart", post("/m", MULTIPART, &multipart), in_body()),
        ];
        for (place, bytes, expect) in cases {
            out.push((format!("{} in the {place}", t.name), bytes, expect));
        }
    }
    // JSON's own escapes of the same characters.
    for (escape, kind) in [
        ("\\u0000", "nul"),
        ("\\ud800", "escaped_surrogate"),
        ("\\u202e", "bidi_control"),
    ] {
        let json = format!("{{\"v\":\"x{escape}y\"}}");
        let bytes = post("/j", "application/json", json.as_bytes());
        let expect = match kind {
            "bidi_control" => Expect::Logged(kind),
            kind => Expect::Denied(kind),
        };
        out.push((format!("JSON {escape}"), bytes, expect));
    }
    out
}

const FORM: &str = "application/x-www-form-urlencoded";
const MULTIPART: &str = "multipart/form-data; boundary=b0";

fn get(target: &str) -> Vec<u8> {
    request("GET", target, &[("Connection", b"close")], b"")
}

async fn every_trick_in_every_place_is_denied(mode: Mode) {
    let Some(front) = Box::pin(Front::start(mode)).await else {
        return;
    };
    let cases = tricky_requests();
    let (mut envoy_refused, mut logged) = (0, 0);
    for (what, bytes, expect) in &cases {
        let asked_before = front.asked().len();
        let response = front.send(bytes).await;
        let received = front.received();
        match expect {
            Expect::Denied(kind) => {
                let verdict = assert_rejected(&response, 403);
                assert!(
                    kinds(&verdict).contains(kind),
                    "{mode:?}, {what}: {:?}",
                    kinds(&verdict)
                );
            }
            Expect::EnvoyRefuses => {
                assert_envoy_refused(&response, what);
                assert_eq!(
                    front.asked().len(),
                    asked_before,
                    "{what}: utf8gate was asked"
                );
                envoy_refused += 1;
            }
            Expect::Logged(kind) => {
                assert_eq!(
                    response.status,
                    200,
                    "{mode:?}, {what}: {}",
                    response.text()
                );
                let through = received
                    .last()
                    .expect("the request reached the application");
                assert!(bytes.ends_with(&through.body), "{what}: the body as sent");
                let id = through.header("x-request-id").expect("Envoy's request id");
                let line = front.gw.audit_line(&String::from_utf8_lossy(id)).await;
                assert_eq!(line["decision"], "allow", "{what}: {line}");
                assert_eq!(line["kinds"], *kind, "{what}: {line}");
                logged += 1;
            }
        }
        assert_eq!(
            received.len(),
            logged,
            "{mode:?}, {what}: reached the application"
        );
    }
    assert_eq!(
        envoy_refused,
        2 * TRICKS.len() + 1,
        "raw targets and the NUL header"
    );
    assert_eq!(
        logged, 5,
        "bidi controls in the four bodies and JSON's \\u202e"
    );
    assert_eq!(
        front.asked().len(),
        cases.len() - envoy_refused,
        "every other request was asked about"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envoy_http_passes_clean_non_ascii_byte_identical() {
    clean_requests_reach_the_application_byte_identical(Mode::Http).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envoy_grpc_passes_clean_non_ascii_byte_identical() {
    clean_requests_reach_the_application_byte_identical(Mode::Grpc).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envoy_http_denies_every_trick_in_every_place() {
    every_trick_in_every_place_is_denied(Mode::Http).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envoy_grpc_denies_every_trick_in_every_place() {
    every_trick_in_every_place_is_denied(Mode::Grpc).await;
}
