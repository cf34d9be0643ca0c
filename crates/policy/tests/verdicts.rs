//! Data-driven verdicts: whole requests through one helper, the expected verdict as text.
//!
//! The summary lists the decision, then each finding as `kind@part[name|pointer|index]:action`
//! with its offset, in request order. New cases go at the end of the table they belong to.

use utf8gate_policy::{Evaluation, Profile, Request, evaluate, evaluate_upload};

fn summary(profile: &Profile, request: &Request) -> String {
    summary_of(evaluate(profile, request))
}

fn summary_of(e: Evaluation) -> String {
    let mut out = e.verdict.decision.as_str().to_string();
    for f in &e.verdict.findings {
        let l = &f.location;
        let detail = l
            .name
            .as_deref()
            .or(l.pointer.as_deref())
            .map(str::to_string)
            .or_else(|| l.index.map(|i| i.to_string()));
        let part = serde_json::to_value(l.part).unwrap();
        let part = part.as_str().unwrap();
        out.push_str(&format!(
            " {}@{}{}:{}+{}",
            f.kind.as_str(),
            part,
            detail.map(|d| format!("[{d}]")).unwrap_or_default(),
            f.action.as_str(),
            f.offset
        ));
    }
    out
}

fn check(profile: &Profile, request: Request, expect: &str) {
    assert_eq!(summary(profile, &request), expect, "{request:?}");
}

/// [`check`] for `request` evaluated as an upload.
fn check_upload(profile: &Profile, request: Request, expect: &str) {
    let summary = summary_of(evaluate_upload(profile, &request));
    assert_eq!(summary, expect, "{request:?}");
}

fn get(target: &[u8]) -> Request {
    Request::new("GET", target)
}

fn post(content_type: &str, body: &[u8]) -> Request {
    Request::new("POST", b"/submit")
        .header("Content-Type", content_type.as_bytes())
        .body(body)
}

#[test]
fn founding_texts_and_incidents() {
    let strict = Profile::strict();
    // RFC 3629 §10: the overlong '.' in "/../".
    check(
        &strict,
        get(b"/%2F%C0%AE%2E%2F"),
        "reject encoded_separator@path:log+1 overlong@path:reject+2 traversal@path:reject+2 encoded_separator@path:log+5",
    );
    // Nimda / IIS: double-decoded backslash.
    check(
        &strict,
        get(b"/scripts/..%255c../winnt/system32/cmd.exe"),
        "reject double_encoding@path:reject+11 traversal@path:reject+11",
    );
    // IIS %u escape.
    check(
        &strict,
        get(b"/a/%u002e%u002e/b"),
        "reject iis_unicode_escape@path:reject+3 traversal@path:reject+3",
    );
    // Java modified UTF-8 NUL in a query value.
    check(
        &strict,
        get(b"/f?name=a%C0%80.jpg"),
        "reject overlong@query_value[name]:reject+1 nul@query_value[name]:reject+1",
    );
    // CESU-8 in a header.
    check(
        &strict,
        get(b"/").header("X-Name", b"\xED\xA0\xBD\xED\xB8\x80"),
        "reject cesu8_pair@header[X-Name]:reject+0",
    );
    // Trojan Source in a JSON string is logged; in a query it is rejected.
    check(
        &strict,
        post(
            "application/json",
            "{\"code\":\"if x \u{202E}y\"}".as_bytes(),
        ),
        "allow bidi_control@json_string[/code]:log+5",
    );
    check(
        &strict,
        get(b"/?c=%E2%80%AE"),
        "reject bidi_control@query_value[c]:reject+0",
    );
    // CVE-2024-4577: the soft hyphen that best-fits to '-'.
    // On the wire it is the single byte AD: a stray continuation byte in UTF-8.
    check(
        &strict,
        get(b"/php-cgi/php-cgi.exe?%ADd+allow_url_include%3d1"),
        "reject unexpected_continuation@query_key[\u{FFFD}d allow_url_include=1]:reject+0",
    );
    // As the character U+00AD it is text by default and a lookalike of '-' for Windows.
    check(
        &strict,
        get(b"/php-cgi/php-cgi.exe?%C2%ADd+allow_url_include%3d1"),
        "allow lookalike@query_key[\u{AD}d allow_url_include=1]:log+0",
    );
    check(
        &Profile::windows_backend(),
        get(b"/php-cgi/php-cgi.exe?%C2%ADd+allow_url_include%3d1"),
        "reject lookalike@query_key[\u{AD}d allow_url_include=1]:reject+0",
    );
}

#[test]
fn every_check_in_its_locations() {
    let strict = Profile::strict();
    check(&strict, get(b"/a%00b"), "reject nul@path:reject+2");
    check(
        &strict,
        get(b"/?q=a%0d%0aSet-Cookie:x"),
        "reject control@query_value[q]:reject+1",
    );
    check(
        &strict,
        post("text/plain", b"line\r\nnext\tcol\x1b[31m"),
        "allow control@body:log+14",
    );
    check(
        &strict,
        post("text/plain", "x\u{FDD0}".as_bytes()),
        "allow noncharacter@body:log+1",
    );
    check(
        &strict,
        post("application/json", b"{\"a\":\"\\u0000\"}"),
        "reject nul@json_string[/a]:reject+0",
    );
    check(
        &strict,
        post("application/json", b"{\"a\":\"\\ud800\"}"),
        "reject escaped_surrogate@json_string[/a]:reject+0",
    );
    check(
        &strict,
        post("application/json", b"{\"a\":1,}"),
        "reject malformed_body@body:reject+7",
    );
    check(
        &strict,
        post("application/json", b"{\"a\\/b\":\"x\xC0\xAE\"}"),
        "reject overlong@json_string[/a~1b]:reject+1",
    );
    check(
        &strict,
        post("text/plain; charset=iso-8859-1", b"caf\xE9"),
        "reject foreign_charset@body:reject+0",
    );
    check(
        &strict,
        post("application/x-www-form-urlencoded", b"a=%252e%252e"),
        "reject double_encoding@form_value[a]:reject+0 traversal@form_value[a]:reject+0",
    );
    check(
        &strict,
        post("text/plain", "a\u{FEFF}b".as_bytes()),
        "allow misplaced_bom@body:log+1",
    );
    check(
        &strict,
        get(b"/?q=a%EF%BB%BFb"),
        "reject misplaced_bom@query_value[q]:reject+1",
    );
    check(
        &strict,
        post("text/plain", "e\u{301}".as_bytes()),
        "sanitize not_nfc@body:normalize+0",
    );
    check(
        &strict,
        post(
            "text/plain",
            format!("a{}", "\u{301}".repeat(31)).as_bytes(),
        ),
        "reject not_nfc@body:normalize+0 excessive_combining@body:reject+1",
    );
    check(&strict, get(b"/a/./b"), "reject dot_segment@path:reject+3");
    check(
        &strict,
        get(b"/files/%2e%2e/etc"),
        "reject dot_segment@path:reject+7",
    );
    check(
        &strict,
        get("/a/\u{FF0E}\u{FF0E}\u{FF0F}b"
            .replace('\u{FF0E}', "%EF%BC%8E")
            .replace('\u{FF0F}', "%EF%BC%8F")
            .as_bytes()),
        "reject lookalike@path:log+3 traversal@path:reject+3",
    );
    let multipart = b"--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"..\xC0\xAF..\xC0\xAFboot.ini\"\r\n\r\nx\r\n--b--\r\n";
    check(
        &strict,
        post("multipart/form-data; boundary=b", multipart),
        "reject overlong@multipart_filename[f]:reject+2 traversal@multipart_filename[f]:reject+2 overlong@multipart_filename[f]:reject+6",
    );
    let multipart = b"--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"../../etc/passwd\"\r\n\r\nx\r\n--b--\r\n";
    check(
        &strict,
        post("multipart/form-data; boundary=b", multipart),
        "reject dot_segment@multipart_filename[f]:reject+0",
    );
    let binary = b"--b\r\nContent-Disposition: form-data; name=\"img\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xFF\xFE\r\n--b--\r\n";
    check(
        &strict,
        post("multipart/form-data; boundary=b", binary),
        "allow",
    );
    check(
        &strict,
        post("application/octet-stream", b"%PDF-1.7\n\xFF\xFE"),
        "allow",
    );
    // A label never hides text: without a signature, an octet stream is read (here as the
    // UTF-16 its signature says).
    check(
        &strict,
        post("application/octet-stream", b"\xFF\xFE"),
        "reject foreign_charset@body:reject+0",
    );
    // Binary is not text through every way in: an upload of a binary type (or a binary file
    // part) is read only under `scan_binary`, as a proxied body is.
    let mut scan_binary = Profile::strict();
    scan_binary.scan_binary = true;
    for (profile, expect) in [
        (&strict, "allow"),
        (&scan_binary, "reject invalid_byte@body:reject+9"),
    ] {
        check_upload(
            profile,
            post("application/octet-stream", b"%PDF-1.7\n\xFF\xFE"),
            expect,
        );
    }
    check_upload(
        &scan_binary,
        post("application/octet-stream", b"%PDF-1.7\n\xFE\xC0"),
        "reject invalid_byte@body:reject+9 truncated@body:reject+10",
    );
    check_upload(
        &strict,
        post("multipart/form-data; boundary=b", binary),
        "allow",
    );
    check_upload(
        &scan_binary,
        post("multipart/form-data; boundary=b", binary),
        "reject unexpected_continuation@multipart_content[img]:reject+0 control@multipart_content[img]:log+6 nul@multipart_content[img]:reject+8 invalid_byte@multipart_content[img]:reject+16",
    );
    // The mode is a record of how a request arrived: it changes nothing in `evaluate`.
    check(
        &strict,
        post("application/octet-stream", b"%PDF-1.7\n\xFF\xFE").mode(utf8gate_policy::Mode::Scan),
        "allow",
    );
}

#[test]
fn an_upload_is_its_body() {
    let strict = Profile::strict();
    // The submitting call's path, query and other headers are not the upload's.
    let call = Request::new("POST", b"/v1/%c0%ae%c0%ae/scan?x=%00")
        .header("X-Note", b"\xC0\xAE")
        .header("Content-Type", b"text/plain")
        .body(b"plain text");
    check_upload(&strict, call.clone(), "allow");
    assert_eq!(summary(&strict, &call).split(' ').next(), Some("reject"));
    // Its head must still read one way.
    check_upload(
        &strict,
        call.header("Content-Type", b"application/json"),
        "reject repeated_header@header[content-type]:reject+0",
    );
    // A sanitized upload differs in its body only.
    let upload = Request::new("POST", b"/")
        .header("Content-Type", b"text/plain")
        .body(b"\xEF\xBB\xBFtext");
    let e = evaluate_upload(&strict, &upload);
    let sanitized = e.sanitized.expect("the BOM is stripped");
    assert_eq!(sanitized.body, &b"text"[..]);
    assert_eq!(
        (sanitized.path, sanitized.headers),
        (upload.path, upload.headers)
    );
}

#[test]
fn profiles_decide_differently() {
    let cesu = post("text/plain", b"\xEF\xBB\xBFsmile \xED\xA0\xBD\xED\xB8\x80");
    check(
        &Profile::strict(),
        cesu.clone(),
        "reject bom@body:strip+0 cesu8_pair@body:reject+9",
    );
    check(
        &Profile::lossy(),
        cesu.clone(),
        "sanitize bom@body:log+0 cesu8_pair@body:replace+9",
    );
    let monitor = Profile::built_in("monitor").unwrap();
    check(
        &monitor,
        cesu.clone(),
        "reject bom@body:strip+0 cesu8_pair@body:reject+9",
    );
    let e = evaluate(&monitor, &cesu);
    assert!(!e.verdict.enforced && e.sanitized.is_none());
    let repair = Profile::from_toml(
        "name = \"repair\"\n[actions.cesu8_pair]\ndefault = \"repair\"\n",
        "t",
    )
    .unwrap();
    let e = evaluate(&repair, &cesu);
    assert_eq!(e.sanitized.unwrap().body, "smile 😀".as_bytes());
}

#[test]
fn limits_bound_the_work() {
    let mut p = Profile::strict();
    p.limits.max_findings = 3;
    let e = evaluate(&p, &post("text/plain", &b"\xFFa".repeat(100)));
    assert_eq!(e.verdict.findings.len(), 3);
    assert!(e.verdict.findings_truncated);
    assert_eq!(e.verdict.counts["invalid_byte"], 100);
    // Adjacent findings of one kind are one finding: a run, its length covering them all.
    let e = evaluate(&p, &post("text/plain", &[0xFF; 100]));
    assert_eq!(e.verdict.findings.len(), 1);
    assert!(!e.verdict.findings_truncated);
    assert_eq!(e.verdict.findings[0].length, 100);
    assert_eq!(e.verdict.findings[0].run, Some(100));
    assert_eq!(e.verdict.counts["invalid_byte"], 100);
    p.limits.max_json_depth = 4;
    check(
        &p,
        post("application/json", b"[[[[[1]]]]]"),
        "reject limit_exceeded@body:reject+4",
    );
    p.limits.max_parameters = 2;
    check(
        &p,
        get(b"/?a&b&c"),
        "reject limit_exceeded@query_key:reject+0",
    );
    p.limits.max_multipart_parts = 1;
    check(
        &p,
        post(
            "multipart/form-data; boundary=b",
            b"--b\r\n\r\nx\r\n--b\r\n\r\ny\r\n--b--",
        ),
        "reject limit_exceeded@body:reject+0",
    );
}
