//! One reading of every request: coded bodies judged by what they decode to, requests with two
//! readings (repeated headers and parameters, multipart ambiguities, path parameters) refused
//! before anything reaches the upstream, benign ones forwarded byte for byte; and the
//! forwarding headers the proxy sends, kept from trusted proxies only.

use utf8gate_e2e::{Gateway, Upstream, exchange, request};

use crate::support::*;

mod codings;
mod forwarding;
mod head;
mod headers;
mod structured;
mod yaml;

/// A recording upstream and a gateway in front of it, configured with `toml`.
async fn start(toml: &str) -> (Upstream, Gateway) {
    let upstream = Upstream::start().await;
    let gw = Gateway::start(toml, Some(&upstream.url())).await;
    (upstream, gw)
}

/// Sends `sent`; asserts a rejection with `status` whose verdict has `kind`, and that nothing
/// reached the upstream.
async fn assert_refused(
    gw: &Gateway,
    upstream: &Upstream,
    what: &str,
    sent: &[u8],
    status: u16,
    kind: &str,
) {
    let before = upstream.count();
    let response = exchange(gw.proxy, sent).await;
    assert_eq!(response.status, status, "{what}: {}", response.text());
    let verdict = assert_rejected(&response, status);
    assert!(
        kinds(&verdict).contains(&kind),
        "{what}: {kind} not in {:?}",
        kinds(&verdict)
    );
    assert_eq!(
        upstream.count(),
        before,
        "{what}: something reached the upstream"
    );
}

/// Sends `sent`; asserts a 200 and that the upstream got exactly `target` and `body`, with the
/// request's own headers (`headers`, by name) unchanged.
async fn assert_forwarded(
    gw: &Gateway,
    upstream: &Upstream,
    what: &str,
    sent: &[u8],
    (target, body): (&str, &[u8]),
    headers: &[(&str, &[u8])],
) {
    let before = upstream.count();
    let response = exchange(gw.proxy, sent).await;
    assert_eq!(response.status, 200, "{what}: {}", response.text());
    let records = upstream.records();
    assert_eq!(records.len(), before + 1, "{what}");
    let got = &records[before];
    assert_eq!(got.target, target, "{what}");
    assert_eq!(got.body, body, "{what}: the body changed");
    assert_eq!(got.header("utf8gate-decision"), None, "{what}: sanitized");
    for (name, value) in headers {
        assert_eq!(all(&got.headers, name), [value.to_vec()], "{what}: {name}");
    }
}

/// Every value of header `name`, in order.
fn all(headers: &[(String, Vec<u8>)], name: &str) -> Vec<Vec<u8>> {
    headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.clone())
        .collect()
}

// =============================================================================================
// Heads: singletons, parameters, Host
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heads_with_two_readings_are_refused() {
    let (upstream, gw) = start("").await;
    let two_hosts = request("GET", "/", &[("Host", b"other.test")], b"");
    assert_refused(
        &gw,
        &upstream,
        "two Host lines",
        &two_hosts,
        400,
        "repeated_header",
    )
    .await;
    let escaped = b"GET / HTTP/1.1\r\nHost: ex%61mple.com\r\n\r\n";
    assert_refused(
        &gw,
        &upstream,
        "escaped Host",
        escaped,
        400,
        "malformed_host",
    )
    .await;
    let two_types = request(
        "POST",
        "/",
        &[
            ("Content-Type", b"application/json"),
            ("Content-Type", b"text/plain"),
        ],
        b"{}",
    );
    assert_refused(
        &gw,
        &upstream,
        "two Content-Type lines",
        &two_types,
        400,
        "repeated_header",
    )
    .await;
    let body = b"--a\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n1\r\n--a--\r\n";
    let two_boundaries = request(
        "POST",
        "/",
        &[(
            "Content-Type",
            b"multipart/form-data; boundary=a; boundary=b",
        )],
        body,
    );
    assert_refused(
        &gw,
        &upstream,
        "two boundaries",
        &two_boundaries,
        400,
        "repeated_parameter",
    )
    .await;
}

// =============================================================================================
// Multipart
// =============================================================================================

const BOUNDARY: &str = "----WebKitFormBoundary7MA4YWxkTrZu0gW";

fn multipart(parts: &[&[u8]]) -> Vec<u8> {
    let mut body = Vec::new();
    for part in parts {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        body.extend_from_slice(part);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

fn upload(body: &[u8]) -> Vec<u8> {
    let content_type = format!("multipart/form-data; boundary={BOUNDARY}");
    request(
        "POST",
        "/upload",
        &[("Content-Type", content_type.as_bytes())],
        body,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ambiguous_multipart_parts_are_refused() {
    let (upstream, gw) = start("").await;
    let cases: [(&str, &[u8], &str); 4] = [
        (
            "two Content-Disposition lines",
            b"Content-Disposition: form-data; name=\"x\"\r\n\
              Content-Disposition: form-data; name=\"x\"; filename=\"..\xC0\xAF..\xC0\xAFpasswd\"\r\n\r\ndata",
            "repeated_header",
        ),
        (
            "RFC 2231 continuations",
            b"Content-Disposition: form-data; name=\"f\"; filename*0*=UTF-8''%2e%2e; filename*1*=%2fetc\r\n\r\ndata",
            "ambiguous_parameter",
        ),
        (
            "base64 part",
            b"Content-Disposition: form-data; name=\"f\"\r\nContent-Transfer-Encoding: base64\r\n\r\nLi7Ary4u",
            "transfer_encoded_part",
        ),
        (
            "octet-stream field without a filename",
            b"Content-Disposition: form-data; name=\"path\"\r\nContent-Type: application/octet-stream\r\n\r\n..\xC0\xAF..",
            "overlong",
        ),
    ];
    for (what, part, kind) in cases {
        assert_refused(
            &gw,
            &upstream,
            what,
            &upload(&multipart(&[part])),
            400,
            kind,
        )
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_upload_in_japanese_is_forwarded_byte_for_byte() {
    let (upstream, gw) = start("").await;
    let body = multipart(&[
        "Content-Disposition: form-data; name=\"title\"\r\n\r\n四半期レポート（第3四半期）"
            .as_bytes(),
        "Content-Disposition: form-data; name=\"file\"; filename=\"レポート.txt\"\r\n\
         Content-Type: text/plain\r\n\r\n売上は前年比で増加しました。\n"
            .as_bytes(),
    ]);
    let content_type = format!("multipart/form-data; boundary={BOUNDARY}");
    let sent = request(
        "POST",
        "/upload",
        &[
            ("Content-Type", content_type.as_bytes()),
            ("Origin", b"http://e2e.test"),
            ("User-Agent", b"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"),
            ("Accept", b"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"),
            ("Accept-Language", b"ja,en-US;q=0.9,en;q=0.8"),
        ],
        &body,
    );
    let same = [("content-type", content_type.as_bytes())];
    assert_forwarded(
        &gw,
        &upstream,
        "browser upload",
        &sent,
        ("/upload", &body),
        &same,
    )
    .await;
}

// =============================================================================================
// Paths and untyped bodies
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn path_parameters_that_hide_dot_segments_are_refused_and_others_forwarded() {
    let (upstream, gw) = start("").await;
    for target in ["/a/..;/admin", "/a/%2e%2e;x/admin"] {
        let sent = request("GET", target, &[], b"");
        assert_refused(&gw, &upstream, target, &sent, 400, "dot_segment").await;
    }
    let sent = request("GET", "/a;v=1/b", &[], b"");
    assert_forwarded(
        &gw,
        &upstream,
        "path parameter",
        &sent,
        ("/a;v=1/b", b""),
        &[],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_body_is_read_as_json_too() {
    let (upstream, gw) = start("").await;
    let sent = request(
        "POST",
        "/api",
        &[("Content-Type", b"text/plain")],
        br#"{"a":"\u0000"}"#,
    );
    assert_refused(
        &gw,
        &upstream,
        "escaped NUL in a text/plain JSON body",
        &sent,
        400,
        "nul",
    )
    .await;
}

// New readings tests go here.
