//! Raw HTTP/1 request bytes, parsed by `httparse` (hyper's parser) and handed to `evaluate`
//! the way the proxy listener hands them (`crates/server/src/convert.rs`): never panics,
//! a rejection carries no sanitized request, a sanitized request is allowed when evaluated
//! again, findings stay within `max_findings`, and a gzip-coded body is judged as its plain
//! body.
//!
//! `cargo fuzz run http_request -s none` (stable toolchain).
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use utf8gate_policy::{Decision, Mode, Profile, Request, evaluate};

/// Most header lines parsed; a longer head is skipped, as hyper refuses it.
const MAX_HEADERS: usize = 64;

fuzz_target!(|data: &[u8]| {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut parsed = httparse::Request::new(&mut headers);
    let Ok(httparse::Status::Complete(head_len)) = parsed.parse(data) else {
        return;
    };
    let (Some(method), Some(target)) = (parsed.method, parsed.path) else {
        return;
    };
    let rest = &data[head_len..];
    let body = match content_length(parsed.headers) {
        Some(n) => &rest[..n.min(rest.len())],
        None => rest,
    };

    // As `convert::to_policy`: the URI's path and query, names as `http` stores them
    // (lowercase), values as raw bytes.
    let mut request = Request::new(method, &path_and_query(target.as_bytes())).mode(Mode::Proxy);
    request.headers = parsed
        .headers
        .iter()
        .map(|h| (h.name.to_ascii_lowercase().into(), h.value.to_vec()))
        .collect();
    request.body = bytes::Bytes::copy_from_slice(body);

    let profile = Profile::strict();
    let first = evaluate(&profile, &request);
    assert!(first.verdict.findings.len() <= profile.limits.max_findings);
    if first.verdict.decision == Decision::Reject {
        assert!(first.sanitized.is_none());
    }
    if let Some(sanitized) = &first.sanitized {
        let second = evaluate(&profile, sanitized);
        assert_eq!(
            second.verdict.decision,
            Decision::Allow,
            "{:?}",
            second.verdict.findings
        );
    }

    // Differential: the same body sent gzip-coded is read as the plain one.
    let coded_header = |n: &str| {
        n.eq_ignore_ascii_case("content-encoding") || n.eq_ignore_ascii_case("transfer-encoding")
    };
    if !request.headers.iter().any(|(n, _)| coded_header(n)) {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&request.body).unwrap();
        let mut coded = request.clone();
        coded.headers.retain(|(n, _)| !coded_header(n));
        coded
            .headers
            .push(("content-encoding".into(), b"gzip".to_vec()));
        coded.body = gz.finish().unwrap().into();
        let second = evaluate(&profile, &coded);
        assert_eq!(
            first.verdict.decision, second.verdict.decision,
            "plain {:?}\ngzip {:?}",
            first.verdict.findings, second.verdict.findings
        );
        assert_eq!(first.verdict.counts, second.verdict.counts);
    }
});

/// The first `Content-Length` as a decimal number, if it is one.
fn content_length(headers: &[httparse::Header<'_>]) -> Option<usize> {
    let h = headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("content-length"))?;
    let text = core::str::from_utf8(h.value).ok()?.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// What `Uri::path_and_query` gives for a request target: an absolute-form target loses its
/// scheme and authority, and an empty path is `/`.
fn path_and_query(target: &[u8]) -> Vec<u8> {
    let lower = target.to_ascii_lowercase();
    let after_scheme = if lower.starts_with(b"http://") {
        7
    } else if lower.starts_with(b"https://") {
        8
    } else {
        return if target.is_empty() {
            b"/".to_vec()
        } else {
            target.to_vec()
        };
    };
    let rest = &target[after_scheme..];
    let path_at = rest
        .iter()
        .position(|&b| b == b'/' || b == b'?')
        .unwrap_or(rest.len());
    let mut out = rest[path_at..].to_vec();
    if !out.starts_with(b"/") {
        out.insert(0, b'/');
    }
    out
}
