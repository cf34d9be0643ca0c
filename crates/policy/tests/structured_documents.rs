//! Structured documents wherever a backend parses them: XML bodies and their declared
//! encodings, XML and JSON multipart parts, and form fields of no type that hold JSON. Each
//! hidden byte is found at its part, and benign documents pass.

mod support;

use support::requests::{kinds_of, post, rejects_with};

use utf8gate_policy::{Decision, FindingKind, Location, Part, Profile, evaluate};

fn multipart(head: &str, content: &[u8]) -> Vec<u8> {
    let mut body = format!("--b\r\n{head}\r\n\r\n").into_bytes();
    body.extend_from_slice(content);
    body.extend_from_slice(b"\r\n--b--\r\n");
    body
}

const MULTIPART: &[u8] = b"multipart/form-data; boundary=b";

#[test]
fn an_xml_body_is_read_in_the_encoding_it_declares_or_refused() {
    let strict = Profile::strict();
    for (ct, body) in [
        (
            &b"application/xml"[..],
            &b"<?xml version='1.0' encoding='UTF-7'?><a>+ADw-script+AD4-</a>"[..],
        ),
        (
            b"text/xml",
            b"<?xml version=\"1.0\" encoding=\"ibm037\"?><a/>",
        ),
        (
            b"application/soap+xml",
            b"\xEF\xBB\xBF<?xml version='1.0' encoding='utf-16'?><a/>",
        ),
        (
            b"application/xml; charset=utf-8",
            b"<?xml version='1.0' encoding='ISO-8859-1'?><a/>",
        ),
        (b"application/xml", b"\xFF\xFE<\x00a\x00/\x00>\x00"),
    ] {
        rejects_with(&strict, &post(ct, None, body), FindingKind::ForeignCharset);
    }
    for body in [
        &b"<?xml version='1.0' encoding='UTF-8'?><a/>"[..],
        b"<?xml version='1.0' encoding='utf-8' standalone='yes'?><a/>",
        b"<?xml version='1.0' encoding='us-ascii'?><a/>",
    ] {
        let e = evaluate(&strict, &post(b"application/atom+xml", None, body));
        assert_eq!(
            e.verdict.decision,
            Decision::Allow,
            "{:?}",
            e.verdict.findings
        );
    }
}

#[test]
fn typed_xml_and_json_parts_are_read_at_their_part() {
    let strict = Profile::strict();
    for (head, content, kind) in [
        (
            "Content-Disposition: form-data; name=\"doc\"\r\nContent-Type: application/xml",
            &b"<a>&#0;</a>"[..],
            FindingKind::Nul,
        ),
        (
            "Content-Disposition: form-data; name=\"doc\"; filename=\"d.xml\"\r\nContent-Type: text/xml",
            b"<a b='&#xD800;'/>",
            FindingKind::EscapedSurrogate,
        ),
        (
            "Content-Disposition: form-data; name=\"doc\"\r\nContent-Type: application/xml",
            b"<!DOCTYPE a [<!ENTITY x 'y'>]><a>&x;</a>",
            FindingKind::XmlDoctype,
        ),
        (
            "Content-Disposition: form-data; name=\"doc\"\r\nContent-Type: image/svg+xml",
            b"<?xml version='1.0' encoding='utf-7'?><svg/>",
            FindingKind::ForeignCharset,
        ),
        (
            "Content-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json",
            b"{\"a\":\"\\u0000\"}",
            FindingKind::Nul,
        ),
    ] {
        let e = evaluate(&strict, &post(MULTIPART, None, &multipart(head, content)));
        assert_eq!(e.verdict.decision, Decision::Reject, "{head}");
        let f = e
            .verdict
            .findings
            .iter()
            .find(|f| f.kind == kind)
            .expect("the kind");
        assert_eq!(
            f.location.name.as_deref(),
            Some("doc")
                .filter(|_| !head.contains("meta"))
                .or(Some("meta"))
        );
        assert_eq!(f.location.index, Some(0));
    }
}

#[test]
fn form_fields_of_no_type_holding_json_are_read_as_json() {
    let strict = Profile::strict();
    let head = "Content-Disposition: form-data; name=\"variables\"";
    for (content, kind) in [
        (&b"{\"id\":\"\\u0000\"}"[..], FindingKind::Nul),
        (b"[\"\\ud800\"]", FindingKind::EscapedSurrogate),
        (b"{\"a\":1,\"\\u0061\":2}", FindingKind::AmbiguousJsonKey),
    ] {
        let e = evaluate(&strict, &post(MULTIPART, None, &multipart(head, content)));
        let f = e.verdict.findings.iter().find(|f| f.kind == kind);
        let f = f.unwrap_or_else(|| panic!("{kind} in {:?}", e.verdict.findings));
        assert_eq!(f.location.name.as_deref(), Some("variables"));
        assert_eq!(e.verdict.decision, Decision::Reject);
    }
    // Text that is not JSON, and JSON that is clean, pass as they are.
    for content in [
        &b"{not json \\u0000"[..],
        b"{\"q\":\"\xCE\xB1\xCE\xB2\xCE\xB3\"}",
        b"plain",
    ] {
        let request = post(MULTIPART, None, &multipart(head, content));
        assert_eq!(
            kinds_of(&strict, &request),
            [],
            "{}",
            String::from_utf8_lossy(content)
        );
    }
    // A file is stored, not parsed: its JSON escapes are not read.
    let file = "Content-Disposition: form-data; name=\"f\"; filename=\"a.txt\"";
    let request = post(MULTIPART, None, &multipart(file, b"{\"id\":\"\\u0000\"}"));
    assert_eq!(kinds_of(&strict, &request), []);
}

#[test]
fn xml_locations_serialize_with_their_path() {
    let e = evaluate(
        &Profile::strict(),
        &post(b"application/xml", None, b"<r><p a='&#0;'/></r>"),
    );
    let f = &e.verdict.findings[0];
    let expected = Location::part(Part::XmlText).with_pointer("/r/p/@a");
    assert_eq!(f.location, expected);
    let json = serde_json::to_value(&f.location).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"part": "xml_text", "pointer": "/r/p/@a"})
    );
}

#[test]
fn exclusions_and_identities_select_xml_paths() {
    let toml = r#"
name = "x"
[[exclusion]]
kinds = ["nul"]
xml = "/r/*/@a"
"#;
    let p = Profile::from_toml(toml, "x.toml").expect("profile");
    let e = evaluate(
        &p,
        &post(
            b"application/xml",
            None,
            b"<r><p a='&#0;'/><q a='&#0;'/></r>",
        ),
    );
    assert_eq!(
        e.verdict.decision,
        Decision::Allow,
        "{:?}",
        e.verdict.findings
    );
    let e = evaluate(&p, &post(b"application/xml", None, b"<r><p b='&#0;'/></r>"));
    assert_eq!(e.verdict.decision, Decision::Reject);
    assert!(
        Profile::from_toml(
            "name = \"y\"\n[[exclusion]]\nkinds = [\"nul\"]\nxml = \"r\"\n",
            "y.toml"
        )
        .is_err()
    );
}
