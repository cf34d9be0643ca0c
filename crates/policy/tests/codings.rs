//! Coded bodies: judged by what they decode to; codings that cannot be read, corrupt streams
//! and bombs refused.

mod support;

use support::coders::{brotli, gzip, raw_deflate, zlib};
use support::requests::{post, rejects_with};

use proptest::prelude::*;
use utf8gate_policy::{CodingReading, Decision, Evaluation, FindingKind, Profile, evaluate};

/// Decision and the sorted kinds of the findings.
fn outcome(e: &Evaluation) -> (Decision, Vec<&'static str>) {
    let mut kinds: Vec<_> = e.verdict.findings.iter().map(|f| f.kind.as_str()).collect();
    kinds.sort_unstable();
    (e.verdict.decision, kinds)
}

/// Payloads a body may carry: clean text in several scripts, and the tricks utf8gate exists for.
const PAYLOADS: &[&[u8]] = &[
    b"{\"path\":\"..\xC0\xAF..\xC0\xAFetc/passwd\"}",
    b"{\"name\":\"\xED\xA0\xBD\xED\xB8\x80\"}",
    b"{\"a\":\"\\u0000\"}",
    b"{\"a\":\"\\ud800\"}",
    b"{\"comment\":\"Gr\xC3\xBC\xC3\x9Fe \xE5\xB1\xB1\xE7\x94\xB0\"}",
    b"{\"nfd\":\"cafe\xCC\x81\"}",
    b"\xEF\xBB\xBF{\"bom\":1}",
    b"{\"fine\":[1,2,3]}",
];

/// A coding's name and an encoder for it.
type Coder = (&'static str, fn(&[u8]) -> Vec<u8>);

fn coders() -> Vec<Coder> {
    vec![
        ("gzip", gzip),
        ("x-gzip", gzip),
        ("deflate", zlib),
        ("deflate", raw_deflate),
        ("br", brotli),
    ]
}

#[test]
fn a_coded_body_gets_the_verdict_of_its_decoded_bytes() {
    let strict = Profile::strict();
    for payload in PAYLOADS {
        let plain = evaluate(&strict, &post(b"application/json", None, payload));
        for (name, code) in coders() {
            let coded = post(b"application/json", Some(name), &code(payload));
            let e = evaluate(&strict, &coded);
            assert_eq!(outcome(&e), outcome(&plain), "{name}: {payload:?}");
            // A sanitized coded body goes upstream decoded, without its coding header.
            match (&e.sanitized, &plain.sanitized) {
                (Some(s), Some(p)) => {
                    assert_eq!(s.body, p.body, "{name}");
                    assert!(s.header_value("content-encoding").is_none());
                }
                (None, None) => {}
                other => panic!("{name}: {other:?}"),
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Differential: any body, any coding, stacked up to the limit, read as its decoded bytes.
    #[test]
    fn coded_and_plain_bodies_agree(
        body in proptest::collection::vec(
            prop_oneof![Just(b'a'), Just(b'"'), Just(b'/'), Just(b'.'), Just(0xC0u8), Just(0xAEu8),
                        Just(0xEDu8), Just(0xA0u8), Just(0x80u8), Just(b'\\'), Just(0u8), Just(0xE2u8)],
            1..200),
        first in 0usize..5,
        second in proptest::option::of(0usize..5),
        ct in prop_oneof![Just(&b"application/json"[..]), Just(&b"text/plain"[..]), Just(&b""[..])],
    ) {
        let strict = Profile::strict();
        let plain = evaluate(&strict, &post(ct, None, &body));
        let c = coders();
        let mut coded = c[first].1(&body);
        let mut header = c[first].0.to_string();
        if let Some(s) = second {
            coded = c[s].1(&coded);
            header = format!("{header}, {}", c[s].0);
        }
        let e = evaluate(&strict, &post(ct, Some(&header), &coded));
        prop_assert_eq!(outcome(&e), outcome(&plain));
    }
}

#[test]
fn codings_that_cannot_be_read_are_refused() {
    let strict = Profile::strict();
    let body = gzip(b"{\"a\":1}");
    for coding in [
        "compress", "zstd", "gzip, ", "gzip,,br", "chunked", "gzip;q=1",
    ] {
        rejects_with(
            &strict,
            &post(b"application/json", Some(coding), &body),
            FindingKind::UnsupportedCoding,
        );
    }
    // Three codings where two are allowed.
    let three = gzip(&gzip(&gzip(b"{}")));
    rejects_with(
        &strict,
        &post(b"application/json", Some("gzip, gzip, gzip"), &three),
        FindingKind::UnsupportedCoding,
    );
    // The profile may refuse every coding.
    let mut refusing = Profile::strict();
    refusing.readings.content_codings = CodingReading::Refuse;
    rejects_with(
        &refusing,
        &post(b"application/json", Some("gzip"), &body),
        FindingKind::UnsupportedCoding,
    );
    // Transfer codings other than a final chunked are codings too.
    let te = post(b"application/json", None, &body).header("Transfer-Encoding", b"gzip, chunked");
    assert_eq!(evaluate(&strict, &te).verdict.decision, Decision::Allow);
    let te = post(b"application/json", None, &body).header("Transfer-Encoding", b"chunked, gzip");
    rejects_with(&strict, &te, FindingKind::UnsupportedCoding);
    // identity is no coding.
    let plain = post(b"application/json", Some("identity"), b"{\"a\":1}");
    assert_eq!(evaluate(&strict, &plain).verdict.decision, Decision::Allow);
}

#[test]
fn corrupt_truncated_and_trailing_streams_are_refused() {
    let strict = Profile::strict();
    let good = gzip(b"{\"a\":\"clean\"}");
    let mut flipped = good.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x55;
    let truncated = &good[..good.len() - 4];
    let mut trailing = good.clone();
    trailing.extend_from_slice(b"{\"b\":\"..\xC0\xAF\"}");
    for (name, body, coding) in [
        ("flipped", flipped, "gzip"),
        ("truncated", truncated.to_vec(), "gzip"),
        ("trailing", trailing, "gzip"),
        ("not gzip", b"{\"a\":1}".to_vec(), "gzip"),
        (
            "zlib trailing",
            [zlib(b"{}"), b"xx".to_vec()].concat(),
            "deflate",
        ),
        (
            "brotli truncated",
            brotli(b"{\"a\":\"long enough text\"}")[..5].to_vec(),
            "br",
        ),
    ] {
        let e = evaluate(&strict, &post(b"application/json", Some(coding), &body));
        assert_eq!(e.verdict.decision, Decision::Reject, "{name}");
        assert!(
            e.verdict
                .findings
                .iter()
                .any(|f| f.kind == FindingKind::CorruptCoding),
            "{name}: {:?}",
            e.verdict.findings
        );
    }
    // A second gzip member is read too (as gzip readers do), not skipped.
    let two = [gzip(b"{\"a\":\"ok\",\"b\":\""), gzip(b"..\xC0\xAF\"}")].concat();
    rejects_with(
        &strict,
        &post(b"application/json", Some("gzip"), &two),
        FindingKind::Overlong,
    );
}

#[test]
fn bombs_stop_at_the_limits() {
    let mut p = Profile::strict();
    p.limits.max_decoded_bytes = 1 << 20;
    let bomb = gzip(&vec![b'a'; 4 << 20]);
    rejects_with(
        &p,
        &post(b"text/plain", Some("gzip"), &bomb),
        FindingKind::LimitExceeded,
    );
    let bomb = brotli(&vec![b'a'; 4 << 20]);
    rejects_with(
        &p,
        &post(b"text/plain", Some("br"), &bomb),
        FindingKind::LimitExceeded,
    );
    // Nested: each layer small, the whole huge.
    let nested = gzip(&gzip(&vec![0u8; 8 << 20]));
    rejects_with(
        &p,
        &post(b"text/plain", Some("gzip, gzip"), &nested),
        FindingKind::LimitExceeded,
    );
    // The expansion ratio, under the size limit.
    p.limits.max_expansion_ratio = 10;
    let airy = gzip(&vec![b'b'; 200 << 10]);
    rejects_with(
        &p,
        &post(b"text/plain", Some("gzip"), &airy),
        FindingKind::LimitExceeded,
    );
}
