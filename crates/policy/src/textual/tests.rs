//! The rule's table: declared types and bytes, and what the body is.

use super::*;

fn judged(content_type: &str, body: &[u8], upload: bool) -> Content {
    let ct = ContentType::parse(content_type.as_bytes());
    let claimed = crate::readings::claiming(&ct).is_some();
    judge(&ct, claimed, body, Some(body), upload, Added::default())
}

fn binary(content_type: &str, body: &[u8]) -> bool {
    matches!(judged(content_type, body, false), Content::Binary(_))
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0";
const JPEG: &[u8] = b"\xFF\xD8\xFF\xE0\0\x10JFIF\0\x01\x01\0\0\x01\0\x01\0\0";
const OLE2: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0>\0\x03\0";
const ZIP: &[u8] = b"PK\x03\x04\x14\0\0\0\0\0";

#[test]
fn text_types_are_read_as_declared_whatever_the_bytes() {
    for ct in [
        "text/plain",
        "application/json",
        "image/svg+xml",
        "multipart/mixed",
    ] {
        assert_eq!(judged(ct, PNG, true), Content::Declared, "{ct}");
    }
}

#[test]
fn every_other_type_is_judged_by_its_bytes() {
    let office = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
    for ct in [
        "image/png",
        "image/jpeg",
        "application/octet-stream",
        "",
        office,
        "x/y",
    ] {
        assert_eq!(
            judged(ct, ZIP, false),
            Content::Archive("application/zip"),
            "{ct}"
        );
        assert!(
            binary(ct, PNG) && binary(ct, JPEG) && binary(ct, OLE2),
            "{ct}"
        );
    }
    // A label never hides text: an image, a PDF, an octet stream without a signature.
    let attack = b"<?php include '/\xC0\xAE\xC0\xAE/etc/passwd'; ?>";
    for ct in [
        "image/png",
        "application/pdf",
        "application/octet-stream",
        "font/woff2",
        "",
    ] {
        assert_eq!(judged(ct, attack, false), Content::Declared, "{ct}");
    }
    // Nor does a NUL: without a signature, bytes of a proxied body are text.
    let nul = b"a\0b /\xC0\xAE\xC0\xAE/";
    assert_eq!(
        judged("application/octet-stream", nul, false),
        Content::Declared
    );
    assert_eq!(judged("", nul, false), Content::Declared);
    // An upload of no type is a file: the WHATWG rule decides.
    assert!(matches!(judged("", nul, true), Content::Binary(_)));
    assert_eq!(
        judged("application/octet-stream", nul, true),
        Content::Declared
    );
}

#[test]
fn a_polyglot_is_read_as_the_archive_at_its_end() {
    let mut gif = b"GIF89a\x01\0\x01\0\x80\0\0\xFF\xFF\xFF\0\0\0!\xF9\x04".to_vec();
    gif.extend_from_slice(b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0");
    assert_eq!(
        judged("image/gif", &gif, false),
        Content::Archive("application/zip")
    );
    // Its head alone is an image.
    let ct = ContentType::parse(b"image/gif");
    assert!(matches!(
        judge(&ct, false, &gif[..20], None, false, Added::default()),
        Content::Binary(_)
    ));
}

#[test]
fn archives_with_names_not_read_say_so() {
    let seven = b"7z\xBC\xAF\x27\x1C\0\x04\0\0\0\0\0\0\0\0";
    let rar = b"Rar!\x1A\x07\x01\0\x33\x92\xB5\xE5\x0A\x01\x05\x06";
    for (ct, body) in [
        ("application/x-7z-compressed", &seven[..]),
        ("application/vnd.rar", &rar[..]),
        ("application/msword", OLE2),
    ] {
        match judged(ct, body, false) {
            Content::Binary(why) => assert!(why.contains("names are not read"), "{ct}: {why}"),
            other => panic!("{ct}: {other:?}"),
        }
    }
    match judged("application/x-tar", b"\x1f\x8b\x08\0\0\0\0\0", false) {
        Content::Binary(why) => assert!(why.contains("no tar inside"), "{why}"),
        other => panic!("a gzip of no tar is compressed data: {other:?}"),
    }
    assert!(binary(
        "application/x-gzip-data",
        b"\x1f\x8b\x08\0\0\0\0\0\0\x03"
    ));
}

#[test]
fn serializations_without_a_signature_are_binary_by_their_shape() {
    let protobuf = b"\x0a\x05hello\x10\x96\x01";
    assert!(binary("application/x-protobuf", protobuf));
    assert!(binary("application/cbor", b"\xa1\x61\x61\x01"));
    assert!(binary("application/msgpack", b"\x81\xa1\x61\x01"));
    assert!(binary("application/bson", b"\x05\0\0\0\0"));
    // Text under those labels is read as text.
    let text = b"../\xC0\xAE/etc/passwd";
    for ct in [
        "application/x-protobuf",
        "application/cbor",
        "application/bson",
    ] {
        assert_eq!(judged(ct, text, false), Content::Declared, "{ct}");
    }
    // A cut body's shape is unknown: binary data bytes in its head decide.
    let ct = ContentType::parse(b"application/x-protobuf");
    assert!(matches!(
        judge(&ct, false, protobuf, None, false, Added::default()),
        Content::Binary(_)
    ));
    assert_eq!(
        judge(&ct, false, text, None, false, Added::default()),
        Content::Declared
    );
}

#[test]
fn untyped_input_is_skipped_only_when_binary() {
    assert!(looks_binary(PNG));
    assert!(looks_binary(b"a\0b"));
    assert!(!looks_binary(b"plain text"));
    assert!(!looks_binary(b"\xFF\xFEh\0i\0"));
    assert!(!looks_binary(ZIP), "an archive is read, not skipped");
    let mut late = vec![b'a'; WHATWG_HEAD];
    late.push(0);
    assert!(!looks_binary(&late));
}

#[test]
fn a_profile_may_trust_a_label_without_a_signature() {
    let stl = b"solid\0\0\0\x01\0\0\x80?\xC0\xAE";
    let ct = ContentType::parse(b"model/stl");
    let stl_type = ["model/stl".to_string()];
    let trusted = Added {
        binary: &stl_type,
        ..Added::default()
    };
    assert_eq!(
        judge(&ct, false, stl, Some(stl), false, Added::default()),
        Content::Declared
    );
    match judge(&ct, false, stl, Some(stl), false, trusted) {
        Content::Binary(why) => assert!(why.contains("binary_types"), "{why}"),
        other => panic!("{other:?}"),
    }
    // Bytes still come first: a ZIP under a trusted type is read for its names.
    let zip = b"PK\x03\x04\x14\0";
    assert_eq!(
        judge(&ct, false, zip, Some(zip), false, trusted),
        Content::Archive("application/zip")
    );
}

#[test]
fn a_profile_may_add_text_types() {
    let ct = ContentType::parse(b"application/x-notes");
    let png = [PNG, b"notes".as_slice()].concat();
    assert!(matches!(
        judge(&ct, false, &png, Some(&png), false, Added::default()),
        Content::Binary(_)
    ));
    let notes = ["application/x-notes".to_string()];
    let added = Added {
        text: &notes,
        ..Added::default()
    };
    assert_eq!(
        judge(&ct, false, &png, Some(&png), false, added),
        Content::Declared
    );
}
