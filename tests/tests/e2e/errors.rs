//! Error answers: problem+json by default, an HTML page for clients that prefer `text/html`
//! (read back with Python's `html.parser`), `[errors] detail = "minimal"` and `html = false`,
//! on the proxy, API and authz listeners.

use std::time::Duration;

use utf8gate_e2e::{
    Gateway, ParsedHtml, RawResponse, Upstream, exchange, parse_html, poll_until, request,
};

use crate::support::*;

const FIREFOX: &[u8] = b"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'";
/// A client's request id as hostile as the id rules let through (printable ASCII).
const HOSTILE_ID: &str = "<script>alert(\"x\")</script>&amp;'";
/// An overlong traversal in the path; a query name with markup, a bidi override and a byte
/// that is not UTF-8 (the page shows it lossily decoded, the override as its code point).
const REJECTED: &str = "/a/%c0%ae%c0%ae/b?%3Cscript%3E%E2%80%AE%FF=1";
const MINIMAL: &str = "[errors]\ndetail = \"minimal\"\n";

async fn send(addr: std::net::SocketAddr, target: &str, accept: Option<&[u8]>) -> RawResponse {
    let mut headers: Vec<(&str, &[u8])> = vec![("X-Request-Id", HOSTILE_ID.as_bytes())];
    if let Some(accept) = accept {
        headers.push(("Accept", accept));
    }
    exchange(addr, &request("GET", target, &headers, b"")).await
}

/// Asserts an HTML error page with its security headers, and reads it with `html.parser`.
fn assert_page(response: &RawResponse, status: u16) -> ParsedHtml {
    assert_eq!(response.status, status, "{}", response.text());
    assert_eq!(
        response.header_str("content-type"),
        "text/html; charset=utf-8"
    );
    assert_eq!(response.header_str("content-security-policy"), CSP);
    assert_eq!(response.header_str("x-content-type-options"), "nosniff");
    assert_eq!(response.header_str("vary"), "accept");
    let body = std::str::from_utf8(&response.body).expect("the page is UTF-8");
    assert!(
        !body.contains('\u{202e}'),
        "a bidi override reached the page: {body}"
    );
    let page = parse_html(&response.body);
    for (tag, attrs) in &page.elements {
        assert!(
            ![
                "script", "iframe", "object", "embed", "img", "link", "form", "base"
            ]
            .contains(&tag.as_str()),
            "<{tag}> in {body}"
        );
        for (name, _) in attrs {
            assert!(
                !name.starts_with("on") && name != "src" && name != "href",
                "{name} on <{tag}>"
            );
        }
    }
    assert!(page.other.is_empty(), "{:?}", page.other);
    assert!(page.has("html") && page.has("title"));
    let html = &page.elements[0];
    assert_eq!(html.1, [("lang".to_string(), Some("en".to_string()))]);
    assert!(page.elements.iter().any(
        |(t, a)| t == "meta" && a.contains(&("charset".to_string(), Some("utf-8".to_string())))
    ));
    assert_eq!(
        page.id("request-id"),
        HOSTILE_ID,
        "the id reads back as sent"
    );
    assert_eq!(
        page.id("request-id"),
        response.header_str("utf8gate-request-id")
    );
    page
}

// =============================================================================================
// Negotiation
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_gets_a_page_and_programs_get_problem_json_from_the_proxy() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;

    let json = send(gw.proxy, REJECTED, Some(b"application/json")).await;
    let verdict = assert_rejected(&json, 400);
    assert_eq!(json.header_str("vary"), "accept");
    for accept in [
        None,
        Some(&b"*/*"[..]),
        Some(b"text/html;q=0"),
        Some(b"text/html, application/problem+json"),
    ] {
        let response = send(gw.proxy, REJECTED, accept).await;
        assert_rejected(&response, 400);
    }

    let response = send(gw.proxy, REJECTED, Some(FIREFOX)).await;
    let page = assert_page(&response, 400);
    assert_eq!(page.title, "400 Request rejected by utf8gate");
    assert_eq!(page.id("title"), "Request rejected by utf8gate");
    assert_eq!(page.id("status"), "HTTP 400 Bad Request");
    let items = page.elements.iter().filter(|(t, _)| t == "li").count();
    assert_eq!(
        items,
        kinds(&verdict).len(),
        "one sentence per kind: {:?}",
        page.id("detail")
    );
    let detail = page.id("detail");
    assert!(detail.contains("The path contains an overlong UTF-8 sequence (bytes C0 AE), which some servers read as '.'."), "{detail}");
    assert!(
        detail.contains("The query parameter name \"<script>U+202E\u{fffd}\" contains"),
        "{detail}"
    );
    assert_eq!(upstream.count(), 0, "nothing reached the upstream");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_answers_a_browser_with_a_page_whose_detail_is_escaped() {
    let gw = Gateway::start("", None).await;
    // The unknown profile's name is the client's: markup, a quote, a bidi override, a bad byte.
    let target = "/v1/scan?profile=%3Cscript%3E%26%27%22%E2%80%AE%FF";
    let json = exchange(
        gw.api,
        &request("POST", target, &[("Accept", b"application/json")], b"x"),
    )
    .await;
    assert_problem(&json, 400, "unknown-profile");
    let detail = json.json()["detail"]
        .as_str()
        .unwrap_or_default()
        .to_string();

    let headers: [(&str, &[u8]); 2] =
        [("Accept", FIREFOX), ("X-Request-Id", HOSTILE_ID.as_bytes())];
    let response = exchange(gw.api, &request("POST", target, &headers, b"x")).await;
    let page = assert_page(&response, 400);
    // The detail as a sentence, its bidi override (escaped by the detail itself) kept as text.
    let mut sentence = detail.clone();
    sentence[..1].make_ascii_uppercase();
    sentence.push('.');
    assert!(
        detail.starts_with("no profile named \"<script>&'"),
        "{detail}"
    );
    assert_eq!(page.id("detail"), sentence);
    let expected = format!(
        "Unknown profile HTTP 400 Bad Request What was wrong: {sentence} Request id: {HOSTILE_ID} \
         Quote the request id when you report this error."
    );
    assert_eq!(page.text, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authz_denials_follow_the_forwarded_accept() {
    let gw = Gateway::start("", None).await;
    let forward = |accept: &'static [u8]| {
        request(
            "GET",
            "/authz/forward",
            &[
                ("X-Original-URI", b"/a/%c0%ae%c0%ae/b"),
                ("Accept", accept),
                ("X-Request-Id", HOSTILE_ID.as_bytes()),
            ],
            b"",
        )
    };
    // Traefik's ForwardAuth sends the client's headers, Accept included, and returns a denial's
    // body to the client: a browser sees the page.
    let page = assert_page(&exchange(gw.api, &forward(FIREFOX)).await, 403);
    assert_eq!(page.id("status"), "HTTP 403 Forbidden");
    assert!(page.id("detail").contains("overlong UTF-8 sequence"));
    assert_rejected(&exchange(gw.api, &forward(b"*/*")).await, 403);
    // Envoy sends only the headers `allowed_headers` lets through (by default no Accept):
    // without Accept, problem+json.
    let envoy = request("GET", "/authz/envoy/a/%c0%ae%c0%ae/b", &[], b"");
    assert_rejected(&exchange(gw.api, &envoy).await, 403);
}

// =============================================================================================
// [errors] detail and html
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn minimal_detail_answers_type_title_status_and_id_and_keeps_the_audit_line() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start(MINIMAL, Some(&upstream.url())).await;

    let json = send(gw.proxy, REJECTED, None).await;
    assert_problem(&json, 400, "rejected");
    let body = json.json();
    let mut keys: Vec<&str> = body
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    keys.sort_unstable();
    assert_eq!(keys, ["request_id", "status", "title", "type"], "{body}");
    assert_eq!(body["request_id"], HOSTILE_ID);

    let page = assert_page(&send(gw.proxy, REJECTED, Some(FIREFOX)).await, 400);
    assert!(!page.ids.contains_key("detail"), "{:?}", page.ids);
    assert_eq!(
        page.text,
        format!(
            "Request rejected by utf8gate HTTP 400 Bad Request Request id: {HOSTILE_ID} \
                 Quote the request id when you report this error."
        )
    );
    let api = exchange(gw.api, &request("POST", "/v1/scan?profile=nope", &[], b"x")).await;
    assert_problem(&api, 400, "unknown-profile");
    assert!(api.json().get("detail").is_none(), "{}", api.text());

    // The audit line still says what was found.
    let mut lines = Vec::new();
    let found = poll_until(Duration::from_secs(5), || {
        lines = gw
            .log_records()
            .into_iter()
            .filter(|r| r["message"] == "request" && r["request_id"] == HOSTILE_ID)
            .collect();
        lines.len() >= 2
    })
    .await;
    assert!(found, "audit lines: {lines:?}");
    for line in &lines {
        assert_eq!(line["decision"], "reject");
        let kinds = line["kinds"].as_str().unwrap_or_default();
        assert!(kinds.split(',').any(|k| k == "overlong"), "{line}");
        assert!(kinds.split(',').any(|k| k == "bidi_control"), "{line}");
        assert!(line["findings"].as_u64().unwrap_or(0) >= 3, "{line}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn html_false_answers_problem_json_to_browsers_without_vary() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("[errors]\nhtml = false\n", Some(&upstream.url())).await;
    let targets = [
        (gw.proxy, "/a/%c0%ae%c0%ae/b"),
        (gw.api, "/authz/envoy/a/%c0%ae%c0%ae/b"),
    ];
    for (addr, target) in targets {
        let response = send(addr, target, Some(FIREFOX)).await;
        assert!(response.is_problem(), "{}", response.text());
        assert!(
            response.json()["verdict"].is_object(),
            "{}",
            response.text()
        );
        assert!(response.header("vary").is_none(), "{:?}", response.headers);
        assert!(response.header("content-security-policy").is_none());
    }
}

// New error answer tests go here.
