//! Files are what their bytes are, through every way in: the same bytes and media type get the
//! same decision as a proxied body, an upload (`/v1/scan`, `/v1/sanitize`, the CLI), a
//! streamed scan and a multipart file part. Binary by signature or shape passes unread; a
//! label never hides text; a ZIP is read for its names whatever its label, also behind an
//! image (a polyglot); every multipart subtype is read part by part.

mod support;

use support::zips::zip;
use utf8gate_policy::{
    BodyScan, Decision, Profile, Request, Verdict, evaluate, evaluate_upload, streamable,
};

const PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";
const JPEG: &[u8] = b"\xFF\xD8\xFF\xE0\0\x10JFIF\0\x01\x01\0\0\x01\0\x01\0\0\xFF\xDB\0\x43\0";
const OLE2: &[u8] =
    b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0>\0\x03\0\xFE\xFF";
/// A text payload: an overlong `../` and a NUL.
const ATTACK: &[u8] = b"<?php include '/\xC0\xAE\xC0\xAE/etc/passwd'; \0 ?>";

fn with(head: &[u8], rest: &[u8]) -> Vec<u8> {
    [head, rest].concat()
}

/// A GIF with a ZIP after it: a valid image and a valid JAR.
fn polyglot(entry: &[u8]) -> Vec<u8> {
    let gif =
        b"GIF89a\x01\0\x01\0\x80\0\0\xFF\xFF\xFF\0\0\0,\0\0\0\0\x01\0\x01\0\0\x02\x02D\x01\0;";
    with(gif, &zip(&[(entry, b"x")]))
}

/// The decision each way in gives `body` of type `ct`, and whether it was judged not text.
fn every_way(ct: &str, body: &[u8]) -> Vec<(&'static str, Decision, bool)> {
    let profile = Profile::strict();
    let request = Request::new("PUT", b"/upload")
        .header("Host", b"h")
        .header("Content-Type", ct.as_bytes())
        .body(body);
    let mut out = vec![];
    let proxied = evaluate(&profile, &request).verdict;
    out.push(("proxied", proxied.decision, proxied.not_text.is_some()));
    let upload = evaluate_upload(&profile, &request).verdict;
    out.push(("upload", upload.decision, upload.not_text.is_some()));
    if streamable(Some(ct.as_bytes())) {
        let mut scan = BodyScan::for_body_of(&profile, &request, 1 << 30);
        body.chunks(7).for_each(|c| scan.feed(c));
        let streamed: Verdict = scan.finish();
        // A streamed archive is refused (its names need the whole body); all else agrees.
        if !matches!(ct, "application/zip") && !body.starts_with(b"PK") && !is_polyglot(body) {
            out.push(("streamed", streamed.decision, streamed.not_text.is_some()));
        }
    }
    let form = [
        &b"--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"up\"\r\nContent-Type: "[..],
        ct.as_bytes(),
        b"\r\n\r\n",
        body,
        b"\r\n--b--\r\n",
    ]
    .concat();
    let part = Request::new("POST", b"/upload")
        .header("Host", b"h")
        .header("Content-Type", b"multipart/form-data; boundary=b")
        .body(&form);
    out.push((
        "form part",
        evaluate(&profile, &part).verdict.decision,
        false,
    ));
    out
}

fn is_polyglot(body: &[u8]) -> bool {
    body.starts_with(b"GIF89a") && body.windows(4).any(|w| w == b"PK\x03\x04")
}

#[test]
fn one_decision_through_every_way_in() {
    let office = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
    let clean_zip = zip(&[(b"word/document.xml", b"<w:document/>")]);
    let slip_zip = zip(&[(b"../../\xC0\xAE\xC0\xAE/x.sh", b"x")]);
    let cases: Vec<(&str, Vec<u8>, Decision, bool)> = vec![
        // Binary by signature, whatever the label (a renamed file keeps its bytes).
        ("image/png", with(PNG, ATTACK), Decision::Allow, true),
        ("image/png", with(JPEG, b"\xFF\xD9"), Decision::Allow, true),
        (
            "application/msword",
            with(OLE2, &[0xA5; 600]),
            Decision::Allow,
            true,
        ),
        (
            "application/octet-stream",
            with(OLE2, b"\x80\x81"),
            Decision::Allow,
            true,
        ),
        // Archives by their bytes: a .docx, a ZIP labelled as an image.
        (office, clean_zip.clone(), Decision::Allow, false),
        ("image/jpeg", clean_zip.clone(), Decision::Allow, false),
        ("image/jpeg", slip_zip.clone(), Decision::Reject, false),
        (office, slip_zip, Decision::Reject, false),
        // A polyglot is read as the archive at its end.
        (
            "image/gif",
            polyglot(b"docs/readme.txt"),
            Decision::Allow,
            false,
        ),
        (
            "image/gif",
            polyglot(b"../\xC0\xAE./x.jsp"),
            Decision::Reject,
            false,
        ),
        // A label never hides text.
        ("image/png", ATTACK.to_vec(), Decision::Reject, false),
        ("application/pdf", ATTACK.to_vec(), Decision::Reject, false),
        (
            "application/octet-stream",
            ATTACK.to_vec(),
            Decision::Reject,
            false,
        ),
        (
            "application/x-protobuf",
            ATTACK.to_vec(),
            Decision::Reject,
            false,
        ),
        (
            "image/png",
            "Grüße, 東京\n".as_bytes().to_vec(),
            Decision::Allow,
            false,
        ),
        // Serializations by their shape.
        (
            "application/x-protobuf",
            b"\x0a\x05hello\x10\x96\x01".to_vec(),
            Decision::Allow,
            true,
        ),
        (
            "application/cbor",
            b"\xa1\x61\x61\x42\xC0\xAE".to_vec(),
            Decision::Allow,
            true,
        ),
        (
            "application/msgpack",
            b"\x81\xa1\x61\xc4\x02\xC0\xAE".to_vec(),
            Decision::Allow,
            true,
        ),
    ];
    for (ct, body, decision, not_text) in cases {
        for (way, got, said) in every_way(ct, &body) {
            assert_eq!(got, decision, "{way}: {ct} {body:02X?}");
            if way != "form part" {
                assert_eq!(said, not_text, "{way}: {ct} {body:02X?}");
            }
        }
    }
}

#[test]
fn grpc_messages_are_read_by_their_suffix() {
    let frame = |payload: &[u8]| {
        let mut f = vec![0];
        f.extend_from_slice(&(payload.len() as u32).to_be_bytes());
        f.extend_from_slice(payload);
        f
    };
    let trailers = |lines: &[u8]| {
        let mut f = frame(lines);
        f[0] = 0x80;
        f
    };
    let json_clean = frame("{\"name\":\"Zoë\"}".as_bytes());
    let json_bad = frame(b"{\"name\":\"\\u0000/\xC0\xAE\"}");
    let proto = frame(b"\x0a\x03\xC0\xAE\x01");
    for (ct, body, decision) in [
        ("application/grpc+json", &json_clean, Decision::Allow),
        ("application/grpc-web+json", &json_bad, Decision::Reject),
        (
            "application/grpc+json",
            &[json_clean.clone(), json_bad.clone()].concat(),
            Decision::Reject,
        ),
        ("application/grpc", &proto, Decision::Allow),
        ("application/grpc-web+proto", &proto, Decision::Allow),
        // A gRPC-Web trailers message is header lines: text, whatever the suffix.
        (
            "application/grpc-web+proto",
            &[proto.clone(), trailers(b"grpc-status: 0\r\n")].concat(),
            Decision::Allow,
        ),
        (
            "application/grpc-web+proto",
            &[proto.clone(), trailers(b"x: /\xC0\xAE.\r\n")].concat(),
            Decision::Reject,
        ),
        (
            "application/grpc-web+json",
            &[json_clean.clone(), trailers(b"x: \0\r\n")].concat(),
            Decision::Reject,
        ),
        // Not length-prefixed messages: read as text.
        ("application/grpc+proto", &ATTACK.to_vec(), Decision::Reject),
    ] {
        let request = Request::new("POST", b"/svc/Method")
            .header("Host", b"h")
            .header("Content-Type", ct.as_bytes())
            .body(body.as_slice());
        let verdict = evaluate(&Profile::strict(), &request).verdict;
        assert_eq!(
            verdict.decision,
            decision,
            "{ct} {body:02X?}: {:?}",
            verdict.kinds()
        );
    }
}

/// Each gRPC message is a document of its own: at most `max_multipart_parts` of them are
/// read, and reading stops at the first refused, so findings never add up per message.
#[test]
fn grpc_messages_are_bounded_and_read_up_to_the_first_refusal() {
    let frame = |payload: &[u8]| {
        let len = u32::try_from(payload.len()).unwrap().to_be_bytes();
        [&[0][..], &len, payload].concat()
    };
    let profile = Profile::strict();
    let most = profile.limits.max_multipart_parts;
    let verdict = |body: &[u8]| {
        let request = Request::new("POST", b"/svc/M")
            .header("Host", b"h")
            .header("Content-Type", b"application/grpc+json")
            .body(body);
        evaluate(&profile, &request).verdict
    };
    let clean = frame(b"{\"a\":\"b\"}");
    assert_eq!(verdict(&clean.repeat(most)).decision, Decision::Allow);
    let over = verdict(&clean.repeat(most + 1));
    assert_eq!(over.kinds(), ["limit_exceeded"]);
    let broken = [frame(b"{"), frame(b"{"), frame(b"[\"\\u0000\"]")].concat();
    let v = verdict(&broken);
    assert_eq!(
        (v.kinds(), v.counts["malformed_body"]),
        (vec!["malformed_body"], 1)
    );
}

#[test]
fn every_multipart_subtype_is_read_part_by_part() {
    let related = |attachment: &[u8], root: &[u8]| {
        [
            &b"--MIME\r\nContent-Type: application/xop+xml; charset=UTF-8\r\nContent-ID: <root>\r\n\r\n"[..],
            root,
            b"\r\n--MIME\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: binary\r\nContent-ID: <img>\r\n\r\n",
            attachment,
            b"\r\n--MIME--\r\n",
        ]
        .concat()
    };
    let soap = "<s:Envelope><s:Body><name>Zoë</name></s:Body></s:Envelope>".as_bytes();
    let bad = b"<s:Envelope><s:Body><name>\xC0\xAE\xC0\xAE/</name></s:Body></s:Envelope>";
    for subtype in ["related", "mixed", "alternative", "signed"] {
        let ct = format!("multipart/{subtype}; boundary=MIME; type=\"application/xop+xml\"");
        for (body, decision) in [
            (related(PNG, soap), Decision::Allow),
            (related(PNG, bad), Decision::Reject),
            (related(ATTACK, soap), Decision::Reject),
        ] {
            let request = Request::new("POST", b"/soap")
                .header("Host", b"h")
                .header("Content-Type", ct.as_bytes())
                .body(&body);
            let verdict = evaluate(&Profile::strict(), &request).verdict;
            assert_eq!(
                verdict.decision, decision,
                "{subtype}: {:?}",
                verdict.findings
            );
        }
    }
}

#[test]
fn a_streamed_polyglot_is_refused_at_its_end() {
    // Past what is held whole, an image whose end is a ZIP cannot be read for its names.
    let body = polyglot(b"a.txt");
    let profile = Profile::strict();
    let head = Request::new("POST", b"/").header("Content-Type", b"image/gif");
    let padded = [&body[..30], &vec![0xA5; 200_000], &body[30..]].concat();
    // The padding sits between the image and the ZIP; its offsets count from its start.
    // Its length known or not (only the last 64 KiB are kept when it is), chunked any way.
    for (sized, chunk) in [(false, 4096), (true, 4096), (true, 1), (false, 70_000)] {
        let mut scan = BodyScan::for_body_of(&profile, &head, 1 << 30);
        if sized {
            scan.expect_len(padded.len() as u64);
        }
        padded.chunks(chunk).for_each(|c| scan.feed(c));
        let verdict = scan.finish();
        assert_eq!(verdict.kinds(), ["limit_exceeded"], "{sized} {chunk}");
        assert_eq!(verdict.decision, Decision::Reject);
        assert_eq!(verdict.not_text, None);
        // Without the ZIP, the same image passes unread.
        let mut scan = BodyScan::for_body_of(&profile, &head, 1 << 30);
        if sized {
            scan.expect_len(padded.len() as u64 - 20);
        }
        padded[..padded.len() - 20]
            .chunks(chunk)
            .for_each(|c| scan.feed(c));
        let verdict = scan.finish();
        assert_eq!(verdict.decision, Decision::Allow, "{sized} {chunk}");
        assert!(verdict.not_text.is_some());
    }
}

#[test]
fn a_disk_image_past_what_is_held_whole_is_known_by_its_signature_at_32_kib() {
    // An ISO 9660 image: 32 KiB of system area (zeros), then its volume descriptor.
    let mut iso = vec![0u8; 32_769];
    iso.extend_from_slice(b"CD001\x01\0");
    iso.extend_from_slice(&[0xA5; 100_000]);
    let profile = Profile::strict();
    let head = Request::new("POST", b"/").header("Content-Type", b"application/x-iso9660-image");
    let mut scan = BodyScan::for_body_of(&profile, &head, 1 << 30);
    iso.chunks(4096).for_each(|c| scan.feed(c));
    let verdict = scan.finish();
    assert_eq!(verdict.decision, Decision::Allow, "{:?}", verdict.kinds());
    assert!(verdict.not_text.unwrap().contains("names are not read"));
    let whole = evaluate_upload(&profile, &head.clone().body(&iso)).verdict;
    assert_eq!(whole.decision, Decision::Allow);
}
