//! `cargo bench -p utf8gate-policy --bench files`: what judging a body's bytes costs
//! (`textual::judge`), with its baselines in the same group.
//!
//! * `stream`: a 256 MiB binary upload streamed through `BodyScan` in 64 KiB chunks (its type
//!   `application/octet-stream` or `image/png`; judged binary from its first 8 KiB, its last
//!   64 KiB kept for a ZIP's end record; `scan_sized` with its length known, as `/v1/scan`
//!   knows it from `Content-Length`), against copying the same chunks once (`memcpy`: the
//!   least a proxy does with them).
//! * `whole`: an 8 MiB body evaluated whole: a PNG (judged binary by its signature), a ZIP's
//!   end-record search at its worst (its last 64 KiB all `PK\x05\x06` with wrong comment
//!   lengths), protobuf checked by its shape (clean, and at its worst: nested groups), a gRPC
//!   message of JSON and tiny gRPC messages one after another, against clean ASCII text of
//!   the same size.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use utf8gate_policy::{BodyScan, Decision, Profile, Request, evaluate_upload};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x04\0\0\0\x04\0\x08\x06\0\0\0";
const CHUNK: usize = 64 << 10;

/// `len` pseudo-random bytes after `head` (xorshift: deterministic, incompressible).
fn binary(head: &[u8], len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut out = head.to_vec();
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.truncate(len);
    out
}

fn upload(ct: &str, body: &[u8]) -> Request {
    Request::new("POST", b"/")
        .header("Content-Type", ct.as_bytes())
        .body(body)
}

fn stream(c: &mut Criterion) {
    let profile = Profile::strict();
    let body = binary(PNG, 256 << 20);
    let mut group = c.benchmark_group("files/stream");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Bytes(body.len() as u64));
    for ct in ["application/octet-stream", "image/png"] {
        let head = upload(ct, b"");
        group.bench_with_input(BenchmarkId::new("scan", ct), &body, |b, body| {
            b.iter(|| {
                let mut scan = BodyScan::for_body_of(&profile, &head, 1 << 40);
                body.chunks(CHUNK).for_each(|c| scan.feed(black_box(c)));
                let verdict = scan.finish();
                assert_eq!(verdict.decision, Decision::Allow);
                verdict.not_text.is_some()
            })
        });
        // Its length known (`Content-Length`): only its last 64 KiB are kept.
        group.bench_with_input(BenchmarkId::new("scan_sized", ct), &body, |b, body| {
            b.iter(|| {
                let mut scan = BodyScan::for_body_of(&profile, &head, 1 << 40);
                scan.expect_len(body.len() as u64);
                body.chunks(CHUNK).for_each(|c| scan.feed(black_box(c)));
                let verdict = scan.finish();
                assert_eq!(verdict.decision, Decision::Allow);
                verdict.not_text.is_some()
            })
        });
    }
    let mut to = vec![0u8; CHUNK];
    group.bench_with_input(BenchmarkId::new("memcpy", "256MiB"), &body, |b, body| {
        b.iter(|| {
            for c in body.chunks(CHUNK) {
                to[..c.len()].copy_from_slice(black_box(c));
            }
            black_box(&to);
        })
    });
    group.finish();
}

/// Protobuf of `len` bytes: clean (one length-delimited field after another), or nested
/// groups opened and closed (the shape check's worst: a tag for every byte pair).
fn protobuf(len: usize, worst: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    while out.len() + 130 <= len {
        match worst {
            true => out.extend_from_slice(&[0x0B, 0x0C].repeat(64)),
            false => {
                out.extend_from_slice(&[0x0A, 125]);
                out.extend_from_slice(&[0xA5; 125]);
            }
        }
    }
    out
}

fn whole(c: &mut Criterion) {
    let profile = Profile::strict();
    let size = 8 << 20;
    let text: Vec<u8> = (0..size).map(|i| b"abcdefgh ij\n"[i % 12]).collect();
    let mut zip_worst = binary(PNG, size - CHUNK);
    zip_worst.extend_from_slice(&b"PK\x05\x06".repeat(CHUNK / 4));
    let frame = |payload: &[u8]| {
        let len = u32::try_from(payload.len())
            .expect("under 4 GiB")
            .to_be_bytes();
        [&[0][..], &len, payload].concat()
    };
    let words: Vec<u8> = (0..size - 20).map(|i| b"abcdefgh ij "[i % 12]).collect();
    let json: Vec<u8> = [&b"[\""[..], &words, b"\"]"].concat();
    let tiny = frame(b"{\"a\":\"b\"}").repeat(size / 14);
    let cases = [
        ("text", upload("text/plain", &text)),
        ("png", upload("image/png", &binary(PNG, size))),
        ("zip_end_worst", upload("image/png", &zip_worst)),
        (
            "protobuf",
            upload("application/x-protobuf", &protobuf(size, false)),
        ),
        (
            "protobuf_worst",
            upload("application/x-protobuf", &protobuf(size, true)),
        ),
        ("grpc_json", upload("application/grpc+json", &frame(&json))),
        ("grpc_tiny_messages", upload("application/grpc+json", &tiny)),
    ];
    let mut group = c.benchmark_group("files/whole");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    group.throughput(Throughput::Bytes(size as u64));
    for (name, request) in &cases {
        let verdict = evaluate_upload(&profile, request).verdict;
        // Tiny messages are refused past `max_multipart_parts` of them.
        let refused = *name == "grpc_tiny_messages";
        let allowed = verdict.decision == Decision::Allow;
        assert_eq!(allowed, !refused, "{name}: {:?}", verdict.kinds());
        let text = matches!(*name, "text" | "grpc_json") || refused;
        assert_eq!(verdict.not_text.is_none(), text, "{name}");
        group.bench_with_input(BenchmarkId::new(*name, "8MiB"), request, |b, r| {
            b.iter(|| evaluate_upload(&profile, black_box(r)).verdict.decision)
        });
    }
    group.finish();
}

criterion_group!(benches, stream, whole);
criterion_main!(benches);
