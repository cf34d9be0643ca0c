use crate::decide::verdict::Decision;
use crate::finding::FindingKind;
use crate::location::Part;
use crate::profile::{Profile, XmlDoctypeReading};
use crate::readings::xml::text::{self, RawAttribute};
use crate::request::Request;
use crate::{Evaluation, evaluate};

mod attributes;
mod kept;

fn xml(body: &[u8]) -> Evaluation {
    xml_under(&Profile::strict(), body)
}

fn xml_under(profile: &Profile, body: &[u8]) -> Evaluation {
    let request = Request::new("POST", b"/soap")
        .header("content-type", b"application/xml")
        .body(body);
    evaluate(profile, &request)
}

fn kinds(body: &[u8]) -> Vec<FindingKind> {
    xml(body).verdict.findings.iter().map(|f| f.kind).collect()
}

#[track_caller]
fn refused_as(body: &[u8], kind: FindingKind) {
    let e = xml(body);
    assert_eq!(
        e.verdict.decision,
        Decision::Reject,
        "{}",
        String::from_utf8_lossy(body)
    );
    assert!(
        e.verdict.findings.iter().any(|f| f.kind == kind),
        "{kind:?} not in {:?} for {}",
        e.verdict.kinds(),
        String::from_utf8_lossy(body)
    );
}

#[test]
fn references_are_decoded_and_checked() {
    refused_as(b"<a>x&#0;y</a>", FindingKind::Nul);
    refused_as(b"<a>x&#x0;y</a>", FindingKind::Nul);
    refused_as(b"<a b='&#0;'/>", FindingKind::Nul);
    refused_as(b"<a>&#xD800;</a>", FindingKind::EscapedSurrogate);
    refused_as(b"<a>&#55296;</a>", FindingKind::EscapedSurrogate);
    refused_as(b"<a>&#1;</a>", FindingKind::Control);
    assert_eq!(kinds(b"<a>&#x202E;evil</a>"), [FindingKind::BidiControl]);
    // Not references: refused as not XML.
    for body in [
        &b"<a>&#x110000;</a>"[..],
        b"<a>&#X41;</a>",
        b"<a>&#;</a>",
        b"<a>&#x41</a>",
        b"<a>& b</a>",
        b"<a>&foo;</a>",
        b"<a b='&xxe;'/>",
    ] {
        refused_as(body, FindingKind::MalformedBody);
    }
    let e = xml(b"<a t='&lt;&#x41;&#66;&amp;'>&quot;&apos;&gt;</a>");
    assert_eq!(
        e.verdict.decision,
        Decision::Allow,
        "{:?}",
        e.verdict.findings
    );
}

/// A document that is not UTF-8 is one text field: the codec says where (a lossy profile
/// replaces the bytes in place).
#[test]
fn raw_malformed_bytes_anywhere_are_found() {
    for body in [
        &b"<a>\xC0\xAE\xC0\xAE/</a>"[..],
        b"<a b='\xED\xA0\x80'/>",
        b"<\xC0\xAE/>",
        b"<a><!-- \xF8\x88\x80\x80\x80 --></a>",
    ] {
        let e = xml(body);
        assert_eq!(e.verdict.decision, Decision::Reject);
        assert!(
            e.verdict
                .findings
                .iter()
                .any(|f| f.kind.is_malformed_utf8())
        );
    }
}

#[test]
fn not_well_formed_is_refused() {
    for body in [
        &b"<a/><b/>"[..],
        b"<a></a>junk",
        b"junk<a/>",
        b"<a>",
        b"<a></b>",
        b"</a>",
        b"<a b='1' b='2'/>",
        b"<a b='1'c='2'/>",
        b"<a b=1/>",
        b"<a b/>",
        b"<a b='<'/>",
        b"<a>]]></a>",
        b"<a><!-- a -- b --></a>",
        b"<1a/>",
        b"<a 1b='x'/>",
        b"<a/><?xml version='1.0'?>",
        b"<?xml version='1.1'?><a/>",
        b"<a><?xml x?></a>",
        b"<![CDATA[x]]><a/>",
        b"<a/><!DOCTYPE a>",
    ] {
        refused_as(body, FindingKind::MalformedBody);
    }
}

#[test]
fn doctypes_with_entities_or_external_dtds_are_refused() {
    for body in [
        &b"<!DOCTYPE a [<!ENTITY x 'y'>]><a>&x;</a>"[..],
        b"<!DOCTYPE a [<!ENTITY % p SYSTEM 'http://evil/x.dtd'> %p;]><a/>",
        b"<!DOCTYPE a SYSTEM 'http://evil.example/x.dtd'><a/>",
        b"<!DOCTYPE a PUBLIC '-//x//y' 'file:///etc/passwd'><a/>",
        b"<!DOCTYPE a [<!ATTLIST a b CDATA 'x'>]><a/>",
        b"<!DOCTYPE a [%p;]><a/>",
        b"<!DOCTYPE a PUBLIC '-//W3C' 'http://www.w3.org/<!ENTITY'><a/>",
    ] {
        refused_as(body, FindingKind::XmlDoctype);
    }
    for body in [
        &b"<!doctype a><a/>"[..],
        b"<!DOCTYPE><a/>",
        b"<!DOCTYPE 1a><a/>",
        b"<!DOCTYPE a junk><a/>",
        b"<!DOCTYPE a SYSTEM><a/>",
        b"<!DOCTYPE a PUBLIC '<x>' 'http://www.w3.org/x'><a/>",
        b"<!DOCTYPE a [<!ELEMENT a ANY>] junk><a/>",
        b"\xEF\xBB\xBF<!DOCTYPE \n\0\0 \"-//W1C/g/\0\" ><a/>",
    ] {
        refused_as(body, FindingKind::MalformedBody);
    }
    let subset = b"<!DOCTYPE a [\n<!ELEMENT a (#PCDATA)>\n<!-- a comment -->\n]>\n<a>x</a>";
    assert_eq!(xml(subset).verdict.decision, Decision::Allow);
    let svg = b"<?xml version=\"1.0\"?><!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \
        \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\"><svg/>";
    assert_eq!(xml(svg).verdict.decision, Decision::Allow);
    assert_eq!(xml(b"<!DOCTYPE a><a/>").verdict.decision, Decision::Allow);
    let mut refuse = Profile::strict();
    refuse.readings.xml_doctype = XmlDoctypeReading::Refuse;
    let e = xml_under(&refuse, svg);
    assert_eq!(e.verdict.kinds(), ["xml_doctype"]);
}

#[test]
fn fields_have_xpath_like_locations() {
    let body = "<feed><entry/><entry x='1'><title>Ω\u{301}</title></entry></feed>";
    let e = xml(body.as_bytes());
    let f = e
        .verdict
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::NotNfc)
        .unwrap();
    assert_eq!(f.location.part, Part::XmlText);
    assert_eq!(
        f.location.pointer.as_deref(),
        Some("/feed/entry[2]/title/text()")
    );
    let body = b"<a><b h='&#0;'/></a>";
    let e = xml(body);
    let f = &e.verdict.findings[0];
    assert_eq!(f.location.pointer.as_deref(), Some("/a/b/@h"));
    let e = xml("<a><e\u{301}/></a>".as_bytes());
    let f = &e.verdict.findings[0];
    assert_eq!(
        (f.location.part, f.location.pointer.as_deref()),
        (Part::XmlName, Some("/a/e\u{301}"))
    );
}

#[test]
fn sanitize_rewrites_text_and_refuses_names() {
    let e = xml("<a t='e\u{301}'>Ame\u{301}lie &amp; x</a>".as_bytes());
    assert_eq!(e.verdict.decision, Decision::Sanitize);
    let body = e.sanitized.unwrap().body;
    assert_eq!(
        String::from_utf8(body.to_vec()).unwrap(),
        "<a t='\u{e9}'>Am\u{e9}lie &amp; x</a>"
    );
    let e = xml("<cafe\u{301}/>".as_bytes());
    assert_eq!(e.verdict.decision, Decision::Reject);
    assert_eq!(e.verdict.findings[0].kind, FindingKind::NotNfc);
}

#[test]
fn benign_documents_in_many_scripts_pass_untouched() {
    for body in [
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<soap:Envelope xmlns:soap=\"http://www.w3.org/2003/05/soap-envelope\"><soap:Body><m:Get xmlns:m=\"urn:x\"><m:Name>Ελληνικά 日本語 العربية 한국어 😀</m:Name></m:Get></soap:Body></soap:Envelope>\n",
        "\u{FEFF}<?xml version='1.0' encoding='utf-8'?><feed xmlns='http://www.w3.org/2005/Atom'><title type='text'>Привет, мир</title><!-- कोई टिप्पणी --><entry><content><![CDATA[<b>ok</b> & fine]]></content></entry></feed>",
        "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 10 10'><text x='1' y='2'>שלום</text><?pi data?></svg>",
        "<?xml version='1.0'?>\r\n<!-- before --><?pi?><r\tattr = \"v\"\n>\r\n t\u{e9}xt\t</r><!-- after -->\n",
    ] {
        let e = xml(body.as_bytes());
        // A signature is part of an XML document: kept, like everything else.
        assert_eq!(
            e.verdict.decision,
            Decision::Allow,
            "{body}: {:?}",
            e.verdict.findings
        );
    }
}

#[test]
fn an_untyped_body_with_a_declaration_is_also_read_as_xml() {
    let request = Request::new("POST", b"/").body(b"<?xml version='1.0'?><a>&#0;</a>");
    let e = evaluate(&Profile::strict(), &request);
    assert_eq!(e.verdict.kinds(), ["nul"]);
    // Not XML: nothing but the text.
    let request = Request::new("POST", b"/").body(b"<?xml version='1.0'?><a>&#0;</b>");
    assert_eq!(
        evaluate(&Profile::strict(), &request).verdict.decision,
        Decision::Allow
    );
}

#[test]
fn limits_hold() {
    let mut p = Profile::strict();
    p.limits.max_json_depth = 3;
    let e = xml_under(&p, b"<a><b><c><d/></c></b></a>");
    assert_eq!(e.verdict.kinds(), ["limit_exceeded"]);
    p.limits.max_json_strings = 4;
    let e = xml_under(&p, b"<a x='1' y='2' z='3'/>");
    assert_eq!(e.verdict.kinds(), ["limit_exceeded"]);
}

#[test]
fn many_findings_or_attributes_cost_what_their_bytes_do() {
    // 100 000 attributes in one tag: duplicates found by hashing, not by pairs.
    let mut body = b"<a".to_vec();
    for i in 0..100_000 {
        body.extend_from_slice(format!(" a{i}='&#0;'").as_bytes());
    }
    body.extend_from_slice(b"/>");
    let mut p = Profile::strict();
    p.limits.max_json_strings = 1_000_000;
    let e = xml_under(&p, &body);
    assert_eq!(e.verdict.decision, Decision::Reject);
    assert!(e.verdict.counts["nul"] >= 100);
}

#[test]
fn attribute_lists_are_read_strictly() {
    assert_eq!(
        text::attributes(" a='1'\tb = \"2\" ").unwrap(),
        [
            RawAttribute {
                name: 1..2,
                value: 4..5
            },
            RawAttribute {
                name: 7..8,
                value: 12..13
            }
        ]
    );
    assert_eq!(text::attributes("").unwrap(), []);
    for bad in [
        " a",
        " a=",
        " a='1",
        "a='1'",
        " a='1'b='2'",
        " ='1'",
        " a=1",
    ] {
        assert!(text::attributes(bad).is_err(), "{bad}");
    }
}

#[test]
fn names_follow_xml_1_0_fifth_edition() {
    for good in [
        "a",
        "_x",
        "soap:Body",
        "ελληνικά",
        "日本",
        "a-b.c·d",
        "x\u{301}",
    ] {
        assert!(text::is_name(good), "{good}");
    }
    for bad in [
        "",
        "1a",
        "-a",
        "a b",
        "a/b",
        "a\u{FFFE}",
        "\u{301}x",
        "a\u{2028}",
    ] {
        assert!(!text::is_name(bad), "{bad}");
    }
}

#[test]
fn escape_writes_markup_and_controls_as_references() {
    assert_eq!(
        text::escape(b"<a&b>\"'\x01\t\n\r", false),
        b"&lt;a&amp;b&gt;&quot;&apos;&#1;\t\n&#13;"
    );
    assert_eq!(text::escape(b"\t\n\r", true), b"&#9;&#10;&#13;");
    // A referenced line feed in an attribute value stays one through a rewrite.
    let e = xml("<a t='e\u{301}&#10;'/>".as_bytes());
    assert_eq!(e.sanitized.unwrap().body, "<a t='\u{e9}&#10;'/>".as_bytes());
    assert!(kinds(b"<a>&#x9;&#10;</a>").is_empty());
}

#[test]
fn declarations_are_read_strictly() {
    for good in [
        " version='1.0'",
        " version=\"1.0\" encoding=\"UTF-8\"",
        " version='1.0' encoding='utf-8' standalone='yes' ",
        " version = '1.0'\n standalone=\"no\"",
    ] {
        assert_eq!(text::declaration(good), Ok(()), "{good}");
    }
    for bad in [
        "",
        " ",
        " version='1.1'",
        " encoding='UTF-8' version='1.0'",
        " version='1.0' enco<!ENTITY ding='UTF-8'",
        " version='1.0'encoding='UTF-8'",
        " version='1.0' encoding='UTF-8' encoding='UTF-8'",
        " version='1.0' standalone='maybe'",
        " version='1.0' encoding='8bit'",
        " version='1.0' junk",
        " versionx='1.0'",
    ] {
        assert!(text::declaration(bad).is_err(), "{bad:?}");
    }
    refused_as(
        b"<?xml version=\"1.0\" enco<!ENTITY ding=\"UTF-8\"?><a/>",
        FindingKind::MalformedBody,
    );
    assert_eq!(
        xml(b"<?xml version='1.0' encoding='UTF-8'?><a/>")
            .verdict
            .decision,
        Decision::Allow
    );
}

/// Found by the `xml_reading` fuzz target: a second signature made `quick-xml`'s positions
/// fall inside a character.
#[test]
fn a_second_signature_is_refused_not_a_panic() {
    refused_as("\u{FEFF}\u{FEFF}$".as_bytes(), FindingKind::MalformedBody);
    refused_as(
        "\u{FEFF}\u{FEFF}<a>x</a>".as_bytes(),
        FindingKind::MalformedBody,
    );
    refused_as(
        "\u{FEFF}<a>x</a>\u{FEFF}".as_bytes(),
        FindingKind::MalformedBody,
    );
}
