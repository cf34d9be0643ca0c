//! The proxy when the upstream fails: refused, silent, reset before or during its answer.

use std::time::{Duration, Instant};

use utf8gate_e2e::{
    Ending, Gateway, HungUpstream, RawConn, ResettingUpstream, dead_addr, exchange, get,
};

use crate::support::*;

// =============================================================================================
// Proxy: upstream failures
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusing_upstream_is_502_and_counted() {
    let dead = dead_addr().await;
    let gw = Gateway::start("", Some(&format!("http://{dead}"))).await;

    let response = exchange(gw.proxy, &get("/x")).await;

    assert_problem(&response, 502, "upstream-unavailable");
    assert_upstream_errors(&gw, [1, 0, 0]).await;
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
    assert_upstream_errors(&gw, [0, 1, 0]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_reset_before_its_response_head_is_502() {
    let resetting = ResettingUpstream::start(Vec::new()).await;
    let gw = Gateway::start("", Some(&resetting.url())).await;

    let response = exchange(gw.proxy, &get("/x")).await;

    assert_problem(&response, 502, "upstream-unavailable");
    assert_upstream_errors(&gw, [1, 0, 0]).await;
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
    assert_upstream_errors(&gw, [0, 0, 1]).await;
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
    assert_upstream_errors(&gw, [0, 0, 1]).await;
}

// New upstream failure tests go here.

/// Asserts `utf8gate_upstream_errors_total` for the reasons connect, timeout and body, in that
/// order: every reason, so a failure counted under the wrong one shows.
async fn assert_upstream_errors(gw: &Gateway, expected: [u32; 3]) {
    let metrics = gw.metrics().await;
    let seen = ["connect", "timeout", "body"].map(|reason| {
        metrics.value(&format!(
            r#"utf8gate_upstream_errors_total{{reason="{reason}"}}"#
        ))
    });
    assert_eq!(seen, expected.map(f64::from), "{}", metrics.text);
}
