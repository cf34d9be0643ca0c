//! One reading: a request is judged as the backend reads it (coded bodies decoded), and a
//! request that backends read two ways is refused.

mod support;

use support::coders::{brotli, gzip, raw_deflate, zlib};

use proptest::prelude::*;
use utf8gate_policy::{
    CodingReading, Decision, Evaluation, FindingKind, PartEncodingReading, PathBackend, Profile,
    Request, evaluate,
};

fn post(content_type: &[u8], coding: Option<&str>, body: &[u8]) -> Request {
    let mut r = Request::new("POST", b"/submit").header("Content-Type", content_type);
    if let Some(c) = coding {
        r = r.header("Content-Encoding", c.as_bytes());
    }
    r.body(body)
}

/// Decision and the sorted kinds of the findings.
fn outcome(e: &Evaluation) -> (Decision, Vec<&'static str>) {
    let mut kinds: Vec<_> = e.verdict.findings.iter().map(|f| f.kind.as_str()).collect();
    kinds.sort_unstable();
    (e.verdict.decision, kinds)
}

fn kinds_of(profile: &Profile, request: &Request) -> Vec<FindingKind> {
    evaluate(profile, request)
        .verdict
        .findings
        .iter()
        .map(|f| f.kind)
        .collect()
}

fn rejects_with(profile: &Profile, request: &Request, kind: FindingKind) {
    let e = evaluate(profile, request);
    assert_eq!(
        e.verdict.decision,
        Decision::Reject,
        "{request:?}: {:?}",
        e.verdict.findings
    );
    assert!(
        e.verdict.findings.iter().any(|f| f.kind == kind),
        "{request:?}: expected {kind}, got {:?}",
        kinds_of(profile, request)
    );
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

#[test]
fn the_head_has_one_reading() {
    let strict = Profile::strict();
    let get = |headers: &[(&str, &[u8])]| {
        headers
            .iter()
            .fold(Request::new("GET", b"/"), |r, (n, v)| r.header(n, v))
    };
    use FindingKind::*;
    for (headers, kind) in [
        (
            &[("Host", &b"a.example"[..]), ("Host", b"b.example")][..],
            RepeatedHeader,
        ),
        (
            &[
                ("Content-Type", &b"text/plain"[..]),
                ("Content-Type", b"application/json"),
            ][..],
            RepeatedHeader,
        ),
        (
            &[("Content-Length", &b"5"[..]), ("Content-Length", b"6")][..],
            RepeatedHeader,
        ),
        (&[("Content-Length", &b"5, 6"[..])][..], RepeatedHeader),
        (
            &[(
                "Content-Type",
                &b"multipart/form-data; boundary=a; boundary=b"[..],
            )][..],
            RepeatedParameter,
        ),
        (
            &[(
                "Content-Type",
                &b"text/plain; charset=utf-8; Charset=latin1"[..],
            )][..],
            RepeatedParameter,
        ),
        (
            &[("Host", &b"b\xC3\xBCcher.example"[..])][..],
            MalformedHost,
        ),
        (&[("Host", &b"ex%61mple.com"[..])][..], MalformedHost),
        (&[("Host", &b"example.com:80x"[..])][..], MalformedHost),
        (&[("Host", &b"a.example\x00.evil"[..])][..], MalformedHost),
    ] {
        rejects_with(&strict, &get(headers), kind);
    }
    for benign in [
        &[
            ("Host", &b"example.com:8080"[..]),
            ("Content-Length", b"5"),
            ("Content-Length", b"5"),
        ][..],
        &[("Host", &b"[::1]:8080"[..])][..],
        &[("Host", &b"xn--bcher-kva.example"[..])][..],
    ] {
        let e = evaluate(&strict, &get(benign));
        assert_eq!(
            e.verdict.decision,
            Decision::Allow,
            "{benign:?}: {:?}",
            e.verdict.findings
        );
    }
}

fn multipart(parts: &[&[u8]]) -> Request {
    let mut body = Vec::new();
    for p in parts {
        body.extend_from_slice(b"--BB\r\n");
        body.extend_from_slice(p);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(b"--BB--\r\n");
    post(b"multipart/form-data; boundary=BB", None, &body)
}

#[test]
fn multipart_parts_have_one_reading() {
    let strict = Profile::strict();
    use FindingKind::*;
    let cases: &[(&[u8], FindingKind)] = &[
        (b"Content-Disposition: form-data; name=\"a\"\r\nContent-Disposition: form-data; name=\"b\"; filename=\"x\"\r\n\r\nv", RepeatedHeader),
        (b"Content-Disposition: form-data; name=\"a\"\r\nContent-Type: text/plain\r\nContent-Type: image/png\r\n\r\nv", RepeatedHeader),
        (b"Content-Disposition: form-data; name=\"a\"; name=\"b\"\r\n\r\nv", RepeatedParameter),
        (b"Content-Disposition: form-data; name=\"f\"; filename=\"a\"; filename=\"b\"\r\n\r\nv", RepeatedParameter),
        (b"Content-Disposition: form-data; name=\"f\"; filename*0*=UTF-8''%2e%2e; filename*1*=%2fetc\r\n\r\nv", AmbiguousParameter),
        (b"Content-Disposition: form-data; name=\"f\"; filename=\"a\\\\b\"\r\n\r\nv", AmbiguousParameter),
        (b"Content-Disposition: form-data; name=\"f\"; filename=\"safe.txt\"; filename*=UTF-8''..%2F..%2Fetc\r\n\r\nv", AmbiguousParameter),
        (b"Content-Disposition: form-data; name=\"f\"; filename*=ISO-8859-1''caf%E9\r\n\r\nv", ForeignCharset),
        (b"Content-Disposition: form-data; name=\"a\"\r\nContent-Transfer-Encoding: base64\r\n\r\nwK7ArlwvZXRj", TransferEncodedPart),
        (b"Content-Disposition: form-data; name=\"a\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n=C0=AE", TransferEncodedPart),
        (b"Content-Disposition: form-data; name=\"a\"\r\nContent-Type: text/plain; charset=shift_jis\r\n\r\nv", ForeignCharset),
        (b"Content-Disposition: form-data; name=\"_charset_\"\r\n\r\nutf-7", ForeignCharset),
        (b"Content-Disposition: form-data;\r\n name=\"folded\"\r\n\r\nv", MalformedBody),
        (b"Content-Disposition : form-data; name=\"a\"\r\n\r\nv", MalformedBody),
        (b"Content-Disposition: form-data; name=\"a\"\r\n\r\nv\n--BB\nContent-Disposition: form-data; name=\"b\"\n\nhidden", MalformedBody),
        // A part without a filename is a form field, whatever type it declares.
        (b"Content-Disposition: form-data; name=\"a\"\r\nContent-Type: application/octet-stream\r\n\r\n..\xC0\xAF..", Overlong),
    ];
    for (part, kind) in cases {
        rejects_with(&strict, &multipart(&[part]), *kind);
    }
    // Opted in, transfer encodings are decoded and their content checked.
    let mut decoding = Profile::strict();
    decoding.readings.multipart_transfer_encoding = PartEncodingReading::Decode;
    let b64 = multipart(&[b"Content-Disposition: form-data; name=\"a\"\r\nContent-Transfer-Encoding: base64\r\n\r\nwK7ArlwvZXRj"]);
    rejects_with(&decoding, &b64, FindingKind::Overlong);
    let clean = multipart(&[b"Content-Disposition: form-data; name=\"a\"\r\nContent-Transfer-Encoding: base64\r\n\r\naGVsbG8="]);
    assert_eq!(
        evaluate(&decoding, &clean).verdict.decision,
        Decision::Allow
    );
    // Opted in (and with foreign charsets only logged), parts are transcoded and checked.
    let mut transcoding = Profile::strict();
    transcoding.readings.charsets = utf8gate_policy::CharsetReading::Transcode;
    transcoding.set(
        FindingKind::ForeignCharset,
        utf8gate_policy::Rule {
            default: utf8gate_policy::Action::Log,
            classes: Default::default(),
        },
    );
    let part = |charset: &str, content: &[u8]| {
        let head = format!(
            "Content-Disposition: form-data; name=\"a\"\r\nContent-Type: text/plain; charset={charset}\r\n\r\n"
        );
        multipart(&[&[head.as_bytes(), content].concat()])
    };
    // "あ" in Shift_JIS reads as it should.
    assert_eq!(
        evaluate(&transcoding, &part("shift_jis", b"\x82\xa0"))
            .verdict
            .decision,
        Decision::Allow
    );
    // U+202E in UTF-16LE: only the transcoded reading holds the bidi override.
    let mut bidi_rejecting = transcoding.clone();
    bidi_rejecting.set(
        FindingKind::BidiControl,
        utf8gate_policy::Rule {
            default: utf8gate_policy::Action::Reject,
            classes: Default::default(),
        },
    );
    rejects_with(
        &bidi_rejecting,
        &part("utf-16le", b"a\x00\x2e\x20"),
        FindingKind::BidiControl,
    );
    // Bytes that do not decode in the charset, or an unknown label (UTF-7 is no WHATWG
    // encoding), stay refused.
    for (charset, content) in [("utf-7", &b"+ADw-"[..]), ("shift_jis", b"\x82")] {
        let e = evaluate(&transcoding, &part(charset, content));
        assert!(
            e.verdict
                .findings
                .iter()
                .filter(|f| f.kind == FindingKind::ForeignCharset)
                .count()
                >= 2,
            "{charset}"
        );
    }
}

#[test]
fn benign_multipart_shapes_pass_untouched() {
    let strict = Profile::strict();
    // Chrome and Firefox shapes: quoted names, a file with its type, the same in both forms.
    let body = "------WebKitFormBoundary7MA4YWxkTrZu0gW\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n山田太郎のレポート\r\n------WebKitFormBoundary7MA4YWxkTrZu0gW\r\nContent-Disposition: form-data; name=\"file\"; filename=\"レポート.txt\"\r\nContent-Type: text/plain\r\n\r\nZoë, Ólafur, Đặng\r\n------WebKitFormBoundary7MA4YWxkTrZu0gW\r\nContent-Disposition: form-data; name=\"img\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n\x00\x01binary\r\n------WebKitFormBoundary7MA4YWxkTrZu0gW--\r\n";
    let r = post(
        b"multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW",
        None,
        body.as_bytes(),
    );
    let e = evaluate(&strict, &r);
    assert_eq!(
        e.verdict.decision,
        Decision::Allow,
        "{:?}",
        e.verdict.findings
    );
    assert!(e.verdict.findings.is_empty(), "{:?}", e.verdict.findings);
    // .NET's HttpClient sends both forms of the filename, equal.
    let both = multipart(&[b"Content-Disposition: form-data; name=\"f\"; filename=\"r.txt\"; filename*=utf-8''r.txt\r\n\r\nv"]);
    assert_eq!(evaluate(&strict, &both).verdict.decision, Decision::Allow);
}

#[test]
fn paths_as_servlet_containers_read_them() {
    let strict = Profile::strict();
    for path in [
        &b"/a/..;/admin"[..],
        b"/a/%2e%2e;x/admin",
        b"/.;/admin",
        b"/a/..%3bjsessionid=1/admin",
    ] {
        rejects_with(&strict, &Request::new("GET", path), FindingKind::DotSegment);
    }
    let mut rfc = Profile::strict();
    rfc.readings.path_backend = PathBackend::Rfc3986;
    assert_eq!(
        evaluate(&rfc, &Request::new("GET", b"/a/..;/admin"))
            .verdict
            .decision,
        Decision::Allow
    );
    for path in [&b"/a;v=1/b"[..], b"/shop;jsessionid=ABC/cart", b"/a/b;c=d"] {
        let e = evaluate(&strict, &Request::new("GET", path));
        assert_eq!(
            e.verdict.decision,
            Decision::Allow,
            "{:?}",
            e.verdict.findings
        );
    }
}

#[test]
fn untyped_and_plain_bodies_are_also_read_as_json_and_forms() {
    let strict = Profile::strict();
    for ct in [&b"text/plain"[..], b"application/octet-stream", b""] {
        rejects_with(
            &strict,
            &post(ct, None, b"{\"a\":\"\\u0000\"}"),
            FindingKind::Nul,
        );
        rejects_with(
            &strict,
            &post(ct, None, b"[\"\\ud800\"]"),
            FindingKind::EscapedSurrogate,
        );
    }
    rejects_with(&strict, &post(b"", None, b"a=1&b=%00"), FindingKind::Nul);
    rejects_with(
        &strict,
        &post(b"", None, b"f=..%c0%af..%c0%afetc"),
        FindingKind::Traversal,
    );
    // Suffix types follow their base type.
    rejects_with(
        &strict,
        &post(b"application/problem+json", None, b"{\"a\":\"\\u0000\"}"),
        FindingKind::Nul,
    );
    // Ordinary text that merely looks like JSON passes, and is not rewritten twice.
    let e = evaluate(
        &strict,
        &post(b"text/plain", None, "{\"a\":\"café\"}".as_bytes()),
    );
    assert_eq!(
        e.verdict.decision,
        Decision::Allow,
        "{:?}",
        e.verdict.findings
    );
}

#[test]
fn new_kinds_are_refused_by_every_built_in_profile() {
    for name in ["strict", "windows-backend", "lossy"] {
        let p = Profile::built_in(name).unwrap();
        let r = Request::new("GET", b"/")
            .header("Host", b"a")
            .header("Host", b"b");
        assert_eq!(
            evaluate(&p, &r).verdict.decision,
            Decision::Reject,
            "{name}"
        );
    }
}
