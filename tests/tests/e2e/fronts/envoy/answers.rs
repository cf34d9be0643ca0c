//! What Envoy does with utf8gate's answers, as docs/operations.md says: a denial's status,
//! headers and body reach the client (a browser's `Accept` reaches utf8gate, so it gets the
//! HTML page); a sanitize decision lets the original bytes through with
//! `utf8gate-decision: sanitize`; and with utf8gate gone Envoy fails closed (503,
//! `failure_mode_allow: false`).

use std::time::Duration;

use utf8gate_e2e::request;

use super::{Front, Mode};

const FIREFOX: &[u8] = b"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

async fn answers_reach_the_client_and_utf8gate_gone_fails_closed(mode: Mode) {
    let Some(mut front) = Box::pin(Front::start(mode)).await else {
        return;
    };
    // A browser's denial: the page, with utf8gate's headers.
    let sent = request(
        "GET",
        "/files/%c0%ae%c0%ae/etc/passwd",
        &[("Accept", FIREFOX), ("Connection", b"close")],
        b"",
    );
    let response = front.send(&sent).await;
    assert_eq!(response.status, 403, "{mode:?}: {}", response.text());
    assert!(
        response.header_str("content-type").starts_with("text/html"),
        "{mode:?}: {:?}",
        response.header_str("content-type")
    );
    assert!(response.text().contains("Request rejected by utf8gate"));
    assert!(!response.header_str("utf8gate-request-id").is_empty());
    assert_eq!(
        response.header_str("content-security-policy"),
        "default-src 'none'; style-src 'unsafe-inline'"
    );

    // Sanitize: text that is not NFC (e + U+0301). The check cannot rewrite a body, so the
    // application gets the original bytes and the decision.
    let body = "cafe\u{301}".as_bytes();
    let sent = request("POST", "/notes", &[("Content-Type", b"text/plain")], body);
    let response = front.send(&sent).await;
    assert_eq!(response.status, 200, "{mode:?}: {}", response.text());
    let received = front.received();
    assert_eq!(received.len(), 1, "{received:?}");
    assert_eq!(received[0].body, body, "{mode:?}: the original bytes");
    assert_eq!(
        received[0].header("utf8gate-decision"),
        Some(&b"sanitize"[..])
    );

    // utf8gate stopped: Envoy refuses every request itself (503), none reaches the
    // application.
    assert!(
        front.gw.stop(Duration::from_secs(10)).await,
        "utf8gate stopped"
    );
    let response = front
        .send(&request("GET", "/hello", &[("Connection", b"close")], b""))
        .await;
    assert_eq!(response.status, 503, "{mode:?}: {}", response.text());
    assert_eq!(
        front.received().len(),
        1,
        "{mode:?}: reached the application"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envoy_http_relays_answers_and_fails_closed() {
    answers_reach_the_client_and_utf8gate_gone_fails_closed(Mode::Http).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envoy_grpc_relays_answers_and_fails_closed() {
    answers_reach_the_client_and_utf8gate_gone_fails_closed(Mode::Grpc).await;
}
