//! The proxy's verdicts, the table every embedding of the policy is held to: the proxy-wasm
//! filter inside a real Envoy (`fronts::envoy_wasm`) and the tower layer inside an axum app
//! (`embedded::tower`). Each case is sent as raw bytes to the proxy listener and to the
//! embedding; what the client got and what the application received must be the same: the
//! status, a refusal's problem (type, detail), a forwarded request's target, body and
//! `Content-Length`.

mod tower;
use std::net::SocketAddr;

use utf8gate_e2e::{Upstream, exchange, request};

/// The proxy's default `limits.max_body_bytes`, the filter's and the layer's default limit.
pub(crate) const MAX_BODY_BYTES: usize = 8 << 20;

const NFD: &str = "Cafe\u{301} cre\u{300}me";

/// One case: a name and the raw request (`Connection: close`).
pub(crate) struct Case {
    /// What it shows.
    pub(crate) name: &'static str,
    /// The request's bytes.
    pub(crate) bytes: Vec<u8>,
}

fn case(
    name: &'static str,
    method: &str,
    target: &str,
    headers: &[(&str, &[u8])],
    body: &[u8],
) -> Case {
    let mut all = headers.to_vec();
    all.push(("Connection", b"close"));
    Case {
        name,
        bytes: request(method, target, &all, body),
    }
}

/// The table: allow, sanitize (to NFC: query, JSON body, text body; a header kept), reject (the
/// problem page: overlong traversal, an escaped lone surrogate, CESU-8 in a form, a raw bad
/// byte in a header), and a body past the limit.
pub(crate) fn cases() -> Vec<Case> {
    let json: &[u8] = b"application/json";
    let text: &[u8] = b"text/plain; charset=utf-8";
    let form: &[u8] = b"application/x-www-form-urlencoded";
    let nfd_json = format!("{{\"name\":\"{NFD}\",\"tags\":[\"ok\"]}}");
    vec![
        case(
            "clean GET",
            "GET",
            "/search?q=%E6%97%A5%E6%9C%AC%20caf%C3%A9",
            &[],
            b"",
        ),
        case(
            "clean JSON",
            "POST",
            "/notes",
            &[("Content-Type", json)],
            "{\"title\":\"Привет, 世界 🎉\"}".as_bytes(),
        ),
        case("NFD query", "GET", "/search?q=cafe%CC%81", &[], b""),
        case(
            "NFD JSON body",
            "POST",
            "/notes",
            &[("Content-Type", json)],
            nfd_json.as_bytes(),
        ),
        case(
            "NFD text body",
            "POST",
            "/notes",
            &[("Content-Type", text)],
            NFD.as_bytes(),
        ),
        case(
            "NFD header",
            "GET",
            "/h",
            &[("X-Note", NFD.as_bytes())],
            b"",
        ),
        case(
            "overlong traversal",
            "GET",
            "/files/%c0%ae%c0%ae/etc/passwd",
            &[],
            b"",
        ),
        case(
            "lone surrogate escape",
            "POST",
            "/notes",
            &[("Content-Type", json)],
            b"{\"a\":\"\\ud800\"}",
        ),
        case(
            "CESU-8 form",
            "POST",
            "/f",
            &[("Content-Type", form)],
            b"a=%ED%A0%BD%ED%B8%80",
        ),
        case(
            "raw bad header byte",
            "GET",
            "/h",
            &[("X-Note", b"a\xC0\xAFb")],
            b"",
        ),
        case(
            "body past the limit",
            "POST",
            "/big",
            &[("Content-Type", text)],
            &vec![b'a'; MAX_BODY_BYTES + 1],
        ),
    ]
}

/// What one case came to, as the client and the application saw it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Seen {
    /// Refused: nothing reached the application.
    Refused {
        /// The status.
        status: u16,
        /// The problem's `type`.
        kind: String,
        /// The problem's `detail`.
        detail: String,
    },
    /// Forwarded: what the application received.
    Forwarded {
        /// The target.
        target: String,
        /// The body.
        body: Vec<u8>,
        /// Its `Content-Length`, when it had one.
        length: Option<Vec<u8>>,
        /// Its `X-Note` header (the header case's).
        note: Option<Vec<u8>>,
    },
}

/// Sends `case` to `addr` and reads what the client and `app` (the application behind it) saw.
pub(crate) async fn observe(addr: SocketAddr, app: &Upstream, case: &Case) -> Seen {
    let before = app.count();
    let response = Box::pin(exchange(addr, &case.bytes)).await;
    let records = app.records();
    let received = &records[before.min(records.len())..];
    if response.is_problem() {
        assert!(received.is_empty(), "{}: refused and forwarded", case.name);
        let json = response.json();
        return Seen::Refused {
            status: response.status,
            kind: json["type"].as_str().unwrap_or_default().to_string(),
            detail: json["detail"].as_str().unwrap_or_default().to_string(),
        };
    }
    assert_eq!(response.status, 200, "{}: {}", case.name, response.text());
    let [got] = received else {
        panic!(
            "{}: {} requests reached the application",
            case.name,
            received.len()
        );
    };
    Seen::Forwarded {
        target: got.target.clone(),
        body: got.body.clone(),
        length: got.header("content-length").map(<[u8]>::to_vec),
        note: got.header("x-note").map(<[u8]>::to_vec),
    }
}

/// Every case through the proxy listener of a gateway in front of its own application.
pub(crate) async fn through_the_proxy() -> Vec<Seen> {
    let app = Upstream::start().await;
    let gw = Box::pin(utf8gate_e2e::Gateway::start("", Some(&app.url()))).await;
    let mut seen = Vec::new();
    for case in cases() {
        seen.push(observe(gw.proxy, &app, &case).await);
    }
    seen
}

/// `through` is what the proxy saw, case by case; and the table reaches allow, sanitize
/// and reject (the proxy's own answers, so that a table that stopped testing fails here).
pub(crate) fn assert_same(embedding: &str, proxy: &[Seen], through: &[Seen]) {
    for ((case, p), t) in cases().iter().zip(proxy).zip(through) {
        assert_eq!(p, t, "{embedding}: {}", case.name);
    }
    assert_eq!(proxy.len(), through.len());
    let refused = proxy
        .iter()
        .filter(|s| matches!(s, Seen::Refused { .. }))
        .count();
    let all = cases();
    let rewritten = all.iter().zip(proxy).filter(|(c, s)| match s {
        Seen::Forwarded {
            target, body, note, ..
        } => {
            let sent = String::from_utf8_lossy(&c.bytes);
            let note_kept = note
                .as_ref()
                .is_none_or(|n| sent.contains(&*String::from_utf8_lossy(n)));
            !sent.contains(target.as_str()) || !c.bytes.ends_with(body) || !note_kept
        }
        Seen::Refused { .. } => false,
    });
    assert_eq!(refused, 5, "{proxy:?}");
    assert_eq!(rewritten.count(), 3, "{proxy:?}");
}
