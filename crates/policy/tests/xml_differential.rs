//! Parser differential: generated XML documents read by utf8gate and by the parsers Python
//! backends use (the standard library's expat, lxml/libxml2), run from the pinned virtualenv
//! (`tests/python/xml_readers.py`). Every document the default profile lets through must be
//! read by each parser that accepts it exactly as utf8gate reads it: names, attribute values,
//! character data, comments and processing instructions. A document a parser refuses is no
//! bypass, and is only counted.
//!
//! Without Python and PyPI the test says so and passes, unless `REQUIRE_PYTHON_PARSERS=1`
//! (CI) makes that a failure.

mod support;

use serde_json::{Value, json};
use support::differential::{Rng, b64, python_or_skip, run_readers, unb64};
use utf8gate_policy::{Decision, Part, Profile, Request, evaluate, read_fields};

const TEXTS: &[&str] = &[
    "hello",
    "Ελληνικά",
    "日本語のテキスト",
    "العربية",
    "😀",
    "a &amp; b",
    "&lt;tag&gt;",
    "&#x41;&#66;",
    "&#0;",
    "&#xD800;",
    "&#x1F600;",
    "&#xFFFE;",
    "x\r\ny",
    "x\ry",
    "\t",
    "]]>",
    "]]",
    "&",
    "&foo;",
    "e\u{301}",
    "&#x202E;",
    "&#1;",
    "  ",
    "&#X41;",
    "&#x110000;",
    "&#9;&#10;&#13;",
    "a>b",
    "&quot;&apos;",
    "\u{FEFF}",
    "\u{7}",
];
const RAW: &[&[u8]] = &[
    b"\xC0\xAE",
    b"\xED\xA0\x80",
    b"\xF4\x90\x80\x80",
    b"\xE0\x80",
];
const NAMES: &[&str] = &[
    "r",
    "a",
    "soap:Body",
    "ελ",
    "日本",
    "x-y.z",
    "_",
    "1bad",
    "p:",
];
const ATTRIBUTES: &[&str] = &[
    "id", "xmlns", "xmlns:p", "p:q", "ελ", "1x", "id", "a-b", "x",
];
const TARGETS: &[&str] = &["pi", "xml-stylesheet", "xml", "XmL", "1p", "ελ"];
const PROLOGS: &[&str] = &[
    "",
    "<?xml version=\"1.0\"?>",
    "<?xml version='1.0' encoding='UTF-8'?>\n",
    "<?xml version=\"1.1\"?>",
    "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>",
    "<?xml version=\"1.0\" standalone=\"yes\"?>",
    " <?xml version=\"1.0\"?>",
    "<!DOCTYPE r>",
    "<!DOCTYPE r [<!ENTITY e \"x&#0;\">]>",
    "<!DOCTYPE r SYSTEM \"http://www.w3.org/x.dtd\">",
    "<!DOCTYPE r [<!ELEMENT r ANY>]>",
    "<!DOCTYPE r [<!ATTLIST r d CDATA \"def\">]>",
    "<!-- c -->",
    "<?pi x?>",
];

fn text(rng: &mut Rng, out: &mut Vec<u8>) {
    if rng.chance(5) {
        let raw = RAW[rng.below(RAW.len())];
        out.extend_from_slice(raw);
    } else {
        out.extend_from_slice(rng.pick(TEXTS).as_bytes());
    }
    if rng.chance(3) {
        out.extend_from_slice(b"&e;");
    }
}

fn element(rng: &mut Rng, depth: usize, out: &mut Vec<u8>) {
    let name = *rng.pick(NAMES);
    out.push(b'<');
    out.extend_from_slice(name.as_bytes());
    for _ in 0..rng.below(3) {
        out.extend_from_slice(if rng.chance(95) { b" " } else { b"" });
        out.extend_from_slice(rng.pick(ATTRIBUTES).as_bytes());
        let quote = if rng.chance(50) { b'"' } else { b'\'' };
        out.extend_from_slice(if rng.chance(10) { b" = " } else { b"=" });
        out.push(quote);
        match rng.below(10) {
            0 => out.extend_from_slice(b"<"),
            1 => out.extend_from_slice(b"a\tb\r\nc"),
            2 => out.extend_from_slice(b"'\""),
            _ => text(rng, out),
        }
        out.push(quote);
    }
    if depth > 3 || rng.chance(20) {
        out.extend_from_slice(b"/>");
        return;
    }
    out.push(b'>');
    for _ in 0..rng.below(4) {
        match rng.below(8) {
            0 | 1 => element(rng, depth + 1, out),
            2 => {
                out.extend_from_slice(b"<![CDATA[");
                out.extend_from_slice(rng.pick(TEXTS).as_bytes());
                out.extend_from_slice(b"]]>");
            }
            3 => {
                out.extend_from_slice(b"<!--");
                text(rng, out);
                out.extend_from_slice(if rng.chance(10) { b"--" } else { b"" });
                out.extend_from_slice(b"-->");
            }
            4 => {
                out.extend_from_slice(b"<?");
                out.extend_from_slice(rng.pick(TARGETS).as_bytes());
                out.push(b' ');
                text(rng, out);
                out.extend_from_slice(b"?>");
            }
            _ => text(rng, out),
        }
    }
    if rng.chance(2) {
        return;
    }
    out.extend_from_slice(b"</");
    out.extend_from_slice(if rng.chance(3) {
        "a".as_bytes()
    } else {
        name.as_bytes()
    });
    out.push(b'>');
}

fn document(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    if rng.chance(5) {
        out.extend_from_slice(&utf8gate_codec_bom());
    }
    out.extend_from_slice(rng.pick(PROLOGS).as_bytes());
    element(rng, 0, &mut out);
    match rng.below(20) {
        0 => element(rng, 0, &mut out),
        1 => out.extend_from_slice(b"junk"),
        2 => out.extend_from_slice(b"\n<!-- after -->\n"),
        _ => {}
    }
    out
}

fn utf8gate_codec_bom() -> [u8; 3] {
    [0xEF, 0xBB, 0xBF]
}

/// What a reading says, in one comparable shape (line ends normalized as XML 1.0 §2.11
/// says, attribute white space as §3.3.3 says, on both sides).
#[derive(Debug, PartialEq, Eq)]
struct Reading {
    names: Option<Vec<String>>,
    attributes: Vec<String>,
    text: String,
    comments: Vec<String>,
    pis: Vec<String>,
}

fn lines(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .replace("\r\n", "\n")
        .replace('\r', "\n")
}

fn spaces(bytes: &[u8]) -> String {
    lines(bytes).replace(['\t', '\n'], " ")
}

fn ours(request: &Request) -> Reading {
    let mut r = Reading {
        names: Some(Vec::new()),
        attributes: Vec::new(),
        text: String::new(),
        comments: Vec::new(),
        pis: Vec::new(),
    };
    for (location, bytes) in read_fields(&Profile::strict(), request) {
        let pointer = location.pointer.unwrap_or_default();
        let last = pointer.rsplit('/').next().unwrap_or_default();
        match location.part {
            Part::XmlName if !last.starts_with("processing-instruction(") => {
                r.names.as_mut().unwrap().push(lines(&bytes));
            }
            Part::XmlText if last == "text()" => r.text.push_str(&lines(&bytes)),
            Part::XmlText if last == "comment()" => r.comments.push(lines(&bytes)),
            Part::XmlText if last.starts_with("processing-instruction(") => {
                r.pis.push(lines(&bytes).trim_start().to_string());
            }
            Part::XmlText if last == "@xmlns" || last.starts_with("@xmlns:") => {}
            Part::XmlText => r.attributes.push(spaces(&bytes)),
            _ => {}
        }
    }
    r
}

fn theirs(reading: &Value) -> Reading {
    let list = |key: &str, f: fn(&[u8]) -> String| -> Vec<String> {
        let values = reading[key].as_array().unwrap();
        values
            .iter()
            .map(|v| f(&unb64(v.as_str().unwrap())))
            .collect()
    };
    let names = list("names", lines);
    Reading {
        names: (!names.is_empty()).then_some(names),
        attributes: list("attributes", spaces),
        text: lines(&unb64(reading["text"].as_str().unwrap())),
        comments: list("comments", lines),
        pis: list("pis", |b| lines(b).trim_start().to_string()),
    }
}

#[test]
fn allowed_documents_are_read_alike_by_every_parser() {
    let Some(py) = python_or_skip() else {
        return;
    };
    let mut rng = Rng(0x0000_0C0A_E5E7_A11D);
    let docs: Vec<Vec<u8>> = (0..6000).map(|_| document(&mut rng)).collect();
    let input = json!({"cases": docs.iter().map(|d| b64(d)).collect::<Vec<_>>()});
    let readings = run_readers(&py, "xml_readers.py", &input);
    let parsers: Vec<String> = serde_json::from_value(readings["parsers"].clone()).unwrap();
    assert_eq!(parsers, ["expat", "lxml"]);
    let (mut allowed, mut compared, mut refused_by_parser, mut stricter) = (0, 0, 0, 0);
    let mut bypasses = Vec::new();
    for (doc, result) in docs.iter().zip(readings["results"].as_array().unwrap()) {
        let request = Request::new("POST", b"/soap")
            .header("Content-Type", b"application/xml")
            .body(doc);
        let decision = evaluate(&Profile::strict(), &request).verdict.decision;
        if decision == Decision::Reject {
            if parsers.iter().all(|p| result[p].get("error").is_none()) {
                stricter += 1;
            }
            continue;
        }
        allowed += 1;
        let mine = ours(&request);
        for parser in &parsers {
            if result[parser].get("error").is_some() {
                refused_by_parser += 1;
                continue;
            }
            compared += 1;
            let mut their = theirs(&result[parser]);
            if their.names.is_none() {
                their.names.clone_from(&mine.names);
            }
            if their != mine {
                bypasses.push(format!(
                    "{parser} on {:?}:\n  ours   {mine:?}\n  theirs {their:?}",
                    String::from_utf8_lossy(doc)
                ));
            }
        }
    }
    sanitized_documents_read_as_the_nfc_of_the_originals(&py, &docs, &readings);
    eprintln!(
        "{} documents: {allowed} allowed, {compared} parser readings compared, {refused_by_parser} \
         refused by a parser; {stricter} refused by utf8gate that both parsers read",
        docs.len()
    );
    assert!(
        allowed > 300,
        "too few allowed documents to compare: {allowed}"
    );
    assert!(
        bypasses.is_empty(),
        "{} differ:\n{}",
        bypasses.len(),
        bypasses[..bypasses.len().min(5)].join("\n")
    );
}

/// What a parser reads of a sanitized document is the NFC of what it read of the original:
/// text rewritten in place, escaped for where it is (a referenced line feed in an attribute
/// value stays one), names untouched.
fn sanitized_documents_read_as_the_nfc_of_the_originals(
    py: &std::path::PathBuf,
    docs: &[Vec<u8>],
    readings: &Value,
) {
    let mut pairs = Vec::new();
    for (doc, result) in docs.iter().zip(readings["results"].as_array().unwrap()) {
        let request = Request::new("POST", b"/soap")
            .header("Content-Type", b"application/xml")
            .body(doc);
        let evaluation = evaluate(&Profile::strict(), &request);
        if evaluation.verdict.decision != Decision::Sanitize
            || result["expat"].get("error").is_some()
        {
            continue;
        }
        pairs.push((
            theirs(&result["expat"]),
            evaluation.sanitized.expect("sanitized").body,
        ));
    }
    assert!(
        pairs.len() > 20,
        "too few sanitized documents: {}",
        pairs.len()
    );
    let input = json!({"cases": pairs.iter().map(|(_, d)| b64(d)).collect::<Vec<_>>()});
    let again = run_readers(py, "xml_readers.py", &input);
    let nfc = |t: &String| utf8gate_policy::nfc::to_nfc(t).into_owned();
    for ((before, sanitized), result) in pairs.iter().zip(again["results"].as_array().unwrap()) {
        let after = &result["expat"];
        let doc = String::from_utf8_lossy(sanitized);
        assert!(
            after.get("error").is_none(),
            "expat refuses the sanitized {doc:?}: {after}"
        );
        let expected = Reading {
            names: before.names.clone(),
            attributes: before.attributes.iter().map(nfc).collect(),
            text: nfc(&before.text),
            comments: before.comments.iter().map(nfc).collect(),
            pis: before.pis.iter().map(nfc).collect(),
        };
        assert_eq!(theirs(after), expected, "{doc:?}");
    }
}
