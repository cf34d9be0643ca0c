//! One reading: a request that backends read two ways is refused (head, multipart, paths,
//! untyped bodies); coded bodies are in `codings.rs`.

mod support;

use support::requests::{post, rejects_with};

use utf8gate_policy::{
    Decision, FindingKind, PartEncodingReading, PathBackend, Profile, Request, evaluate,
};

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
    let body = "------WebKitFormBoundary7MA4YWxkTrZu0gW\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n山田太郎のレポート\r\n------WebKitFormBoundary7MA4YWxkTrZu0gW\r\nContent-Disposition: form-data; name=\"file\"; filename=\"レポート.txt\"\r\nContent-Type: text/plain\r\n\r\nZoë, Ólafur, Đặng\r\n------WebKitFormBoundary7MA4YWxkTrZu0gW\r\nContent-Disposition: form-data; name=\"img\"; filename=\"a.png\"\r\nContent-Type: image/gif\r\n\r\nGIF89a\x01\x00\x01\x00\x00\x01binary\r\n------WebKitFormBoundary7MA4YWxkTrZu0gW--\r\n";
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

#[test]
fn a_request_known_by_its_string_fields_only_is_reported_blind() {
    let mut blind = Request::new("GET", b"/files").header("x-file", b"a/!!!!/etc");
    blind.string_fields_only = true;
    for profile in ["strict", "windows-backend", "lossy"] {
        let profile = Profile::built_in(profile).expect("built in");
        let verdict = evaluate(&profile, &blind).verdict;
        assert_eq!(verdict.decision, Decision::Reject, "{}", profile.name);
        assert_eq!(verdict.kinds(), ["string_fields_only"], "{}", profile.name);
        assert_eq!(
            verdict.findings[0].location.part,
            utf8gate_policy::Part::Header
        );
    }
    let logging = Profile::from_toml(
        "name = \"l\"\n[actions.string_fields_only]\ndefault = \"log\"\n",
        "l.toml",
    )
    .expect("profile");
    let verdict = evaluate(&logging, &blind).verdict;
    assert_eq!(verdict.decision, Decision::Allow);
    assert_eq!(verdict.kinds(), ["string_fields_only"]);
    // The same request with its bytes: nothing to report.
    blind.string_fields_only = false;
    assert!(
        evaluate(&Profile::strict(), &blind)
            .verdict
            .findings
            .is_empty()
    );
}
