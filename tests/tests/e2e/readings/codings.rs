//! Content codings: a coded body is judged by what it decodes to and forwarded as it was sent;
//! codings utf8gate does not read, corrupt streams and bombs are refused.

use std::io::Write;
use std::time::{Duration, Instant};

use utf8gate_e2e::{exchange, request};

use super::{assert_forwarded, assert_refused, start};
use crate::support::*;

const JSON: (&str, &[u8]) = ("Content-Type", b"application/json");
const TRAVERSAL: &[u8] = b"{\"path\":\"..\xC0\xAF..\xC0\xAFetc\"}";
const CLEAN: &str = "{\"path\":\"docs/Grüße/日本語.txt\",\"n\":1}";

/// Codes a body.
type Encoder = fn(&[u8]) -> Vec<u8>;

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).and_then(|()| e.finish()).expect("gzip")
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).and_then(|()| e.finish()).expect("zlib")
}

fn raw_deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data)
        .and_then(|()| e.finish())
        .expect("deflate")
}

fn br(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
    w.write_all(data).and_then(|()| w.flush()).expect("br");
    drop(w);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coded_bodies_are_judged_by_what_they_decode_to_and_forwarded_as_sent() {
    let (upstream, gw) = start("").await;
    let codings: [(&str, Encoder); 5] = [
        ("gzip", gzip),
        ("x-gzip", gzip),
        ("deflate", zlib),
        ("deflate", raw_deflate),
        ("br", br),
    ];
    for (i, (coding, encode)) in codings.into_iter().enumerate() {
        let what = format!("{coding} #{i}");
        let bad = request(
            "POST",
            "/api",
            &[JSON, ("Content-Encoding", coding.as_bytes())],
            &encode(TRAVERSAL),
        );
        assert_refused(&gw, &upstream, &what, &bad, 400, "overlong").await;
        let coded = encode(CLEAN.as_bytes());
        let length = coded.len().to_string();
        let good = request(
            "POST",
            "/api",
            &[JSON, ("Content-Encoding", coding.as_bytes())],
            &coded,
        );
        let same = [
            ("content-encoding", coding.as_bytes()),
            ("content-length", length.as_bytes()),
        ];
        assert_forwarded(&gw, &upstream, &what, &good, ("/api", &coded), &same).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_coded_body_that_is_sanitized_goes_upstream_decoded() {
    let (upstream, gw) = start("").await;
    let sent = request(
        "POST",
        "/notes",
        &[
            ("Content-Type", b"text/plain"),
            ("Content-Encoding", b"gzip"),
        ],
        &gzip("cafe\u{301}".as_bytes()),
    );
    let response = exchange(gw.proxy, &sent).await;
    assert_eq!(response.status, 200, "{}", response.text());
    let records = upstream.records();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].body, "café".as_bytes());
    assert_eq!(records[0].header("content-length"), Some(&b"5"[..]));
    assert_eq!(records[0].header("content-encoding"), None);
    assert_eq!(
        records[0].header("utf8gate-decision"),
        Some(&b"sanitize"[..])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsupported_corrupt_and_bomb_codings_are_refused() {
    let (upstream, gw) = start("").await;
    let compress = request(
        "POST",
        "/api",
        &[JSON, ("Content-Encoding", b"compress")],
        b"\x1f\x9d\x90x",
    );
    assert_refused(
        &gw,
        &upstream,
        "compress",
        &compress,
        415,
        "unsupported_coding",
    )
    .await;
    let response = exchange(gw.proxy, &compress).await;
    assert_problem(&response, 415, "rejected");
    assert_eq!(kinds(&verdict_of(&response.json())), ["unsupported_coding"]);

    let mut corrupt = gzip(CLEAN.as_bytes());
    let middle = corrupt.len() / 2;
    corrupt[middle] ^= 0xFF;
    let corrupt = request(
        "POST",
        "/api",
        &[JSON, ("Content-Encoding", b"gzip")],
        &corrupt,
    );
    assert_refused(
        &gw,
        &upstream,
        "corrupt gzip",
        &corrupt,
        400,
        "corrupt_coding",
    )
    .await;

    // 50 MiB of zeros in about 50 KiB: refused after a bounded amount of decoding.
    let bomb = gzip(&vec![0u8; 50 << 20]);
    assert!(bomb.len() < 1 << 20, "{}", bomb.len());
    let sent = request(
        "POST",
        "/up",
        &[
            ("Content-Type", b"text/plain"),
            ("Content-Encoding", b"gzip"),
        ],
        &bomb,
    );
    let rss = gw.peak_rss();
    let started = Instant::now();
    let response = exchange(gw.proxy, &sent).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(
        matches!(response.status, 400 | 413),
        "{}: {}",
        response.status,
        response.text()
    );
    if response.status == 400 {
        assert!(kinds(&assert_rejected(&response, 400)).contains(&"limit_exceeded"));
    }
    assert_eq!(upstream.count(), 0, "something reached the upstream");
    if let (Some(before), Some(after)) = (rss, gw.peak_rss()) {
        assert!(
            after - before < 32 << 20,
            "peak RSS grew by {} bytes",
            after - before
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_body_bytes_bounds_the_decoded_body_too() {
    let (upstream, gw) = start("[limits]\nmax_body_bytes = 4096\n").await;
    let text = "Grüße aus Köln. ".repeat(600);
    let coded = gzip(text.as_bytes());
    assert!(coded.len() < 4096 && text.len() > 4096);
    let sent = request(
        "POST",
        "/up",
        &[
            ("Content-Type", b"text/plain"),
            ("Content-Encoding", b"gzip"),
        ],
        &coded,
    );
    assert_refused(
        &gw,
        &upstream,
        "decodes past max_body_bytes",
        &sent,
        400,
        "limit_exceeded",
    )
    .await;
    let (upstream, gw) = start("").await;
    let same = [("content-encoding", &b"gzip"[..])];
    assert_forwarded(
        &gw,
        &upstream,
        "default limit",
        &sent,
        ("/up", &coded),
        &same,
    )
    .await;
}

/// `body` in HTTP/1.1 chunks of `size` bytes, with the last chunk.
fn chunked(body: &[u8], size: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for c in body.chunks(size) {
        out.extend_from_slice(format!("{:x}\r\n", c.len()).as_bytes());
        out.extend_from_slice(c);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transfer_codings_are_decoded_and_handed_on_as_content_codings() {
    let (upstream, gw) = start("").await;
    let head = "POST /api HTTP/1.1\r\nHost: e2e.test\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n";
    let bad = [head.as_bytes(), &chunked(&gzip(TRAVERSAL), 7)].concat();
    assert_refused(&gw, &upstream, "te gzip", &bad, 400, "overlong").await;
    let coded = gzip(CLEAN.as_bytes());
    let good = [head.as_bytes(), &chunked(&coded, 7)].concat();
    let length = coded.len().to_string();
    let same = [
        ("content-encoding", &b"gzip"[..]),
        ("content-length", length.as_bytes()),
    ];
    assert_forwarded(&gw, &upstream, "te gzip", &good, ("/api", &coded), &same).await;
    // `chunked` not last is refused before or by the policy, never forwarded.
    let before = upstream.count();
    let odd = "POST /api HTTP/1.1\r\nHost: e2e.test\r\nTransfer-Encoding: chunked, gzip\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
    let response = exchange(gw.proxy, odd.as_bytes()).await;
    assert!((400..500).contains(&response.status), "{}", response.status);
    assert_eq!(upstream.count(), before);
}
