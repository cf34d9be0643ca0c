//! End-to-end tests: the real `utf8gate serve` process on loopback, a real upstream behind it,
//! and a raw HTTP/1.1 client that sends exactly the bytes each test needs.
//!
//! Layout: one section per area, in the order proxy (allow, sanitize, reject, upstream
//! failures), limits, API (scan, sanitize), authz, admin, shutdown. Each section ends with a
//! "New ... tests go here" signpost. Every wait is bounded (exchange timeouts, polls with a
//! deadline); no sleep is used to wait for something a poll can observe.

use std::time::{Duration, Instant};

use utf8gate_e2e::{
    DELAY_HEADER, Ending, Gateway, HungUpstream, RawConn, RawResponse, ResettingUpstream, Rng,
    STATUS_HEADER, Upstream, chunked_post, dead_addr, exchange, get, poll_until, request,
    try_exchange,
};
use utf8gate_policy::{Decision, Verdict};

/// The verdict inside a problem+json rejection or a `/v1/scan` answer.
fn verdict_of(value: &serde_json::Value) -> Verdict {
    let v = value.get("verdict").unwrap_or(value);
    serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("not a verdict ({e}): {v}"))
}

fn kinds(verdict: &Verdict) -> Vec<&str> {
    verdict.kinds()
}

/// Asserts a problem+json rejection with `status` and returns its verdict.
fn assert_rejected(response: &RawResponse, status: u16) -> Verdict {
    assert_eq!(response.status, status, "{}", response.text());
    assert!(
        response.is_problem(),
        "content-type {:?}",
        response.header_str("content-type")
    );
    let json = response.json();
    assert_eq!(json["type"], "urn:utf8gate:problem:rejected", "{json}");
    assert_eq!(json["status"], status, "{json}");
    assert_eq!(
        json["request_id"].as_str().unwrap_or_default(),
        response.header_str("utf8gate-request-id"),
        "the problem's request id is the header's"
    );
    let verdict = verdict_of(&json);
    assert_eq!(verdict.decision, Decision::Reject, "{json}");
    assert!(verdict.enforced);
    verdict
}

/// Asserts a problem+json with `status` and problem type `urn:utf8gate:problem:{slug}`.
fn assert_problem(response: &RawResponse, status: u16, slug: &str) {
    assert_eq!(response.status, status, "{}", response.text());
    assert!(
        response.is_problem(),
        "content-type {:?}",
        response.header_str("content-type")
    );
    let json = response.json();
    assert_eq!(
        json["type"],
        format!("urn:utf8gate:problem:{slug}"),
        "{json}"
    );
    assert_eq!(json["status"], status, "{json}");
}

fn sorted(mut headers: Vec<(String, Vec<u8>)>) -> Vec<(String, Vec<u8>)> {
    headers.sort();
    headers
}

fn owned(headers: &[(&str, &[u8])]) -> Vec<(String, Vec<u8>)> {
    headers
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_vec()))
        .collect()
}

// =============================================================================================
// Proxy: allow
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_forwards_a_multilingual_request_byte_for_byte() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    let target = "/wiki/%E6%97%A5%E6%9C%AC%E8%AA%9E/Gr%C3%BC%C3%9Fe\
                  ?city=%D0%9C%D0%BE%D1%81%D0%BA%D0%B2%D0%B0&q=%CE%BA%CE%B1%CE%BB%CE%AE&n=1";
    let body = "{\"de\":\"Grüße aus Köln\",\"ja\":\"こんにちは世界\",\"ar\":\"مرحبا بالعالم\",\
                \"he\":\"שלום עולם\",\"el\":\"Καλή μέρα\",\"hi\":\"नमस्ते\",\"emoji\":\"🦀 ✓\"}"
        .as_bytes();
    let greeting = "Grüße, 日本語, Ελληνικά".as_bytes();
    let sent = request(
        "PUT",
        target,
        &[
            ("Content-Type", b"application/json; charset=utf-8"),
            ("X-Greeting", greeting),
            ("X-Request-Id", b"e2e-allow-1"),
            (STATUS_HEADER, b"201"),
            // Hop-by-hop: Connection and what it names, TE, Keep-Alive.
            ("Connection", b"x-foo"),
            ("X-Foo", b"secret"),
            ("TE", b"trailers"),
            ("Keep-Alive", b"timeout=5"),
        ],
        body,
    );

    let response = exchange(gw.proxy, &sent).await;

    assert_eq!(response.status, 201, "{}", response.text());
    assert_eq!(response.body, body, "the client gets the upstream's body");
    assert_eq!(response.header_str("x-upstream"), "echo");
    assert_eq!(response.header_str("utf8gate-request-id"), "e2e-allow-1");
    let records = upstream.records();
    assert_eq!(records.len(), 1);
    let got = &records[0];
    assert_eq!(got.method, "PUT");
    assert_eq!(got.target, target);
    assert_eq!(got.body, body);
    let length = body.len().to_string();
    let expected = owned(&[
        ("host", b"e2e.test"),
        ("content-type", b"application/json; charset=utf-8"),
        ("x-greeting", greeting),
        ("x-request-id", b"e2e-allow-1"),
        (STATUS_HEADER, b"201"),
        ("content-length", length.as_bytes()),
        ("x-forwarded-for", b"127.0.0.1"),
        ("x-forwarded-proto", b"http"),
        ("x-forwarded-host", b"e2e.test"),
    ]);
    assert_eq!(
        sorted(got.headers.clone()),
        sorted(expected),
        "exactly these headers, raw bytes unchanged, hop-by-hop ones removed"
    );
    let metrics = gw.metrics().await;
    assert_eq!(
        metrics.value(r#"utf8gate_requests_total{decision="allow",mode="proxy"}"#),
        1.0
    );
}

// New allow / forwarding tests go here.

// =============================================================================================
// Proxy: sanitize
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sanitize_forwards_nfc_text_with_a_correct_length() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    let sent = request(
        "POST",
        "/notes",
        &[("Content-Type", b"text/plain")],
        "cafe\u{301}".as_bytes(),
    );

    let response = exchange(gw.proxy, &sent).await;

    assert_eq!(response.status, 200, "{}", response.text());
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
async fn sanitize_rewrites_one_json_string_and_keeps_every_other_byte() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    let before = "{\n  \"zeta\" : 1,\n\t\"name\":   \"cafe\u{301} noir\" ,\"a\":[ true , null ],\
                  \"same\": \"Grüße\"  }\n";
    let after = "{\n  \"zeta\" : 1,\n\t\"name\":   \"café noir\" ,\"a\":[ true , null ],\
                 \"same\": \"Grüße\"  }\n";
    let sent = request(
        "POST",
        "/api/items",
        &[("Content-Type", b"application/json")],
        before.as_bytes(),
    );

    let response = exchange(gw.proxy, &sent).await;

    assert_eq!(response.status, 200, "{}", response.text());
    let records = upstream.records();
    assert_eq!(records.len(), 1);
    assert_eq!(
        String::from_utf8_lossy(&records[0].body),
        after,
        "only the NFD string changed"
    );
    assert_eq!(records[0].body, after.as_bytes());
    let length = after.len().to_string();
    assert_eq!(records[0].header("content-length"), Some(length.as_bytes()));
    assert_eq!(
        records[0].header("utf8gate-decision"),
        Some(&b"sanitize"[..])
    );
}

// New sanitize tests go here.

// =============================================================================================
// Proxy: reject (nothing reaches the upstream)
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reject_overlong_traversal_cesu8_header_and_surrogates_forwarding_nothing() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    let cases: [(&str, Vec<u8>, &[&str]); 4] = [
        (
            "overlong traversal in the path",
            get("/files/%c0%ae%c0%ae/etc/passwd"),
            &["overlong", "traversal"],
        ),
        (
            "CESU-8 in a raw header value",
            request("GET", "/", &[("X-Name", b"\xED\xA0\xBD\xED\xB8\x80")], b""),
            &["cesu8_pair"],
        ),
        (
            "a raw lone surrogate in a JSON string",
            request(
                "POST",
                "/api",
                &[("Content-Type", b"application/json")],
                b"{\"a\":\"x\xED\xA0\x80y\"}",
            ),
            &["surrogate"],
        ),
        (
            "an escaped lone surrogate in a JSON string",
            request(
                "POST",
                "/api",
                &[("Content-Type", b"application/json")],
                br#"{"a":"x\ud83dy"}"#,
            ),
            &["escaped_surrogate"],
        ),
    ];
    for (what, sent, expected) in &cases {
        let response = exchange(gw.proxy, sent).await;
        let verdict = assert_rejected(&response, 400);
        for kind in *expected {
            assert!(
                kinds(&verdict).contains(kind),
                "{what}: {kind} not in {:?}",
                kinds(&verdict)
            );
        }
        assert_eq!(
            upstream.count(),
            0,
            "{what}: something reached the upstream"
        );
    }
    // The upstream was reachable all along: an allowed request does arrive.
    let response = exchange(gw.proxy, &get("/ok")).await;
    assert_eq!(response.status, 200);
    assert_eq!(upstream.count(), 1);
    assert_eq!(upstream.records()[0].target, "/ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_log_names_each_request_and_never_carries_the_offending_bytes() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    let raw: &[u8] = b"\xC0\xAE\xED\xA0\xBD\xED\xB8\x80\xF8\x88\x80\x80\x80";
    // Raw bytes in a header value and in the body (a raw byte in the request target never gets
    // this far: the HTTP/1.1 parser refuses a non-ASCII request line with a bare 400).
    let mut body = b"name=".to_vec();
    body.extend_from_slice(raw);
    let sent = request(
        "POST",
        "/files/%c0%ae%c0%ae/x",
        &[("X-Name", raw), ("Content-Type", b"text/plain")],
        &body,
    );

    let rejected = exchange(gw.proxy, &sent).await;
    let allowed = exchange(gw.proxy, &get("/ok")).await;

    assert_eq!(rejected.status, 400, "{}", rejected.text());
    assert_eq!(allowed.status, 200);
    let audit = async |response: &RawResponse| -> serde_json::Value {
        let id = response.header_str("utf8gate-request-id");
        assert!(!id.is_empty(), "no request id on the response");
        let mut found = None;
        assert!(
            poll_until(Duration::from_secs(5), || {
                found = gw
                    .log_records()
                    .into_iter()
                    .find(|r| r["message"] == "request" && r["request_id"] == id.as_str());
                found.is_some()
            })
            .await,
            "no audit line for request {id}"
        );
        found.unwrap_or_default()
    };
    let reject_line = audit(&rejected).await;
    assert_eq!(reject_line["decision"], "reject");
    assert_eq!(reject_line["mode"], "proxy");
    assert_eq!(reject_line["status"], 400);
    let kinds = reject_line["kinds"].as_str().unwrap_or_default();
    for kind in ["overlong", "cesu8_pair"] {
        assert!(
            kinds.split(',').any(|k| k == kind),
            "{kind} not in {kinds:?}"
        );
    }
    let allow_line = audit(&allowed).await;
    assert_eq!(allow_line["decision"], "allow");
    assert_eq!(allow_line["status"], 200);
    // Every line the process wrote is UTF-8 JSON, and none holds the raw bytes.
    for line in gw.logs() {
        assert!(
            std::str::from_utf8(&line).is_ok(),
            "a log line is not UTF-8: {line:?}"
        );
        assert!(
            serde_json::from_slice::<serde_json::Value>(&line).is_ok(),
            "a log line is not JSON: {}",
            String::from_utf8_lossy(&line)
        );
        assert!(
            !line.windows(2).any(|w| w == b"\xC0\xAE"),
            "the overlong bytes were logged raw"
        );
    }
}

// New reject tests go here.

// =============================================================================================
// Proxy: upstream failures
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusing_upstream_is_502_and_counted() {
    let dead = dead_addr().await;
    let gw = Gateway::start("", Some(&format!("http://{dead}"))).await;

    let response = exchange(gw.proxy, &get("/x")).await;

    assert_problem(&response, 502, "upstream-unavailable");
    let metrics = gw.metrics().await;
    assert_eq!(
        metrics.value(r#"utf8gate_upstream_errors_total{reason="connect"}"#),
        1.0,
        "{}",
        metrics.text
    );
    assert_eq!(
        metrics.value(r#"utf8gate_upstream_errors_total{reason="timeout"}"#),
        0.0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_upstream_is_504_after_the_response_timeout_and_counted() {
    let hung = HungUpstream::start().await;
    let gw = Gateway::start(
        "[upstream]\nresponse_timeout_seconds = 0.3\n",
        Some(&hung.url()),
    )
    .await;

    let started = Instant::now();
    let response = exchange(gw.proxy, &get("/x")).await;
    let elapsed = started.elapsed();

    assert_problem(&response, 504, "upstream-timeout");
    assert!(
        elapsed >= Duration::from_millis(250) && elapsed < Duration::from_secs(3),
        "answered after {elapsed:?}"
    );
    let metrics = gw.metrics().await;
    assert_eq!(
        metrics.value(r#"utf8gate_upstream_errors_total{reason="timeout"}"#),
        1.0,
        "{}",
        metrics.text
    );
    assert_eq!(
        metrics.value(r#"utf8gate_upstream_errors_total{reason="connect"}"#),
        0.0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_reset_before_its_response_head_is_502() {
    let resetting = ResettingUpstream::start(Vec::new()).await;
    let gw = Gateway::start("", Some(&resetting.url())).await;

    let response = exchange(gw.proxy, &get("/x")).await;

    assert_problem(&response, 502, "upstream-unavailable");
    let metrics = gw.metrics().await;
    assert_eq!(
        metrics.value(r#"utf8gate_upstream_errors_total{reason="connect"}"#),
        1.0,
        "{}",
        metrics.text
    );
}

/// Sends a GET through the proxy to an upstream that answers `head` and `sent` bytes of its
/// body, then resets; returns what the client received before its connection ended.
async fn through_a_mid_body_reset(head: &[u8], sent: &[u8]) -> (Vec<u8>, Gateway) {
    let mut reply = head.to_vec();
    reply.extend_from_slice(sent);
    let resetting = ResettingUpstream::start(reply).await;
    let gw = Gateway::start("", Some(&resetting.url())).await;
    let mut conn = RawConn::connect(gw.proxy).await.expect("connect");
    conn.write(&get("/big")).await.expect("write");
    let received = match conn.wait_for_end(Duration::from_secs(5)).await {
        Ending::Closed(r) | Ending::Reset(r, _) => r,
        Ending::StillOpen(r) => panic!(
            "the client connection stayed open after the upstream reset; received {:?}",
            String::from_utf8_lossy(&r)
        ),
    };
    (received, gw)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_reset_mid_body_cuts_the_client_short_of_its_content_length() {
    let sent = vec![b'a'; 1000];
    let (received, gw) = through_a_mid_body_reset(
        b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nContent-Type: text/plain\r\n\r\n",
        &sent,
    )
    .await;

    let text = String::from_utf8_lossy(&received);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(
        text.to_ascii_lowercase().contains("content-length: 100000"),
        "{text}"
    );
    let body_start = received
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head")
        + 4;
    let body = &received[body_start..];
    assert!(
        body.len() < 100_000 && sent.starts_with(body),
        "the client got {} body bytes of a 100000-byte message, then the end: it can tell",
        body.len()
    );
    let metrics = gw.metrics().await;
    assert_eq!(
        metrics.value(r#"utf8gate_upstream_errors_total{reason="body"}"#),
        1.0,
        "{}",
        metrics.text
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_reset_mid_chunked_body_never_sends_the_last_chunk() {
    let mut sent = b"3e8\r\n".to_vec();
    sent.extend_from_slice(&[b'b'; 1000]);
    sent.extend_from_slice(b"\r\n");
    let (received, gw) = through_a_mid_body_reset(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n",
        &sent,
    )
    .await;

    let text = String::from_utf8_lossy(&received);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(
        !received.ends_with(b"0\r\n\r\n"),
        "the client got a terminating chunk after an upstream reset: {text}"
    );
    let metrics = gw.metrics().await;
    assert_eq!(
        metrics.value(r#"utf8gate_upstream_errors_total{reason="body"}"#),
        1.0,
        "{}",
        metrics.text
    );
}

// New upstream failure tests go here.

// =============================================================================================
// Limits
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_max_body_bytes_is_413_and_not_forwarded() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("[limits]\nmax_body_bytes = 1024\n", Some(&upstream.url())).await;

    let response = exchange(gw.proxy, &request("POST", "/up", &[], &[b'a'; 4096])).await;

    assert_problem(&response, 413, "body-too-large");
    assert_eq!(upstream.count(), 0);
    let metrics = gw.metrics().await;
    assert_eq!(metrics.value("utf8gate_body_limit_exceeded_total"), 1.0);
    // Exactly at the limit is fine.
    let response = exchange(gw.proxy, &request("POST", "/up", &[], &[b'a'; 1024])).await;
    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(upstream.count(), 1);
    assert_eq!(upstream.records()[0].body.len(), 1024);
    let metrics = gw.metrics().await;
    assert_eq!(metrics.value("utf8gate_body_limit_exceeded_total"), 1.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_max_concurrent_requests_is_503_at_once() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start(
        "[limits]\nmax_concurrent_requests = 1\n",
        Some(&upstream.url()),
    )
    .await;
    let proxy = gw.proxy;
    let slow = tokio::spawn(async move {
        exchange(
            proxy,
            &request("GET", "/slow", &[(DELAY_HEADER, b"1500")], b""),
        )
        .await
    });
    assert!(
        upstream.wait_for(1, Duration::from_secs(5)).await,
        "the slow request never reached the upstream"
    );

    let started = Instant::now();
    let second = exchange(gw.proxy, &get("/second")).await;
    let elapsed = started.elapsed();

    assert_problem(&second, 503, "overloaded");
    assert!(
        elapsed < Duration::from_millis(700),
        "503 after {elapsed:?}"
    );
    assert!(
        !slow.is_finished(),
        "the first request should still be in flight"
    );
    let first = slow.await.expect("slow request task");
    assert_eq!(first.status, 200, "{}", first.text());
    assert_eq!(upstream.count(), 1, "the shed request was not forwarded");
    // The slot is free again.
    let third = exchange(gw.proxy, &get("/third")).await;
    assert_eq!(third.status, 200, "{}", third.text());
    assert_eq!(upstream.count(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_request_head_is_disconnected_after_header_read_timeout() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start(
        "[limits]\nheader_read_timeout_seconds = 0.5\n",
        Some(&upstream.url()),
    )
    .await;

    // Half a head, then nothing.
    let mut conn = RawConn::connect(gw.proxy).await.expect("connect");
    conn.write(b"GET /slow HTTP/1.1\r\nHost: e2e.test\r\nX-Half: ")
        .await
        .expect("write");
    let started = Instant::now();
    let ending = conn.wait_for_end(Duration::from_secs(3)).await;
    let elapsed = started.elapsed();
    assert!(
        matches!(&ending, Ending::Closed(b) | Ending::Reset(b, _) if b.is_empty()),
        "expected a close without a response, got {ending:?} after {elapsed:?}"
    );
    assert!(
        elapsed >= Duration::from_millis(400),
        "closed after {elapsed:?}"
    );

    // A head dribbled one byte every 100 ms is cut off too: the timeout is for the whole head.
    let mut conn = RawConn::connect(gw.proxy).await.expect("connect");
    let head =
        b"GET /dribble HTTP/1.1\r\nHost: e2e.test\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let started = Instant::now();
    let mut cut = None;
    for byte in head.iter().take(30) {
        if conn.write(&[*byte]).await.is_err() {
            cut = Some(started.elapsed());
            break;
        }
        match conn.wait_for_end(Duration::from_millis(100)).await {
            Ending::StillOpen(b) if b.is_empty() => {}
            other => {
                assert!(
                    matches!(&other, Ending::Closed(b) | Ending::Reset(b, _) if b.is_empty()),
                    "{other:?}"
                );
                cut = Some(started.elapsed());
                break;
            }
        }
    }
    let cut = cut.expect("a dribbled head was not cut off within 3 s");
    assert!(cut < Duration::from_secs(3), "cut after {cut:?}");
    assert_eq!(upstream.count(), 0);
}

fn head_of(size: usize, target: &str) -> Vec<u8> {
    let start = format!("GET {target} HTTP/1.1\r\nHost: e2e.test\r\nX-Big: ");
    let filler = size - start.len() - 4;
    let mut out = start.into_bytes();
    out.extend(std::iter::repeat_n(b'a', filler));
    out.extend_from_slice(b"\r\n\r\n");
    assert_eq!(out.len(), size);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_head_far_over_max_header_bytes_is_431() {
    let upstream = Upstream::start().await;
    // The default: max_header_bytes = 65536.
    let gw = Gateway::start("", Some(&upstream.url())).await;

    let response = exchange(gw.proxy, &head_of(200_000, "/big")).await;

    // hyper answers a head that overflows its buffer with 431 (no body) and closes.
    assert_eq!(response.status, 431, "{}", response.text());
    assert!(response.body.is_empty());
    assert_eq!(upstream.count(), 0);
    // A head under the limit goes through.
    let response = exchange(gw.proxy, &head_of(60_000, "/fits")).await;
    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(upstream.count(), 1);
    assert_eq!(upstream.records()[0].target, "/fits");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]

async fn a_request_head_just_over_max_header_bytes_is_431() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    let response = exchange(gw.proxy, &head_of(70_000, "/big")).await;
    assert_eq!(
        response.status,
        431,
        "65536 limit, 70000-byte head: {}",
        response.text()
    );

    let small = Gateway::start("[limits]\nmax_header_bytes = 2048\n", Some(&upstream.url())).await;
    let response = exchange(small.proxy, &head_of(4096, "/big")).await;
    assert_eq!(
        response.status,
        431,
        "2048 limit, 4096-byte head: {}",
        response.text()
    );
    assert_eq!(upstream.count(), 0);
}

/// Opens a `/v1/scan` upload that sends its head and one chunk, then stalls: a request in
/// flight on the API listener for as long as the connection is held.
async fn stalled_scan(api: std::net::SocketAddr) -> RawConn {
    let mut conn = RawConn::connect(api).await.expect("connect");
    conn.write(
        b"POST /v1/scan HTTP/1.1\r\nHost: e2e.test\r\nContent-Type: text/plain\r\n\
          Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
    )
    .await
    .expect("write");
    conn
}

/// Waits (bounded) until the in-flight gauge shows `n`; returns the last value seen.
async fn wait_in_flight(gw: &Gateway, n: f64, within: Duration) -> f64 {
    let deadline = Instant::now() + within;
    loop {
        let value = gw.metrics().await.value("utf8gate_in_flight_requests");
        if value == n || Instant::now() >= deadline {
            return value;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_concurrent_requests_sheds_a_second_upload_on_the_same_route() {
    let gw = Gateway::start("[limits]\nmax_concurrent_requests = 1\n", None).await;
    let _stalled = stalled_scan(gw.api).await;
    assert_eq!(wait_in_flight(&gw, 1.0, Duration::from_secs(5)).await, 1.0);

    let started = Instant::now();
    let second = exchange(gw.api, &request("POST", "/v1/scan", &[], b"abc")).await;

    assert_problem(&second, 503, "overloaded");
    assert!(started.elapsed() < Duration::from_millis(700));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]

async fn max_concurrent_requests_is_per_listener_on_the_api() {
    let gw = Gateway::start("[limits]\nmax_concurrent_requests = 1\n", None).await;
    let _stalled = stalled_scan(gw.api).await;
    assert_eq!(wait_in_flight(&gw, 1.0, Duration::from_secs(5)).await, 1.0);

    let other_route = exchange(
        gw.api,
        &request(
            "POST",
            "/v1/sanitize",
            &[("Content-Type", b"text/plain")],
            b"abc",
        ),
    )
    .await;

    assert_problem(&other_route, 503, "overloaded");
}

// New limit tests go here.

// =============================================================================================
// API: /v1/scan and /v1/sanitize
// =============================================================================================

const MIB: usize = 1 << 20;

/// `len` bytes of valid NFC text in several scripts (cut at a character boundary, padded with
/// ASCII to the exact length).
fn valid_text(len: usize) -> Vec<u8> {
    let unit = "Grüße aus Köln. こんにちは世界。 Καλή μέρα. Привет, мир! 🦀✓ नमस्ते\n";
    let mut out = String::with_capacity(len + unit.len());
    while out.len() + unit.len() <= len {
        out.push_str(unit);
    }
    while out.len() < len {
        out.push('.');
    }
    out.into_bytes()
}

/// Splits `body` into HTTP chunks of `size` bytes (so multibyte characters straddle chunks),
/// with an extra cut at each of `cuts`.
fn chunks_of<'a>(body: &'a [u8], size: usize, cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut points: Vec<usize> = (size..body.len()).step_by(size).collect();
    points.extend_from_slice(cuts);
    points.push(body.len());
    points.sort_unstable();
    points.dedup();
    let mut out = Vec::new();
    let mut from = 0;
    for to in points {
        out.push(&body[from..to]);
        from = to;
    }
    out
}

const SCAN_CONFIG: &str = "[limits]\nmax_body_bytes = 1048576\nmax_scan_bytes = 67108864\n";
const SCAN_TIMEOUT: Duration = Duration::from_secs(120);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scan_streams_20_mib_of_valid_text() {
    let gw = Gateway::start(SCAN_CONFIG, None).await;
    let body = valid_text(20 * MIB);
    let sent = chunked_post(
        "/v1/scan",
        &[("Content-Type", b"text/plain; charset=utf-8")],
        &chunks_of(&body, 65_537, &[]),
    );

    let response = try_exchange(gw.api, sent, SCAN_TIMEOUT)
        .await
        .expect("scan");

    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(response.header_str("utf8gate-decision"), "allow");
    let verdict = verdict_of(&response.json());
    assert_eq!(verdict.decision, Decision::Allow, "{verdict:?}");
    assert_eq!(verdict.bytes_inspected, (20 * MIB) as u64);
    assert!(verdict.findings.is_empty(), "{:?}", verdict.findings);
    let metrics = gw.metrics().await;
    assert_eq!(metrics.value("utf8gate_body_limit_exceeded_total"), 0.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scan_finds_an_overlong_split_across_chunks_at_its_absolute_offset() {
    let gw = Gateway::start(SCAN_CONFIG, None).await;
    let text = valid_text(20 * MIB);
    // A character boundary near 10 MiB (the text is valid UTF-8, so search one).
    let at = (10 * MIB..)
        .find(|&i| text[i] & 0xC0 != 0x80)
        .expect("a boundary");
    let mut body = text[..at].to_vec();
    body.extend_from_slice(b"\xC0\xAE");
    body.extend_from_slice(&text[at..]);
    // One chunk ends with C0, the next starts with AE.
    let chunks = chunks_of(&body, 65_536, &[at + 1]);
    assert!(chunks.iter().any(|c| c.ends_with(b"\xC0")));
    let sent = chunked_post("/v1/scan", &[("Content-Type", b"text/plain")], &chunks);

    let response = try_exchange(gw.api, sent, SCAN_TIMEOUT)
        .await
        .expect("scan");

    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(response.header_str("utf8gate-decision"), "reject");
    let verdict = verdict_of(&response.json());
    assert_eq!(verdict.decision, Decision::Reject);
    assert_eq!(verdict.bytes_inspected, body.len() as u64);
    assert_eq!(verdict.findings.len(), 1, "{:?}", verdict.findings);
    let finding = &verdict.findings[0];
    assert_eq!(finding.kind.as_str(), "overlong");
    assert_eq!(finding.offset, at, "absolute offset in the body");
    assert_eq!(finding.length, 2);
    assert_eq!(finding.bytes, "C0 AE");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scan_over_max_scan_bytes_is_413() {
    let gw = Gateway::start(
        "[limits]\nmax_body_bytes = 65536\nmax_scan_bytes = 2097152\n",
        None,
    )
    .await;
    let body = valid_text(3 * MIB);
    let sent = chunked_post(
        "/v1/scan",
        &[("Content-Type", b"text/plain")],
        &chunks_of(&body, 65_536, &[]),
    );

    let response = try_exchange(gw.api, sent, SCAN_TIMEOUT)
        .await
        .expect("scan");

    assert_problem(&response, 413, "body-too-large");
    let metrics = gw.metrics().await;
    assert_eq!(metrics.value("utf8gate_body_limit_exceeded_total"), 1.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sanitize_lossy_is_byte_identical_to_from_utf8_lossy() {
    let gw = Gateway::start("", None).await;
    let mut rng = Rng::new(0x00C0_FFEE_u64);
    let pieces: [&[u8]; 8] = [
        b"abc",
        "é日🦀".as_bytes(),
        b"\xC0\xAE",
        b"\xED\xA0\x80",
        b"\xF4\x90\x80\x80",
        b"\xE2\x82",
        b"\xFF",
        b"\x80\x80",
    ];
    let mut inputs: Vec<Vec<u8>> = (0..3).map(|i| rng.bytes(1 + 700 * i)).collect();
    for _ in 0..3 {
        let mut mixed = Vec::new();
        for _ in 0..200 {
            mixed.extend_from_slice(pieces[rng.below(pieces.len())]);
        }
        inputs.push(mixed);
    }
    for input in inputs.iter_mut() {
        // Invalid for sure, so the decision is sanitize.
        input.push(0xFE);
        assert!(std::str::from_utf8(input).is_err());
        let sent = request(
            "POST",
            "/v1/sanitize?profile=lossy",
            &[("Content-Type", b"text/plain")],
            input,
        );

        let response = exchange(gw.api, &sent).await;

        assert_eq!(response.status, 200, "{}", response.text());
        assert_eq!(response.header_str("utf8gate-decision"), "sanitize");
        assert_eq!(response.header_str("content-type"), "text/plain");
        let expected = String::from_utf8_lossy(input);
        assert_eq!(
            response.body,
            expected.as_bytes(),
            "input {:02X?}",
            &input[..input.len().min(64)]
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sanitize_of_a_rejected_body_is_422() {
    let gw = Gateway::start("", None).await;
    let sent = request(
        "POST",
        "/v1/sanitize",
        &[("Content-Type", b"text/plain")],
        b"../\xC0\xAE\xC0\xAE/etc",
    );

    let response = exchange(gw.api, &sent).await;

    let verdict = assert_rejected(&response, 422);
    assert!(
        kinds(&verdict).contains(&"overlong"),
        "{:?}",
        kinds(&verdict)
    );
    assert_eq!(verdict.profile, "strict");
}

// New /v1/scan and /v1/sanitize tests go here.

// =============================================================================================
// Authorization checks
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authz_envoy_denies_an_overlong_traversal_and_allows_a_clean_path() {
    let gw = Gateway::start("", None).await;

    let denied = exchange(gw.api, &get("/authz/envoy/a/%c0%ae%c0%ae/b")).await;
    let verdict = assert_rejected(&denied, 403);
    assert!(
        kinds(&verdict).contains(&"overlong"),
        "{:?}",
        kinds(&verdict)
    );

    let allowed = exchange(gw.api, &get("/authz/envoy/ok?q=1")).await;
    assert_eq!(allowed.status, 200, "{}", allowed.text());
    assert_eq!(allowed.header_str("utf8gate-decision"), "allow");
    assert!(!allowed.header_str("utf8gate-request-id").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authz_forward_trusts_x_original_uri_from_trusted_peers_only() {
    let gw = Gateway::start("", None).await;
    let forward = |uri: &'static [u8]| {
        request(
            "GET",
            "/authz/forward",
            &[("X-Original-URI", uri), ("X-Original-Method", b"GET")],
            b"",
        )
    };

    // 127.0.0.1 is trusted by default: the described request is evaluated.
    let denied = exchange(gw.api, &forward(b"/a/%c0%ae%c0%ae/b")).await;
    let verdict = assert_rejected(&denied, 403);
    assert!(
        kinds(&verdict).contains(&"overlong"),
        "{:?}",
        kinds(&verdict)
    );
    let allowed = exchange(gw.api, &forward(b"/a/b?q=caf%C3%A9")).await;
    assert_eq!(allowed.status, 200, "{}", allowed.text());
    assert_eq!(allowed.header_str("utf8gate-decision"), "allow");

    // A plain dot-segment: rejected in a path, only logged in a header.
    let denied = exchange(gw.api, &forward(b"/a/../b")).await;
    let verdict = assert_rejected(&denied, 403);
    assert_eq!(kinds(&verdict), ["dot_segment"]);

    // Nobody is trusted: X-Original-URI is evaluated as a header only, where that same value
    // is clean, so the check allows it.
    let untrusted = Gateway::start("[authz]\ntrusted_peers = []\n", None).await;
    let response = exchange(untrusted.api, &forward(b"/a/../b")).await;
    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(response.header_str("utf8gate-decision"), "allow");
}

// New authz tests go here.

// =============================================================================================
// Admin
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_health_and_readiness_follow_the_upstream() {
    let upstream = Upstream::start().await;
    let live = Gateway::start("", Some(&upstream.url())).await;
    let dead = Gateway::start("", Some(&format!("http://{}", dead_addr().await))).await;

    let health = exchange(live.admin, &get("/healthz")).await;
    assert_eq!((health.status, health.text().as_str()), (200, "ok\n"));
    let health = exchange(dead.admin, &get("/healthz")).await;
    assert_eq!(health.status, 200, "health does not depend on the upstream");
    let ready = exchange(live.admin, &get("/readyz")).await;
    assert_eq!((ready.status, ready.text().as_str()), (200, "ready\n"));
    let ready = exchange(dead.admin, &get("/readyz")).await;
    assert_eq!(ready.status, 503, "{}", ready.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_metrics_count_rejects_and_use_only_utf8gate_names() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    const N: usize = 3;
    for i in 0..N {
        let response = exchange(gw.proxy, &get(&format!("/r{i}/%c0%ae%c0%ae/x"))).await;
        assert_eq!(response.status, 400);
    }
    let response = exchange(gw.proxy, &get("/fine")).await;
    assert_eq!(response.status, 200);

    let metrics = gw.metrics().await;

    assert_eq!(
        metrics.value(r#"utf8gate_requests_total{decision="reject",mode="proxy"}"#),
        N as f64,
        "{}",
        metrics.text
    );
    assert_eq!(
        metrics.value(r#"utf8gate_requests_total{decision="allow",mode="proxy"}"#),
        1.0
    );
    assert!(
        metrics.text.contains("utf8gate_build_info{"),
        "{}",
        metrics.text
    );
    assert!(!metrics.samples.is_empty());
    for name in metrics.names() {
        assert!(
            name.starts_with("utf8gate_") || name.starts_with("process_"),
            "metric {name:?}"
        );
    }
    for line in metrics.text.lines().filter(|l| l.starts_with('#')) {
        let name = line.split(' ').nth(2).unwrap_or_default();
        assert!(
            name.starts_with("utf8gate_") || name.starts_with("process_"),
            "{line:?}"
        );
    }
    assert_eq!(upstream.count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_flight_gauge_returns_to_zero_when_an_upload_is_cut() {
    // The upload's client goes away while its body is being read: the handler ends (400).
    let gw = Gateway::start("", None).await;
    let stalled = stalled_scan(gw.api).await;
    assert_eq!(wait_in_flight(&gw, 1.0, Duration::from_secs(5)).await, 1.0);
    drop(stalled);
    assert_eq!(wait_in_flight(&gw, 0.0, Duration::from_secs(3)).await, 0.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]

async fn the_in_flight_gauge_returns_to_zero_when_a_proxy_client_disconnects() {
    // The proxy's client goes away while the upstream is still answering (1.5 s); hyper
    // drops the request's future, and the gauge must still come back down.
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    let mut conn = RawConn::connect(gw.proxy).await.expect("connect");
    conn.write(&request("GET", "/slow", &[(DELAY_HEADER, b"1500")], b""))
        .await
        .expect("write");
    assert!(upstream.wait_for(1, Duration::from_secs(5)).await);
    assert_eq!(wait_in_flight(&gw, 1.0, Duration::from_secs(5)).await, 1.0);
    drop(conn);
    assert_eq!(wait_in_flight(&gw, 0.0, Duration::from_secs(4)).await, 0.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_log_reader_never_stalls_requests_and_dropped_lines_are_counted() {
    let upstream = Upstream::start().await;
    let gw =
        Gateway::start_with_stalled_log("[log]\nbuffer_lines = 4\n", Some(&upstream.url())).await;
    // Each request writes an audit line of about 300 bytes: 1000 of them fill the unread
    // 64 KiB pipe several times over.
    let started = Instant::now();
    let mut conn = RawConn::connect(gw.proxy).await.expect("connect");
    for i in 0..1000 {
        conn.write(&get(&format!("/item/{i}")))
            .await
            .expect("write");
        let response = conn
            .read_response(Duration::from_secs(5))
            .await
            .unwrap_or_else(|e| panic!("request {i} did not complete: {e}"));
        assert_eq!(response.status, 200, "request {i}");
    }
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "1000 requests took {:?}",
        started.elapsed()
    );
    let dropped = gw.metrics().await.value("utf8gate_log_lines_dropped_total");
    assert!(
        dropped > 0.0,
        "no log line was counted as dropped, yet nothing read the pipe"
    );
}

// New admin tests go here.

// =============================================================================================
// Graceful shutdown
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_drains_in_flight_requests_and_refuses_new_connections() {
    let upstream = Upstream::start().await;
    let mut gw = Gateway::start("", Some(&upstream.url())).await;
    let (proxy, admin) = (gw.proxy, gw.admin);
    let in_flight = tokio::spawn(async move {
        exchange(
            proxy,
            &request("POST", "/slow", &[(DELAY_HEADER, b"300")], b"payload"),
        )
        .await
    });
    // Shut down once the request is at the upstream (about 100 ms into its 300).
    assert!(upstream.wait_for(1, Duration::from_secs(5)).await);
    gw.shutdown();

    // A new connection is refused once the accept loops have stopped (bounded poll: an
    // attempt that races the stop may still be answered).
    let deadline = Instant::now() + Duration::from_secs(3);
    let mut refused = false;
    while Instant::now() < deadline {
        match try_exchange(proxy, get("/new"), Duration::from_millis(500)).await {
            Err(_) => {
                refused = true;
                break;
            }
            Ok(r) => assert_eq!(r.status, 200, "{}", r.text()),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        refused,
        "new connections were still served 3 s after the shutdown"
    );

    let response = tokio::time::timeout(Duration::from_secs(5), in_flight)
        .await
        .expect("the in-flight request did not complete")
        .expect("in-flight task");
    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(response.body, b"payload");
    assert!(
        gw.stop(Duration::from_secs(5)).await,
        "run() did not return after draining"
    );
    assert!(
        try_exchange(admin, get("/healthz"), Duration::from_millis(500))
            .await
            .is_err(),
        "the admin listener is closed too"
    );
}

// New shutdown tests go here.
