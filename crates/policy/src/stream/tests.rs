//! The streamed scan against the buffered evaluation of the same bodies.

use super::BodyScan;
use crate::{Decision, Profile, Request, evaluate, evaluate_upload};

#[test]
fn streams_find_what_an_upload_evaluation_finds() {
    // Binary (a signature, whatever the type; no type and a binary data byte): not read,
    // streamed or buffered, unless the profile scans binary bodies; then checked alike.
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR bin \xFF\xFE\0 \xC0\xAE";
    let nul = b"bin \xFF\xFE\0 \xC0\xAE";
    let mut profile = Profile::strict();
    for (ct, body, chunk) in [
        ("application/octet-stream", &png[..], 64),
        ("image/png", png, 3),
        ("", png, 1),
        ("", nul, 64),
    ] {
        let mut head = Request::new("POST", b"/");
        if !ct.is_empty() {
            head = head.header("Content-Type", ct.as_bytes());
        }
        for scan_binary in [false, true] {
            profile.scan_binary = scan_binary;
            let buffered = evaluate_upload(&profile, &head.clone().body(body)).verdict;
            let mut scan = BodyScan::for_body_of(&profile, &head, 1 << 20);
            body.chunks(chunk).for_each(|c| scan.feed(c));
            let streamed = scan.finish();
            let expected = [Decision::Allow, Decision::Reject][usize::from(scan_binary)];
            assert_eq!(streamed.decision, expected, "{ct:?} {scan_binary}");
            assert_eq!(streamed.not_text.is_some(), !scan_binary, "{ct:?}");
            // (A signature's control bytes are checked only buffered.)
            if !scan_binary || body == nul {
                assert_eq!(streamed, buffered, "{ct:?} {scan_binary}");
            }
        }
    }
    // A label never hides text: no signature, read whatever the type, streamed or buffered.
    profile.scan_binary = false;
    for ct in ["application/octet-stream", "image/png", "application/pdf"] {
        let head = Request::new("POST", b"/").header("Content-Type", ct.as_bytes());
        let buffered = evaluate_upload(&profile, &head.clone().body(nul)).verdict;
        let mut scan = BodyScan::for_body_of(&profile, &head, 1 << 20);
        nul.chunks(2).for_each(|c| scan.feed(c));
        let streamed = scan.finish();
        assert_eq!(streamed.decision, Decision::Reject, "{ct}");
        assert!(streamed.kinds().contains(&"overlong"), "{ct}");
        assert_eq!(buffered.decision, Decision::Reject, "{ct}");
        assert_eq!(streamed.not_text, None);
    }
}

#[test]
fn coded_streams_match_buffered_evaluation() {
    use std::io::Write;
    let body = b"ok \xC0\xAE\0 and \xED\xA0\x80 end";
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(body).unwrap();
    let gz = e.finish().unwrap();
    let profile = Profile::strict();
    let head = Request::new("POST", b"/")
        .header("Content-Type", b"text/plain")
        .header("Content-Encoding", b"gzip");
    let buffered = evaluate(&profile, &head.clone().body(&gz)).verdict;
    for size in [1, 5, gz.len()] {
        let mut scan = BodyScan::for_body_of(&profile, &head, 1 << 20);
        for chunk in gz.chunks(size) {
            scan.feed(chunk);
        }
        assert_eq!(scan.decoded_len(), body.len() as u64);
        let streamed = scan.finish();
        assert_eq!(streamed.findings, buffered.findings, "chunks of {size}");
    }
    // Corrupt, unknown and too large: findings, not failures.
    for (coding, bytes, max, kind) in [
        ("gzip", &gz[..gz.len() - 3], 1 << 20, "corrupt_coding"),
        ("compress", &gz[..], 1 << 20, "unsupported_coding"),
        ("gzip", &gz[..], 4, "limit_exceeded"),
    ] {
        let head = Request::new("POST", b"/").header("Content-Encoding", coding.as_bytes());
        let mut scan = BodyScan::for_body_of(&profile, &head, max);
        scan.feed(bytes);
        let v = scan.finish();
        assert_eq!(v.decision, Decision::Reject, "{coding}");
        assert!(v.kinds().contains(&kind), "{coding}: {:?}", v.kinds());
    }
}

#[test]
fn a_utf16_or_utf32_signature_is_one_foreign_charset_streamed_or_buffered() {
    let profile = Profile::strict();
    let head = Request::new("POST", b"/").header("Content-Type", b"text/plain");
    let utf16: Vec<u8> = "\u{FEFF}héllo wörld"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let utf32be: Vec<u8> = [0, 0, 0xFE, 0xFF, 0, 0, 0, b'a'].to_vec();
    let cases = [
        (utf16, "this is UTF-16LE, not UTF-8 (signature FF FE)"),
        (
            utf32be,
            "this is UTF-32BE, not UTF-8 (signature 00 00 FE FF)",
        ),
        (
            b"\xFF\xFE".to_vec(),
            "this is UTF-16LE, not UTF-8 (signature FF FE)",
        ),
    ];
    for (body, message) in cases {
        let buffered = evaluate_upload(&profile, &head.clone().body(&body)).verdict;
        assert_eq!(buffered.kinds(), ["foreign_charset"], "{body:02X?}");
        assert_eq!(buffered.findings[0].message, message);
        assert_eq!(buffered.decision, Decision::Reject);
        for size in [1, 3, body.len()] {
            let mut scan = BodyScan::for_body_of(&profile, &head, 1 << 20);
            for chunk in body.chunks(size) {
                scan.feed(chunk);
            }
            assert_eq!(scan.decoded_len(), body.len() as u64);
            let streamed = scan.finish();
            assert_eq!(streamed, buffered, "chunks of {size}");
        }
    }
    // An image/png that is no PNG is read as what it is (here UTF-16), not skipped.
    let png = Request::new("POST", b"/")
        .header("Content-Type", b"image/png")
        .body(b"\xFF\xFE\xC0\xAE");
    let verdict = evaluate(&profile, &png).verdict;
    assert_eq!(verdict.decision, Decision::Reject);
    assert_eq!(verdict.kinds(), ["foreign_charset"]);
}

#[test]
fn streaming_matches_buffered_codec_findings() {
    let body = b"\xEF\xBB\xBFok\0 \xC0\xAE then \xED\xA0\x80\0\0 and \0\xE2\x82";
    let profile = Profile::strict();
    let buffered = evaluate(
        &profile,
        &Request::new("POST", b"/")
            .header("Content-Type", b"text/plain")
            .body(body),
    )
    .verdict;
    for size in [1, 2, 3, 7, body.len()] {
        let mut scan = BodyScan::new(&profile);
        for chunk in body.chunks(size) {
            scan.feed(chunk);
        }
        let streamed = scan.finish();
        assert_eq!(streamed.decision, Decision::Reject, "chunks of {size}");
        assert_eq!(streamed.counts, buffered.counts, "chunks of {size}");
        assert_eq!(streamed.findings, buffered.findings, "chunks of {size}");
        assert_eq!(
            streamed.bytes_inspected,
            body.len() as u64,
            "chunks of {size}"
        );
    }
}
