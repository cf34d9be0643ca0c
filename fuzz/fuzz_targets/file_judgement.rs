//! What a body is (`textual::judge`: signatures, shapes, archives at either end, gRPC
//! messages, multipart subtypes) on arbitrary bytes under the types judged by them: never
//! panics, stays within its limits, and a streamed scan of the same bytes agrees with the
//! buffered upload on whether they are text, unless the body is an archive (refused streamed).
//!
//! `cargo fuzz run file_judgement -s none` (stable toolchain).
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8gate_policy::{BodyScan, Profile, Request, archive_in, evaluate, evaluate_upload};

const CONTENT_TYPES: [&[u8]; 16] = [
    b"image/png",
    b"application/pdf",
    b"application/octet-stream",
    b"",
    b"application/x-protobuf",
    b"application/cbor",
    b"application/cbor-seq",
    b"application/msgpack",
    b"application/bson",
    b"application/pkix-cert",
    b"application/x-thrift",
    b"avro/binary",
    b"application/grpc",
    b"application/grpc-web+json",
    b"multipart/related; boundary=b",
    b"application/vnd.openxmlformats-officedocument.wordprocessingml.document",
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else { return };
    let ct = CONTENT_TYPES[usize::from(selector) % CONTENT_TYPES.len()];
    let mut request = Request::new("POST", b"/upload").header("Host", b"h").body(body);
    if !ct.is_empty() {
        request = request.header("Content-Type", ct);
    }
    let profile = Profile::strict();
    let proxied = evaluate(&profile, &request).verdict;
    assert!(proxied.findings.len() <= profile.limits.max_findings);
    let upload = evaluate_upload(&profile, &request).verdict;
    let mut scan = BodyScan::for_body_of(&profile, &request, 1 << 30);
    if selector & 0x80 != 0 {
        scan.expect_len(body.len() as u64);
    }
    body.chunks(usize::from(selector % 7) + 1).for_each(|c| scan.feed(c));
    let streamed = scan.finish();
    // A shape (protobuf, CBOR) needs the whole body; a streamed body of such a type is judged
    // by its head alone. An archive, or a ZIP at its end, is refused streamed.
    let shaped = (4..=11).contains(&(usize::from(selector) % CONTENT_TYPES.len()));
    let archive = archive_in(Some(ct), body).is_some() || body.windows(4).any(|w| w == b"PK\x05\x06");
    let claimed = ct.starts_with(b"application/grpc") || ct.starts_with(b"multipart/");
    if !shaped && !archive && !claimed {
        assert_eq!(streamed.not_text.is_some(), upload.not_text.is_some(), "{ct:?}");
    }
});
