//! HTTP/2 over cleartext (h2c, prior knowledge) on the proxy and API listeners: a real client
//! (`curl --http2-prior-knowledge`) for allow, sanitize and reject; raw frames ([`H2Raw`]) for
//! raw header bytes, a `Host` that differs from `:authority`, and the rapid-reset pattern.

use std::time::Duration;

use utf8gate_e2e::{
    CurlResponse, Gateway, H2Raw, STATUS_HEADER, Upstream, curl_h2, curl_tool, exchange, get,
    request,
};

use crate::support::*;

/// HPACK static-table indices of the response's first field, as [`H2Raw`] reads it.
const STATUS_200: u8 = 0x88;
const STATUS_400: u8 = 0x8c;
/// Error codes (RFC 9113 §7).
const PROTOCOL_ERROR: u32 = 0x1;
const ENHANCE_YOUR_CALM: u32 = 0xb;

/// The verdict's kinds in a problem+json body.
fn body_kinds(body: &[u8]) -> Vec<String> {
    let json: serde_json::Value = serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(body)));
    kinds(&verdict_of(&json))
        .into_iter()
        .map(str::to_string)
        .collect()
}

fn assert_h2(response: &CurlResponse, status: u16) {
    assert_eq!(
        (response.status, response.version.as_str()),
        (status, "2"),
        "{}",
        String::from_utf8_lossy(&response.body)
    );
}

// =============================================================================================
// HTTP/2: allow, sanitize, reject with a real client
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h2_allow_forwards_byte_for_byte_over_http1_with_the_authority_as_host() {
    let Some(curl) = curl_tool() else { return };
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    let target = "/wiki/%E6%97%A5%E6%9C%AC%E8%AA%9E?city=%D0%9C%D0%BE%D1%81%D0%BA%D0%B2%D0%B0&n=1";
    let body = "{\"de\":\"Grüße aus Köln\",\"ja\":\"こんにちは世界\",\"emoji\":\"🦀 ✓\"}";

    let response = curl_h2(
        &curl,
        gw.proxy,
        target,
        &[
            "-X",
            "PUT",
            "-H",
            "Content-Type: application/json; charset=utf-8",
            "-H",
            "X-Greeting: Grüße, 日本語",
            "-H",
            &format!("{STATUS_HEADER}: 201"),
            "--data-binary",
            body,
        ],
    )
    .await;

    assert_h2(&response, 201);
    assert_eq!(response.body, body.as_bytes());
    let records = upstream.records();
    assert_eq!(records.len(), 1);
    let got = &records[0];
    assert_eq!(
        (
            got.method.as_str(),
            got.target.as_str(),
            got.version.as_str()
        ),
        ("PUT", target, "HTTP/1.1")
    );
    assert_eq!(got.body, body.as_bytes());
    let authority = gw.proxy.to_string();
    assert_eq!(got.header("host"), Some(authority.as_bytes()));
    assert_eq!(got.header("x-greeting"), Some("Grüße, 日本語".as_bytes()));
    assert_eq!(
        got.header("content-length"),
        Some(body.len().to_string().as_bytes())
    );
    let metrics = gw.metrics().await;
    assert_eq!(
        metrics.value(r#"utf8gate_protocol_requests_total{protocol="http2"}"#),
        1.0
    );
    assert_eq!(
        metrics.value(r#"utf8gate_requests_total{decision="allow",mode="proxy",route="default"}"#),
        1.0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h2_sanitize_forwards_nfc_text() {
    let Some(curl) = curl_tool() else { return };
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;

    let args = [
        "-H",
        "Content-Type: text/plain",
        "--data-binary",
        "cafe\u{301}",
    ];
    let response = curl_h2(&curl, gw.proxy, "/notes", &args).await;

    assert_h2(&response, 200);
    assert_eq!(response.body, "café".as_bytes());
    let records = upstream.records();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].body, b"caf\xC3\xA9");
    assert_eq!(records[0].header("content-length"), Some(&b"5"[..]));
    assert_eq!(
        records[0].header("utf8gate-decision"),
        Some(&b"sanitize"[..])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h2_reject_an_overlong_traversal_forwarding_nothing() {
    let Some(curl) = curl_tool() else { return };
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;

    let response = curl_h2(&curl, gw.proxy, "/files/%c0%ae%c0%ae/etc/passwd", &[]).await;

    assert_h2(&response, 400);
    let kinds = body_kinds(&response.body);
    assert!(kinds.iter().any(|k| k == "overlong"), "{kinds:?}");
    assert_eq!(upstream.count(), 0, "nothing reached the upstream");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h2_on_the_api_listener_and_off_with_listen_http2_false() {
    let Some(curl) = curl_tool() else { return };
    let gw = Gateway::start("", None).await;
    let args = ["-H", "Content-Type: text/plain", "--data-binary", "Grüße"];
    let response = curl_h2(&curl, gw.api, "/v1/scan", &args).await;
    assert_h2(&response, 200);

    let off = Gateway::start("[listen]\nhttp2 = false\n", None).await;
    let response = curl_h2(&curl, off.api, "/v1/scan", &args).await;
    assert_ne!(response.version, "2", "no HTTP/2 with listen.http2 = false");
    assert_ne!(response.status, 200);
    let http1 = exchange(
        off.api,
        &request(
            "POST",
            "/v1/scan",
            &[("Content-Type", b"text/plain")],
            "Grüße".as_bytes(),
        ),
    )
    .await;
    assert_eq!(http1.status, 200, "{}", http1.text());
}

// New real-client tests go here.

// =============================================================================================
// HTTP/2: raw frames (header bytes, two authorities, rapid reset)
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h2_raw_header_bytes_are_judged_as_over_http1() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    let authority = gw.proxy.to_string();
    // An overlong '.' and a CESU-8 pair: bytes >= 0x80 that h2 carries as they are.
    let value: &[u8] = b"a\xC0\xAE\xED\xA0\xBD\xED\xB8\x80";

    let mut h2 = H2Raw::connect(gw.proxy).await;
    let headers: [(&str, &[u8]); 5] = [
        (":method", b"GET"),
        (":scheme", b"http"),
        (":path", b"/"),
        (":authority", authority.as_bytes()),
        ("x-name", value),
    ];
    h2.request(1, &headers, b"").await;
    let over_h2 = h2.read(Duration::from_secs(10)).await;
    let over_http1 = exchange(gw.proxy, &request("GET", "/", &[("X-Name", value)], b"")).await;

    assert_eq!(over_h2.status_byte, Some(STATUS_400), "{over_h2:?}");
    let verdict = assert_rejected(&over_http1, 400);
    let mut h2_kinds = body_kinds(&over_h2.body);
    let mut http1_kinds: Vec<String> = kinds(&verdict).into_iter().map(str::to_string).collect();
    h2_kinds.sort();
    http1_kinds.sort();
    assert!(h2_kinds.iter().any(|k| k == "overlong"), "{h2_kinds:?}");
    assert_eq!(
        h2_kinds, http1_kinds,
        "the same findings over both protocols"
    );
    assert_eq!(upstream.count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h2_a_host_header_that_differs_from_the_authority_is_refused() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    let authority = gw.proxy.to_string();
    let proxy = gw.proxy;
    let request_with = |host: &'static [u8]| {
        let authority = authority.clone();
        async move {
            let mut h2 = H2Raw::connect(proxy).await;
            let headers: [(&str, &[u8]); 5] = [
                (":method", b"GET"),
                (":scheme", b"http"),
                (":path", b"/two"),
                (":authority", authority.as_bytes()),
                ("host", host),
            ];
            h2.request(1, &headers, b"").await;
            h2.read(Duration::from_secs(10)).await
        }
    };

    let two = request_with(b"other.example").await;
    assert_eq!(two.status_byte, Some(STATUS_400), "{two:?}");
    let text = String::from_utf8_lossy(&two.body);
    assert!(text.contains(":authority"), "{text}");
    assert_eq!(upstream.count(), 0);

    let same = request_with(b"127.0.0.1").await;
    let same_authority = authority.as_bytes().to_vec();
    assert_eq!(
        same.status_byte,
        Some(STATUS_400),
        "the port is part of the authority"
    );
    let mut h2 = H2Raw::connect(gw.proxy).await;
    let headers: [(&str, &[u8]); 5] = [
        (":method", b"GET"),
        (":scheme", b"http"),
        (":path", b"/same"),
        (":authority", &same_authority),
        ("host", &same_authority),
    ];
    h2.request(1, &headers, b"").await;
    let agreeing = h2.read(Duration::from_secs(10)).await;
    assert_eq!(agreeing.status_byte, Some(STATUS_200), "{agreeing:?}");
    assert_eq!(upstream.count(), 1);
    assert_eq!(
        upstream.records()[0].header("host"),
        Some(&same_authority[..])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h2_rapid_reset_closes_the_connection_and_others_are_still_served() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    let authority = gw.proxy.to_string();

    let mut attacker = H2Raw::connect(gw.proxy).await;
    attacker.rapid_reset(&authority, 1000).await;
    let read = attacker.read(Duration::from_secs(10)).await;

    assert_eq!(read.goaway, Some(ENHANCE_YOUR_CALM), "{read:?}");
    assert!(read.closed, "the connection was closed: {read:?}");
    // Other clients are served, over HTTP/1.1 and HTTP/2.
    let http1 = exchange(gw.proxy, &get("/after")).await;
    assert_eq!(http1.status, 200, "{}", http1.text());
    let mut h2 = H2Raw::connect(gw.proxy).await;
    let headers: [(&str, &[u8]); 4] = [
        (":method", b"GET"),
        (":scheme", b"http"),
        (":path", b"/after-h2"),
        (":authority", authority.as_bytes()),
    ];
    h2.request(1, &headers, b"").await;
    let after = h2.read(Duration::from_secs(10)).await;
    assert_eq!(after.status_byte, Some(STATUS_200), "{after:?}");
    assert!(
        upstream.count() < 1000,
        "the reset streams were not all served"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h2_malformed_fields_and_long_header_lists_are_refused() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("[limits]\nmax_header_bytes = 4096\n", Some(&upstream.url())).await;
    let authority = gw.proxy.to_string();
    let send = |extra: (&'static str, Vec<u8>)| {
        let authority = authority.clone();
        let proxy = gw.proxy;
        async move {
            let mut h2 = H2Raw::connect(proxy).await;
            let headers: [(&str, &[u8]); 5] = [
                (":method", b"GET"),
                (":scheme", b"http"),
                (":path", b"/"),
                (":authority", authority.as_bytes()),
                (extra.0, &extra.1),
            ];
            h2.request(1, &headers, b"").await;
            h2.read(Duration::from_secs(10)).await
        }
    };
    // Connection-specific fields, an uppercase name, a CR in a value: malformed HTTP/2.
    for (name, value) in [
        ("connection", b"close".to_vec()),
        ("te", b"gzip".to_vec()),
        ("X-Upper", b"1".to_vec()),
        ("x-cr", b"a\rb".to_vec()),
    ] {
        let read = send((name, value)).await;
        // The stream is reset, or (an uppercase name) the whole connection closed.
        let refused = read.reset == Some(PROTOCOL_ERROR) || read.goaway == Some(PROTOCOL_ERROR);
        assert!(refused, "{name}: {read:?}");
        eprintln!("{name}: reset {:?}, goaway {:?}", read.reset, read.goaway);
        assert_eq!(read.status_byte, None, "{name}: no response");
    }
    // 10 KiB of header (4 KiB allowed) in one HEADERS frame: 431, a literal `:status` (static
    // name 8) whose value is Huffman-coded: "431" is 011010 011001 00001 and the EOS padding.
    let read = send(("x-big", vec![b'a'; 10 * 1024])).await;
    assert!(
        read.head.starts_with(&[0x48, 0x83, 0x69, 0x90, 0xff]),
        "{read:?}"
    );
    // 20 KiB in HEADERS + CONTINUATION frames: the connection is closed once the block is over
    // the limit (a CONTINUATION flood ends there).
    let read = send(("x-big", vec![b'a'; 20 * 1024])).await;
    assert_eq!(read.goaway, Some(ENHANCE_YOUR_CALM), "{read:?}");
    assert!(read.closed);
    assert_eq!(upstream.count(), 0);
    let ok = send(("x-fine", b"Gr\xC3\xBC\xC3\x9Fe".to_vec())).await;
    assert_eq!(ok.status_byte, Some(STATUS_200), "{ok:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_stalled_inside_the_preface_is_closed_after_the_head_timeout() {
    let gw = Gateway::start("[limits]\nheader_read_timeout_seconds = 0.5\n", None).await;
    let mut stalled = tokio::net::TcpStream::connect(gw.api)
        .await
        .expect("connect");
    tokio::io::AsyncWriteExt::write_all(&mut stalled, b"PRI * HTTP/2.0\r\n")
        .await
        .expect("write");
    let mut buf = [0u8; 64];
    let read = tokio::time::timeout(
        Duration::from_secs(5),
        tokio::io::AsyncReadExt::read(&mut stalled, &mut buf),
    )
    .await;
    assert!(
        matches!(read, Ok(Ok(0)) | Ok(Err(_))),
        "closed within the head timeout: {read:?}"
    );
}

// New raw-frame tests go here.

// =============================================================================================
// HTTP/2 to the upstream (upstream.http2)
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_http2_forwards_over_h2c() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("[upstream]\nhttp2 = true\n", Some(&upstream.url())).await;
    let body = "Grüße".as_bytes();

    let response = exchange(
        gw.proxy,
        &request(
            "POST",
            "/h2c?q=%C3%BC",
            &[("Content-Type", b"text/plain")],
            body,
        ),
    )
    .await;

    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(response.body, body);
    let records = upstream.records();
    assert_eq!(records.len(), 1);
    assert_eq!(
        (records[0].version.as_str(), records[0].target.as_str()),
        ("HTTP/2.0", "/h2c?q=%C3%BC")
    );
    assert_eq!(records[0].body, body);
}

// New upstream h2c tests go here.
