//! The media type and header names read as backends read them: a `Content-Type` with a second
//! reading, a charset named elsewhere (`X-Up-Devcap-Post-Charset`, a `_charset_` form field),
//! header names that are one after CGI's `-`/`_` translation or are not tokens, and the same
//! in multipart part headers. Every built-in profile refuses them; benign shapes pass.

mod support;

use support::requests::{kinds_of, post, rejects_with};

use utf8gate_policy::{CharsetReading, Decision, FindingKind, Profile, Request, evaluate};

fn profiles() -> Vec<Profile> {
    Profile::BUILT_IN
        .iter()
        .filter(|n| **n != "monitor")
        .map(|n| Profile::built_in(n).unwrap())
        .collect()
}

#[test]
fn a_content_type_with_a_second_reading_is_refused_by_every_profile() {
    for ct in [
        &b"application/x-www-form-urlencoded, text/plain"[..],
        b"text/plain, application/x-www-form-urlencoded",
        b"application/x-www-form-urlencoded-v2",
        b"application/x-www-form-urlencoded; x=\"charset=ibm037\"",
        b"text/plain; charset=utf-8, charset=ibm037",
        b"application/json junk",
        b"multipart/form-data-x; boundary=a",
    ] {
        for profile in profiles() {
            let request = post(ct, None, b"a=%C0%AE%C0%AE%2F");
            rejects_with(&profile, &request, FindingKind::AmbiguousMediaType);
        }
    }
}

#[test]
fn benign_media_types_pass() {
    for ct in [
        &b"application/x-www-form-urlencoded"[..],
        b"application/x-www-form-urlencoded;charset=UTF-8",
        b"application/x-www-form-urlencoded; charset=\"utf-8\"",
        b"text/plain;charset=US-ASCII",
        b"application/json",
        b"application/problem+json; charset=utf-8",
    ] {
        let body: &[u8] = if ct.windows(4).any(|w| w == b"json") {
            b"{\"a\":\"b\"}"
        } else {
            b"a=b"
        };
        let e = evaluate(&Profile::strict(), &post(ct, None, body));
        assert_eq!(
            e.verdict.decision,
            Decision::Allow,
            "{ct:?}: {:?}",
            e.verdict
        );
    }
}

#[test]
fn charsets_named_outside_the_media_type_are_charsets() {
    let strict = Profile::strict();
    let form = b"application/x-www-form-urlencoded";
    let devcap = post(form, None, b"q=%4c%6f").header("X-Up-Devcap-Post-Charset", b"ibm037");
    rejects_with(&strict, &devcap, FindingKind::ForeignCharset);
    let utf8 = post(form, None, b"q=a").header("X-Up-Devcap-Post-Charset", b"UTF-8");
    assert_eq!(evaluate(&strict, &utf8).verdict.decision, Decision::Allow);

    let sling = post(form, None, b"_charset_=ibm037&q=%4c%6f");
    rejects_with(&strict, &sling, FindingKind::ForeignCharset);
    let browser = post(form, None, b"_charset_=UTF-8&q=caf%C3%A9");
    assert_eq!(
        evaluate(&strict, &browser).verdict.decision,
        Decision::Allow
    );
}

#[test]
fn a_transcoding_profile_checks_form_fields_as_their_charset_reads_them() {
    let mut profile = Profile::strict();
    profile.readings.charsets = CharsetReading::Transcode;
    profile.set(
        FindingKind::ForeignCharset,
        utf8gate_policy::Rule {
            default: utf8gate_policy::Action::Log,
            classes: Default::default(),
        },
    );
    // In windows-1252, 0x85 is U+2026 and "%00" is a NUL: the transcoded field has a NUL.
    let form = b"application/x-www-form-urlencoded";
    let request = post(form, None, b"_charset_=windows-1252&q=a%00");
    rejects_with(&profile, &request, FindingKind::Nul);
    // Both readings are checked: the UTF-8 one (backends that ignore _charset_) too.
    let clean = post(form, None, b"_charset_=windows-1252&q=caf%C3%A9");
    let kinds = kinds_of(&profile, &clean);
    assert_eq!(
        evaluate(&profile, &clean).verdict.decision,
        Decision::Allow,
        "{kinds:?}"
    );
}

#[test]
fn header_names_one_after_translation_or_not_tokens_are_refused() {
    let get = |headers: &[(&str, &[u8])]| {
        headers.iter().fold(
            Request::new("GET", b"/").header("Host", b"a.example"),
            |r, (n, v)| r.header(n, v),
        )
    };
    for headers in [
        &[
            ("X-Forwarded-For", &b"1.2.3.4"[..]),
            ("X_Forwarded_For", b"127.0.0.1"),
        ][..],
        &[
            ("X_Forwarded_For", &b"127.0.0.1"[..]),
            ("x-forwarded-for", b"1.2.3.4"),
        ][..],
        &[("Content_Type", &b"application/json"[..])][..],
        &[("Transfer_Encoding", &b"chunked"[..])][..],
        &[("content_length", &b"5"[..])][..],
        &[("conten\0-extra", &b"x"[..])][..],
        &[("X-A b", &b"x"[..])][..],
    ] {
        for profile in profiles() {
            rejects_with(&profile, &get(headers), FindingKind::AmbiguousHeaderName);
        }
    }
    for benign in [
        &[("X_Request_Id", &b"42"[..])][..],
        &[("X-Request-Id", &b"1"[..]), ("x-request-id", b"2")][..],
        &[("Accept-Language", &b"fr-CH, fr;q=0.9"[..])][..],
    ] {
        let kinds = kinds_of(&Profile::strict(), &get(benign));
        assert!(
            !kinds.contains(&FindingKind::AmbiguousHeaderName),
            "{benign:?}: {kinds:?}"
        );
    }
}

/// WAFFLED's Flask bypasses: a NUL in a part header name or in the disposition type.
#[test]
fn part_header_names_and_disposition_types_are_tokens() {
    let body = |head: &str| format!("--b\r\n{head}\r\n\r\n%C0%AE\r\n--b--\r\n").into_bytes();
    for head in [
        "Content-Disposition: form-data; name=\"a\"\r\nconten\0-extra: x",
        "Content-Disposi\0tion: form-data; name=\"a\"",
        "Content-Disposition: form-da\0a; name=\"a\"",
        "Content-Disposition: attachment; name=\"a\"",
        "Content-Disposition: form-data; name=\"a\"\r\n: x",
        "Content-Disposition: form-data; name=\"a\"\r\nContent-Type: text/plain, text/html",
    ] {
        let request = post(b"multipart/form-data; boundary=b", None, &body(head));
        let e = evaluate(&Profile::lossy(), &request);
        assert_eq!(
            e.verdict.decision,
            Decision::Reject,
            "{head:?}: {:?}",
            e.verdict
        );
    }
    let fine = post(
        b"multipart/form-data; boundary=b",
        None,
        &body(
            "Content-Disposition: form-data; name=\"a\"\r\nContent-Type: text/plain; charset=utf-8",
        ),
    );
    assert_eq!(
        evaluate(&Profile::strict(), &fine).verdict.decision,
        Decision::Allow
    );
}

/// HTTP Garden: `Content-Length: 010` is 10 to RFC 9110 and 8 to an octal reader.
#[test]
fn a_content_length_with_a_leading_zero_is_two_readings() {
    let strict = Profile::strict();
    let with = |length: &[u8]| {
        Request::new("POST", b"/")
            .header("Host", b"a.example")
            .header("Content-Length", length)
            .body(b"abcdefghij")
    };
    rejects_with(&strict, &with(b"010"), FindingKind::RepeatedHeader);
    let ten = evaluate(&strict, &with(b"10")).verdict;
    assert_eq!(ten.decision, Decision::Allow, "{ten:?}");
    let zero = Request::new("POST", b"/").header("Content-Length", b"0");
    assert_eq!(evaluate(&strict, &zero).verdict.decision, Decision::Allow);
}

/// HTTP Garden: both framings in one head; a head refused before its body is read.
#[test]
fn both_framings_are_refused_and_a_refused_head_says_so_alone() {
    let strict = Profile::strict();
    let both = Request::new("POST", b"/")
        .header("Host", b"a.example")
        .header("Content-Length", b"5")
        .header("Transfer-Encoding", b"chunked");
    rejects_with(&strict, &both, FindingKind::AmbiguousFraming);
    assert!(utf8gate_policy::head_refused(&strict, &both));
    let mut hostless = Request::new("POST", b"/").header("Content-Length", b"3");
    hostless.host_required = true;
    assert!(utf8gate_policy::head_refused(&strict, &hostless));
    rejects_with(&strict, &hostless, FindingKind::MalformedHost);
    let fine = Request::new("POST", b"/")
        .header("Host", b"a.example")
        .header("Content-Type", b"application/json");
    assert!(!utf8gate_policy::head_refused(&strict, &fine));
    let monitor = Profile::built_in("monitor").unwrap();
    assert!(!utf8gate_policy::head_refused(&monitor, &both));
}

/// An XML declaration names the charset XML parsers read the document in.
#[test]
fn an_xml_declaration_is_a_charset() {
    let strict = Profile::strict();
    let utf7 = post(
        b"text/xml",
        None,
        b"<?xml version=\"1.0\" encoding=\"UTF-7\"?><a>+ADw-</a>",
    );
    rejects_with(&strict, &utf7, FindingKind::ForeignCharset);
    let utf8 = post(
        b"application/xml",
        None,
        b"<?xml version='1.0' encoding='utf-8'?><a/>",
    );
    assert_eq!(evaluate(&strict, &utf8).verdict.decision, Decision::Allow);
}

/// A key given twice in one object after escape decoding: parsers keep the first or the last.
#[test]
fn a_json_key_given_twice_is_two_readings() {
    let strict = Profile::strict();
    let json = b"application/json";
    for body in [
        &br#"{"role":"user","role":"admin"}"#[..],
        br#"{"role":"user","\u0072ole":"admin"}"#,
        br#"{"a":{"b":1,"b":2}}"#,
        br#"[{"k":1},{"k":2,"k":3}]"#,
        // One key once normalized, as a sanitized body would hold it.
        br#"{"r\u00e9":1,"re\u0301":2}"#,
        // To Go, `is_admin` (U+017F folds to `s`).
        "{\"is_admin\":false,\"i\u{17f}_admin\":true}".as_bytes(),
    ] {
        for profile in profiles() {
            rejects_with(
                &profile,
                &post(json, None, body),
                FindingKind::AmbiguousJsonKey,
            );
        }
    }
    // A text/plain body a sniffing backend reads as JSON: the same.
    let sniffed = post(b"text/plain", None, br#"{"a":1,"a":2}"#);
    rejects_with(&strict, &sniffed, FindingKind::AmbiguousJsonKey);
    for fine in [
        &br#"{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}"#[..],
        br#"{"a/b":1,"a":{"b":2}}"#,
        br#"{"is_admin":1,"IS_ADMIN":2}"#,
    ] {
        let e = evaluate(&strict, &post(json, None, fine)).verdict;
        assert!(
            !e.findings
                .iter()
                .any(|f| f.kind == FindingKind::AmbiguousJsonKey),
            "{}: {e:?}",
            String::from_utf8_lossy(fine)
        );
    }
}

/// Spring's `@RequestPart` parses a part typed JSON: its escapes are read, at the part.
#[test]
fn a_multipart_part_typed_json_is_read_as_json() {
    let strict = Profile::strict();
    let body = |ct: &str, content: &str| {
        format!(
            "--b\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: {ct}\r\n\r\n{content}\r\n--b--\r\n"
        )
        .into_bytes()
    };
    let multipart = b"multipart/form-data; boundary=b";
    let nul = post(
        multipart,
        None,
        &body("application/json", r#"{"name":"a\u0000b"}"#),
    );
    let verdict = evaluate(&strict, &nul).verdict;
    assert_eq!(verdict.decision, Decision::Reject, "{verdict:?}");
    let found = verdict.findings.iter().find(|f| f.kind == FindingKind::Nul);
    let at = found.map(|f| &f.location);
    assert!(
        at.is_some_and(|l| l.name.as_deref() == Some("meta") && l.index == Some(0)),
        "{verdict:?}"
    );
    let twice = post(
        multipart,
        None,
        &body("application/vnd.x+json", r#"{"a":1,"a":2}"#),
    );
    rejects_with(&strict, &twice, FindingKind::AmbiguousJsonKey);
    // As plain text the same escape is six ASCII characters: nothing to find.
    let text = post(
        multipart,
        None,
        &body("text/plain", r#"{"name":"a\u0000b"}"#),
    );
    assert_eq!(evaluate(&strict, &text).verdict.decision, Decision::Allow);
    let clean = post(
        multipart,
        None,
        &body("application/json", r#"{"name":"Grüße"}"#),
    );
    assert_eq!(evaluate(&strict, &clean).verdict.decision, Decision::Allow);
}

/// GraphQL over GET and `filter=` values: JSON the application parses, read as JSON too.
#[test]
fn json_inside_query_and_form_values_is_read_as_json() {
    let strict = Profile::strict();
    let get = |target: &[u8]| Request::new("GET", target).header("Host", b"a.example");
    let nul = get(b"/graphql?query=q&variables=%7B%22a%22%3A%22x%5Cu0000y%22%7D");
    let verdict = evaluate(&strict, &nul).verdict;
    let found = verdict.findings.iter().find(|f| f.kind == FindingKind::Nul);
    assert!(
        found.is_some_and(|f| f.location.name.as_deref() == Some("variables")
            && f.location.pointer.as_deref() == Some("/a")),
        "{verdict:?}"
    );
    assert_eq!(verdict.decision, Decision::Reject);
    let form = post(
        b"application/x-www-form-urlencoded",
        None,
        b"filter=%5B%7B%22k%22%3A1%2C%22k%22%3A2%7D%5D",
    );
    rejects_with(&strict, &form, FindingKind::AmbiguousJsonKey);
    for fine in [
        &b"/s?filter=%5B1%2C2%5D"[..],
        b"/s?q=%7Bnot%20json",
        b"/s?variables=%7B%22name%22%3A%22Gr%C3%BC%C3%9Fe%22%7D",
    ] {
        let verdict = evaluate(&strict, &get(fine)).verdict;
        assert_eq!(verdict.decision, Decision::Allow, "{verdict:?}");
    }
}
