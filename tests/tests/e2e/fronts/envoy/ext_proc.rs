//! Envoy's `ext_proc` filter with the shipped `deploy/envoy/envoy-ext-proc.yaml`: what
//! `ext_authz` cannot do. A sanitize decision reaches the application sanitized (an NFD query
//! and an NFD JSON body in NFC, with a true `Content-Length`); a reject is Envoy's immediate
//! response with utf8gate's problem; a clean GET is one message and one answer; and on the
//! streamed route (`/uploads/`) 64 MiB of clean text pass while the gateway holds a chunk or
//! two, and 64 MiB with one malformed byte after 60 MiB never reach the application whole.

use std::time::Duration;

use envoy_types::pb::envoy::service::ext_proc::v3::{
    ProcessingRequest, processing_request::Request as Phase,
};
use prost::Message;
use utf8gate_e2e::{grpc_messages, request, try_exchange};

use super::{Front, Mode};

const MIB: usize = 1 << 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sanitize_rewrites_the_request_and_reject_is_envoy_s_answer() {
    let Some(front) = Box::pin(Front::start(Mode::ExtProc)).await else {
        return;
    };
    // NFD in the query (percent-encoded) and in a JSON body: both arrive in NFC.
    let body = "{\"name\":\"Cafe\u{301} cre\u{300}me\"}".as_bytes();
    let sent = request(
        "POST",
        "/notes?q=cafe%CC%81",
        &[
            ("Content-Type", b"application/json"),
            ("Connection", b"close"),
        ],
        body,
    );
    let response = front.send(&sent).await;
    assert_eq!(response.status, 200, "{}", response.text());
    let received = front.received();
    assert_eq!(received.len(), 1, "{received:?}");
    let got = &received[0];
    assert_eq!(got.target, "/notes?q=caf%C3%A9", "the query in NFC");
    let nfc = "{\"name\":\"Café crème\"}".as_bytes();
    assert_eq!(got.body, nfc, "{:?}", String::from_utf8_lossy(&got.body));
    let declared = got.header("content-length").map(|v| v.to_vec());
    assert_eq!(declared, Some(nfc.len().to_string().into_bytes()));
    assert_eq!(got.header("utf8gate-decision"), Some(&b"sanitize"[..]));

    // An overlong traversal: Envoy answers with utf8gate's problem, nothing goes upstream.
    let sent = request(
        "GET",
        "/files/%c0%ae%c0%ae/etc/passwd",
        &[("Connection", b"close")],
        b"",
    );
    let response = front.send(&sent).await;
    assert_eq!(response.status, 400, "{}", response.text());
    assert!(response.is_problem(), "{}", response.text());
    assert!(response.text().contains("overlong"), "{}", response.text());
    assert!(!response.header_str("utf8gate-request-id").is_empty());
    // A raw overlong byte in a body, buffered.
    let sent = request(
        "POST",
        "/notes",
        &[("Content-Type", b"text/plain"), ("Connection", b"close")],
        b"a/\xC0\xAE\xC0\xAE/b",
    );
    assert_eq!(front.send(&sent).await.status, 400);
    assert_eq!(
        front.received().len(),
        1,
        "nothing more reached the application"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clean_get_is_one_message_and_goes_on_unchanged() {
    let Some(front) = Box::pin(Front::start(Mode::ExtProc)).await else {
        return;
    };
    let before = front.asked().len();
    let target = "/caf%C3%A9?q=%E6%97%A5%E6%9C%AC";
    let response = front
        .send(&request("GET", target, &[("Connection", b"close")], b""))
        .await;
    assert_eq!(response.status, 200, "{}", response.text());
    let asked = front.asked();
    assert_eq!(asked.len(), before + 1, "one request_headers message");
    assert_eq!(
        asked.last().map(|a| a.target.as_slice()),
        Some(target.as_bytes())
    );
    let received = front.received();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].target, target, "byte for byte");
    assert_eq!(received[0].header("utf8gate-decision"), Some(&b"allow"[..]));
}

/// An upload to the streamed route (`request` declares its length).
fn upload(body: &[u8]) -> Vec<u8> {
    let headers: &[(&str, &[u8])] = &[("Content-Type", b"text/plain"), ("Connection", b"close")];
    request("POST", "/uploads/log.txt", headers, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamed_uploads_pass_clean_in_bounded_memory_and_stop_at_a_malformed_byte() {
    let Some(mut front) = Box::pin(Front::start(Mode::ExtProc)).await else {
        return;
    };
    let idle = front.gw.peak_rss().expect("VmHWM");
    let line = "journal: naïve café — 日本語 ok\n".as_bytes();
    let mut clean = line.repeat(64 * MIB / line.len());
    let response = try_exchange(front.addr, upload(&clean), Duration::from_secs(120))
        .await
        .expect("an answer");
    assert_eq!(response.status, 200, "{}", response.text());
    let received = front.received();
    assert_eq!(received.len(), 1);
    assert!(
        received[0].body == clean,
        "the upload arrived whole and unchanged"
    );
    let chunks = body_chunks(&front);
    // Envoy sends what it buffered while the last answer was on its way: never the whole.
    assert!(
        chunks.len() >= 8,
        "streamed in {} chunks: {chunks:?}",
        chunks.len()
    );
    assert_eq!(
        chunks.iter().sum::<usize>(),
        clean.len(),
        "every byte went through utf8gate"
    );
    let peak = front.gw.peak_rss().expect("VmHWM");
    println!(
        "streamed 64 MiB in {} chunks (largest {} KiB)",
        chunks.len(),
        chunks.iter().max().copied().unwrap_or(0) >> 10
    );
    println!(
        "streamed 64 MiB: VmHWM {} MiB (idle {} MiB)",
        peak >> 20,
        idle >> 20
    );
    // What one chunk costs (the message and tonic's buffer), never the upload.
    let largest = chunks.iter().max().copied().unwrap_or(0) as u64;
    assert!(
        peak - idle < (3 * largest + 8 * MIB as u64).min(48 * MIB as u64),
        "the gateway held {} MiB for a streamed upload in chunks of at most {} MiB",
        (peak - idle) >> 20,
        largest >> 20
    );
    let before = front.received().len();

    // One malformed byte after 60 MiB: refused before the last chunk goes on.
    clean[60 * MIB + 7] = 0xC0;
    let answer = try_exchange(front.addr, upload(&clean), Duration::from_secs(120)).await;
    if let Ok(response) = &answer {
        assert_eq!(response.status, 400, "{}", response.text());
        assert!(response.is_problem(), "{}", response.text());
    }
    let after = front.received();
    let whole = after[before..].iter().any(|r| r.body.len() == clean.len());
    assert!(
        !whole,
        "the application got the malformed upload whole ({answer:?})"
    );
    assert!(front.gw.exited().is_none());
}

/// The sizes of the `request_body` messages Envoy sent utf8gate.
fn body_chunks(front: &Front) -> Vec<usize> {
    let mut sizes = Vec::new();
    for stream in front.relay.sent() {
        for m in grpc_messages(&stream) {
            let r = ProcessingRequest::decode(m.as_slice()).expect("a ProcessingRequest");
            if let Some(Phase::RequestBody(b)) = r.request {
                sizes.push(b.body.len());
            }
        }
    }
    sizes
}
