//! The hostile shapes of `bounded.rs`: each body `SIZE` bytes of one piece repeated, with its
//! type, and a clean body of the same type.

use super::SIZE;

/// `piece` repeated to `SIZE` bytes, inside `prefix` and `suffix`.
fn body(prefix: &[u8], piece: &[u8], suffix: &[u8]) -> Vec<u8> {
    body_of(SIZE, prefix, piece, suffix)
}

/// `piece` repeated to `size` bytes, inside `prefix` and `suffix`.
pub(crate) fn body_of(size: usize, prefix: &[u8], piece: &[u8], suffix: &[u8]) -> Vec<u8> {
    let mut out = prefix.to_vec();
    while out.len() + piece.len() + suffix.len() <= size {
        out.extend_from_slice(piece);
    }
    out.extend_from_slice(suffix);
    out
}

/// `payload` as one gRPC length-prefixed message.
fn grpc(payload: &[u8]) -> Vec<u8> {
    let len = u32::try_from(payload.len()).expect("a message under 4 GiB");
    [&[0][..], &len.to_be_bytes(), payload].concat()
}

/// One XML element of about `size` bytes whose attributes (distinct names, empty values)
/// come one every 6 to 8 bytes.
fn attributes(size: usize) -> Vec<u8> {
    let mut out = b"<r><a".to_vec();
    let mut n = 0u32;
    while out.len() + 16 < size {
        out.extend_from_slice(format!(" a{n:x}=''").as_bytes());
        n += 1;
    }
    out.extend_from_slice(b"/></r>");
    out
}

/// Every hostile shape, with its type, and a clean body of the same type.
pub(crate) fn cases() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let text = "text/plain";
    let json = "application/json";
    let form = "application/x-www-form-urlencoded";
    let multipart = "multipart/form-data; boundary=b";
    let xml = "application/xml";
    let yaml = "application/yaml";
    vec![
        (
            "clean text",
            text,
            body(b"", "héllo wörld 世界 ".as_bytes(), b""),
        ),
        ("C0 AE pairs", text, body(b"", b"\xC0\xAE", b"")),
        ("C0 AE A", text, body(b"", b"\xC0\xAEA", b"")),
        ("lone continuation", text, body(b"", b"\x80", b"")),
        ("continuation A", text, body(b"", b"\x80A", b"")),
        ("overlong NUL", text, body(b"", b"\xC0\x80", b"")),
        (
            "CESU-8 pairs",
            text,
            body(b"", b"\xED\xA0\xBD\xED\xB8\x80", b""),
        ),
        ("bidi controls", text, body(b"", "\u{202E}".as_bytes(), b"")),
        ("bidi a", text, body(b"", "\u{202E}a".as_bytes(), b"")),
        ("NUL a", text, body(b"", b"\0a", b"")),
        ("U+FEFF a", text, body(b"", "\u{FEFF}a".as_bytes(), b"")),
        ("decomposed e", text, body(b"", "e\u{301}".as_bytes(), b"")),
        // One base character and 4 M combining marks: one NFC segment of the whole body.
        ("combining run", text, body(b"a", "\u{301}".as_bytes(), b"")),
        // NFC triples U+1D160 (4 bytes) into U+1D158 U+1D165 U+1D16E (12): the most text grows.
        ("NFC triples", text, body(b"", "\u{1D160}".as_bytes(), b"")),
        (
            "NFC triples in a form",
            form,
            body(b"a=", b"%F0%9D%85%A0", b""),
        ),
        (
            "fullwidth dots",
            text,
            body(b"", "\u{FF0E}/".as_bytes(), b""),
        ),
        (
            "clean json",
            json,
            body(b"[\"", "héllo wörld ".as_bytes(), b"\"]"),
        ),
        ("json \\u0000", json, body(b"[\"", b"\\u0000", b"\"]")),
        ("json \\ud800", json, body(b"[\"", b"\\ud800", b"\"]")),
        (
            "json many strings",
            json,
            body(b"[", b"\"\\u0000\",", b"1]"),
        ),
        (
            "clean xml",
            xml,
            body(b"<r>", "h\u{e9}llo w\u{f6}rld ".as_bytes(), b"</r>"),
        ),
        ("xml &#0;", xml, body(b"<r>", b"&#0;", b"</r>")),
        ("xml many elements", xml, body(b"<r>", b"<a/>", b"</r>")),
        (
            "xml attributes",
            xml,
            body(b"<r>", b"<a b='&#0;'/>", b"</r>"),
        ),
        ("xml comments", xml, body(b"<r>", b"<!--\x80-->", b"</r>")),
        ("xml one element's attributes", xml, attributes(SIZE)),
        // Bodies judged by their bytes (issue 42): a gRPC message of JSON strings, clean, and
        // tiny messages one after another; protobuf of nested groups (the shape check's
        // worst); CBOR nested arrays (no shape: read as text); an image whose last 64 KiB are
        // end-record signatures.
        (
            "clean grpc json",
            "application/grpc+json",
            grpc(&body(b"[\"", "héllo wörld ".as_bytes(), b"\"]")),
        ),
        (
            "grpc tiny messages",
            "application/grpc+json",
            body(b"", &grpc(b"{\"a\":\"b\"}"), b""),
        ),
        (
            "protobuf groups",
            "application/x-protobuf",
            body(b"", b"\x0b\x0c", b""),
        ),
        ("cbor nested", "application/cbor", body(b"", b"\x9f", b"")),
        (
            "image end records",
            "image/png",
            body(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", b"PK\x05\x06", b""),
        ),
        (
            "yaml many scalars",
            yaml,
            body(b"a: [", "héllo wörld, ".as_bytes(), b"x]"),
        ),
        ("yaml \\0", yaml, body(b"a: \"", b"\\0", b"\"")),
        ("yaml aliases", yaml, body(b"a: &a x\nb: [", b"*a, ", b"x]")),
        ("yaml tiny scalars", yaml, body(b"[", b"a,", b"a]")),
        (
            "yaml deep flow",
            yaml,
            body(b"[", b"[[[[[[[[[[]]]]]]]]]],", b"1]"),
        ),
        ("clean form", form, body(b"a=", b"hello+world", b"")),
        ("form %00", form, body(b"a=", b"%00", b"")),
        ("form %c0%ae", form, body(b"a=", b"%c0%ae", b"")),
        ("form %%", form, body(b"a=", b"%", b"")),
        ("form %25%2541", form, body(b"a=", b"%2541", b"")),
        ("form many fields", form, body(b"", b"a=%00&", b"")),
        (
            "multipart parts",
            multipart,
            body(
                b"",
                b"--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n\0\r\n",
                b"--b--",
            ),
        ),
        (
            "multipart one part",
            multipart,
            body(
                b"--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n",
                b"\x80",
                b"\r\n--b--",
            ),
        ),
    ]
}
