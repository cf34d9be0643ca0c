//! The API listener: `/v1/scan` (streamed) and `/v1/sanitize`.

use std::time::Duration;

use utf8gate_e2e::{Gateway, Rng, chunked_post, exchange, request, try_exchange};
use utf8gate_policy::Decision;

use crate::support::*;

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
    assert_eq!(&*verdict.profile, "strict");
}

// New /v1/scan and /v1/sanitize tests go here.
