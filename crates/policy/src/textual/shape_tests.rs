//! Tests of [`super`]: real encodings fit; text, broken encodings and hostile nesting or
//! counts do not, and fail fast.

use super::*;

/// Every shape, in declaration order.
const ALL: [Shape; 9] = [
    Shape::Protobuf,
    Shape::Cbor,
    Shape::CborSeq,
    Shape::MessagePack,
    Shape::Bson,
    Shape::Der,
    Shape::Thrift,
    Shape::Avro,
    Shape::GrpcFrames,
];

/// Text bodies, some with NULs and overlong bytes, that no shape may take for binary.
const TEXTS: [&[u8]; 8] = [
    b"hello world",
    b"{\"a\":1}",
    b"../../etc/passwd",
    b"a\0b",
    b"GET / HTTP/1.1",
    b"/\xC0\xAE../",
    b"text with an overlong \xC0\xAE",
    b"<?php echo 1; ?>",
];

/// Bytes from hex digits, spaces ignored.
fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u32> = s.chars().filter_map(|c| c.to_digit(16)).collect();
    digits.chunks(2).map(|p| (p[0] << 4 | p[1]) as u8).collect()
}

/// Asserts that each of the `|`-separated hex bodies fits `shape` (`fit`) or does not.
fn check(shape: Shape, fit: bool, bodies: &str) {
    for body in bodies.split('|') {
        assert_eq!(shape.fits(&hex(body)), fit, "{} {body}", shape.name());
    }
}

#[test]
fn types_name_their_shapes() {
    let named = [
        (
            Shape::Protobuf,
            "protobuf x-protobuf x-google-protobuf vnd.google.protobuf",
        ),
        (Shape::Protobuf, "x-protobuffer"),
        (Shape::Cbor, "cbor cose+cbor"),
        (Shape::CborSeq, "cbor-seq senml+cbor-seq"),
        (Shape::MessagePack, "msgpack x-msgpack vnd.msgpack"),
        (Shape::Bson, "bson x-bson"),
        (
            Shape::Der,
            "pkix-cert pkix-crl pkcs10 pkcs7-mime pkcs7-signature pkcs8",
        ),
        (
            Shape::Der,
            "pkcs12 x-pkcs12 x-x509-ca-cert x-x509-user-cert timestamp-query",
        ),
        (
            Shape::Der,
            "timestamp-reply ocsp-request ocsp-response vnd.example+der",
        ),
        (
            Shape::Thrift,
            "x-thrift vnd.apache.thrift.binary vnd.apache.thrift.compact",
        ),
        (
            Shape::Avro,
            "avro x-avro avro-binary vnd.apache.avro+binary",
        ),
        (Shape::GrpcFrames, "grpc grpc+proto grpc+json grpc+cbor"),
        (Shape::GrpcFrames, "grpc-web grpc-web+proto grpc-web+json"),
    ];
    for (shape, subtypes) in named {
        for sub in subtypes.split(' ') {
            let essence = format!("application/{sub}");
            assert_eq!(Shape::of_type(&essence), Some(shape), "{essence}");
        }
    }
    assert_eq!(Shape::of_type("avro/binary"), Some(Shape::Avro));
    let unnamed = "application/octet-stream application/x-pem-file application/grpc-web-text \
        application/grpc-web-text+proto application/grpcx application/json text/plain \
        text/cbor application/x-protobuf-text";
    for essence in unnamed.split_whitespace().chain([""]) {
        assert_eq!(Shape::of_type(essence), None, "{essence}");
    }
}

#[test]
fn names_are_distinct() {
    let names: std::collections::HashSet<_> = ALL.iter().map(|s| s.name()).collect();
    assert_eq!(names.len(), ALL.len());
    assert_eq!(
        (Shape::Protobuf.name(), Shape::Cbor.name()),
        ("protobuf", "CBOR")
    );
}

#[test]
fn empty_body_fits_all_but_bson_and_der() {
    for shape in ALL {
        let expected = !matches!(shape, Shape::Bson | Shape::Der);
        assert_eq!(shape.fits(b""), expected, "{}", shape.name());
    }
}

#[test]
fn text_never_fits() {
    for (shape, text) in ALL.iter().flat_map(|s| TEXTS.map(|t| (s, t))) {
        let shown = text.escape_ascii().to_string();
        assert!(!shape.fits(text), "{} took {shown:?}", shape.name());
    }
}

#[test]
fn cbor_sequences_take_some_text() {
    // A known weakness: ASCII letters are CBOR string heads, digits and punctuation are
    // integers, so short text can be a CBOR sequence ("G" + 7 bytes, "e" + 5, "l" + 12, ...).
    let request = b"GET /index.html HTTP/1.1\r\nHost: example.com\r\n\r\n";
    assert!(Shape::CborSeq.fits(request));
    assert!(!Shape::Cbor.fits(request));
    assert!(!Shape::CborSeq.fits(b"<p>hi</p>")); // "<" (0x3c) is reserved
}

#[test]
fn protobuf() {
    // 150; "hello"; varint, empty bytes, fixed32, fixed64; a group; nested groups; a 10-byte
    // varint; the largest field number (2^29 - 1)
    let fit = "08 96 01 | 0a 05 68 65 6c 6c 6f \
        | 08 96 01 12 00 1d 01 02 03 04 21 01 02 03 04 05 06 07 08 | 0b 08 01 0c | 0b 13 14 0c \
        | 08 ff ff ff ff ff ff ff ff ff 01 | f8 ff ff ff 0f 00";
    check(Shape::Protobuf, true, fit);
    // varint missing, cut; length beyond the body; an 11-byte varint; field 0; field 2^29;
    // wire types 6, 7; a group never closed; an end group outside one, or of another field;
    // fixed64, fixed32 cut
    let broken = "08 | 08 96 | 0a 06 68 65 6c 6c 6f | 08 ff ff ff ff ff ff ff ff ff ff 01 \
        | 00 01 | 80 80 80 80 10 00 | 0e | 0f | 0b 08 01 | 0c | 0b 14 | 09 01 02 03 | 0d 01 02";
    check(Shape::Protobuf, false, broken);
    let deepest = [vec![0x0b; GROUP_DEPTH], vec![0x0c; GROUP_DEPTH]].concat();
    assert!(Shape::Protobuf.fits(&deepest));
    let too_deep = [vec![0x0b; GROUP_DEPTH + 1], vec![0x0c; GROUP_DEPTH + 1]].concat();
    assert!(!Shape::Protobuf.fits(&too_deep));
}

#[test]
fn cbor() {
    // {"a": 1}; [_ 1, 2]; [1, [2, 3], [4, 5]]; {_ "a": 1, "b": [_ ]}; (_ h'0102', h'03');
    // (_ "a", "b"); 1(1363896240); floats; simple values; -2^64; [], {}, h''
    let one = "a1 61 61 01 | 9f 01 02 ff | 83 01 82 02 03 82 04 05 | bf 61 61 01 61 62 9f ff ff \
        | 5f 42 01 02 41 03 ff | 7f 61 61 61 62 ff | c1 1a 51 4b 67 b0 | f9 3c 00 | fa 47 c3 50 00 \
        | fb 3f f1 99 99 99 99 99 9a | f4 | f5 | f6 | f7 | f8 20 | 3b ff ff ff ff ff ff ff ff \
        | 80 | a0 | 40";
    check(Shape::Cbor, true, one);
    check(Shape::CborSeq, true, one);
    check(Shape::CborSeq, true, "01 02 03 | a1 61 61 01 9f ff 60");
    check(Shape::Cbor, false, "01 02 | a1 61 61 01 00");
    // a break outside an indefinite item, after a key, or missing; a value missing; a text
    // chunk in a byte string; an indefinite chunk; an indefinite integer or tag; reserved
    // additional info 28-30; simple value below 32 in two bytes; an argument cut; a string
    // beyond the body; an item missing; a tag without its item
    let broken = "ff | bf 01 ff | 9f 01 02 | a1 61 61 | 5f 61 61 ff | 5f 5f ff ff | 3f | 1f \
        | df 00 | 1c | 5d | fe | f8 10 | 19 01 | 62 61 | 83 01 02 | c1";
    check(Shape::Cbor, false, broken);
    check(Shape::CborSeq, false, broken);
}

#[test]
fn cbor_counts_beyond_the_body_fail_fast() {
    // An array of 2^63 items, a map of 2^63 pairs, a 2^64-1 byte string, each with 3 bytes.
    let huge = [
        "9b 80 00 00 00 00 00 00 00",
        "bb 80 00 00 00 00 00 00 00",
        "5b ff ff ff ff ff ff ff ff",
    ];
    for head in huge {
        let body = [hex(head), vec![1, 2, 3]].concat();
        // (A loop over 2^63 items would never end: that it ends is the test.)
        assert!(
            !Shape::Cbor.fits(&body) && !Shape::CborSeq.fits(&body),
            "{head}"
        );
    }
    check(Shape::Cbor, false, "84 01 02 03 | a2 01 02 03"); // n items need n bytes, 2n
}

#[test]
fn cbor_nesting_is_bounded() {
    let deepest = [vec![0x81; NEST_DEPTH], vec![0x00]].concat();
    assert!(Shape::Cbor.fits(&deepest));
    let too_deep = [vec![0x81; NEST_DEPTH + 1], vec![0x00]].concat();
    assert!(!Shape::Cbor.fits(&too_deep));
    let tags = [vec![0xc6; NEST_DEPTH + 1], vec![0x00]].concat();
    assert!(!Shape::Cbor.fits(&tags));
}

#[test]
fn msgpack() {
    // {"a": 1}; [1, 2, 3]; [[nil], {}]; nil, false, true, fixints, empty containers; ints;
    // floats; bin; ext; fixext 1, 2, 4, 8, 16; str 8, 16, 32; array 16, 32; map 16, 32
    let fit = "81 a1 61 01 | 93 01 02 03 | 92 91 c0 80 | c0 | c2 | c3 | 7f | e0 | ff | 90 | 80 \
        | a0 | cc 80 | cd 01 00 | ce 00 01 00 00 | cf 00 00 00 01 00 00 00 00 | d0 80 | d1 ff 00 \
        | d2 ff ff ff 00 | d3 ff ff ff ff ff ff ff 00 | ca 3f 80 00 00 \
        | cb 3f f0 00 00 00 00 00 00 \
        | c4 03 01 02 03 | c5 00 01 ff | c6 00 00 00 00 | c7 01 05 aa | c8 00 00 05 \
        | c9 00 00 00 01 05 aa | d4 01 02 | d5 01 02 03 | d6 ff 00 00 00 00 \
        | d7 ff 00 00 00 00 00 00 00 00 | d8 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 \
        | d9 01 61 | da 00 01 61 | db 00 00 00 01 61 | dc 00 02 01 02 | dd 00 00 00 01 01 \
        | de 00 01 01 02 | df 00 00 00 01 01 02";
    check(Shape::MessagePack, true, fit);
    // never used; two objects; cut in each kind of head or body; 2^32-1 items and 2^33-2
    // items in a byte or two: they fail at the count
    let broken = "c1 | 01 02 | 81 a1 61 | 93 01 02 | a2 61 | c4 03 01 | c7 01 | d4 01 | cb 3f f0 \
        | dc 00 | d9 | dd ff ff ff ff 00 | df ff ff ff ff 00 00";
    check(Shape::MessagePack, false, broken);
    let deepest = [vec![0x91; NEST_DEPTH], vec![0x00]].concat();
    assert!(Shape::MessagePack.fits(&deepest));
    let too_deep = [vec![0x91; NEST_DEPTH + 1], vec![0x00]].concat();
    assert!(!Shape::MessagePack.fits(&too_deep));
}

#[test]
fn bson() {
    // {} and {"a": 1 (int32)}
    check(
        Shape::Bson,
        true,
        "05 00 00 00 00 | 0c 00 00 00 10 61 00 01 00 00 00 00",
    );
    let broken = "04 00 00 00 | 05 00 00 00 | 05 00 00 00 01 | 06 00 00 00 00 | 04 00 00 00 00 \
        | ff ff ff ff 00";
    check(Shape::Bson, false, broken);
}

#[test]
fn der() {
    // SEQUENCE { INTEGER 5 }; AlgorithmIdentifier rsaEncryption; empty SET; [0] { INTEGER 2 }
    // (a certificate's version); long-form lengths; BER indefinite lengths, nested, with a
    // constructed OCTET STRING; high tag number [34]; nesting
    let fit = "30 03 02 01 05 | 30 0d 06 09 2a 86 48 86 f7 0d 01 01 01 05 00 | 31 00 \
        | a0 03 02 01 02 | 30 81 03 02 01 05 | 30 84 00 00 00 03 02 01 05 | 30 80 02 01 05 00 00 \
        | 30 80 30 80 04 00 00 00 24 80 04 01 61 00 00 00 00 | 30 03 9f 22 00 \
        | 30 06 30 04 30 02 05 00";
    check(Shape::Der, true, fit);
    // a primitive root; an OCTET STRING root; contents cut; bytes after the value; a lone 00
    // inside; end-of-contents in a definite value, or missing; 5 length bytes; a reserved
    // length; an indefinite primitive; a child beyond its parent (twice); a high tag number
    // with a leading 0x80, or of 5 bytes
    let broken = "02 01 05 | 04 03 30 01 00 | 30 03 02 01 | 30 03 02 01 05 00 | 30 04 02 01 05 00 \
        | 30 05 02 01 05 00 00 | 30 80 02 01 05 | 30 85 00 00 00 00 03 02 01 05 | 30 ff \
        | 30 04 02 80 05 00 | 30 03 02 05 05 | 30 04 30 03 02 01 05 | 30 04 9f 80 01 00 \
        | 30 07 9f ff ff ff ff 01 00";
    check(Shape::Der, false, broken);
    let nested = |depth: usize| [b"\x30\x80".repeat(depth), vec![0; 2 * depth]].concat();
    assert!(Shape::Der.fits(&nested(NEST_DEPTH)));
    assert!(!Shape::Der.fits(&nested(NEST_DEPTH + 1)));
}

#[test]
fn thrift() {
    // strict binary call "ping" (seqid 1, empty struct); a reply with an empty name; compact
    // call "ping"; compact reply; non-strict call "ping"
    let fit = "80 01 00 01 00 00 00 04 70 69 6e 67 00 00 00 01 00 | 80 01 00 02 00 00 00 00 \
        | 82 21 01 04 70 69 6e 67 00 | 82 41 | 00 00 00 04 70 69 6e 67 01 00 00 00 01 00";
    check(Shape::Thrift, true, fit);
    // message type 0, 5; name beyond the body; name length cut; version 2; compact type 0,
    // version 2, type 5, cut; non-strict: empty name, type missing, type 5
    let broken = "80 01 00 00 00 00 00 04 70 69 6e 67 | 80 01 00 05 00 00 00 00 \
        | 80 01 00 01 00 00 00 ff 70 | 80 01 00 01 00 00 | 80 02 00 01 00 00 00 00 | 82 01 \
        | 82 22 | 82 a1 | 82 | 00 00 00 00 01 | 00 00 00 04 70 69 6e 67 \
        | 00 00 00 04 70 69 6e 67 05";
    check(Shape::Thrift, false, broken);
}

#[test]
fn avro() {
    // "Obj\x01" and the start of its metadata map: {"avro.codec": "null"}
    let header = [
        b"Obj\x01".as_slice(),
        &hex("04 14 61 76 72 6f 2e 63 6f 64 65 63 08 6e 75 6c 6c"),
    ];
    assert!(Shape::Avro.fits(&header.concat()));
    // single-object encoding with and without a datum; Confluent schema id 1 and a datum
    check(
        Shape::Avro,
        true,
        "c3 01 01 02 03 04 05 06 07 08 02 | c3 01 01 02 03 04 05 06 07 08 | 00 00 00 00 01 02",
    );
    // A raw datum (the string "a") has no framing: it cannot be told from text.
    check(
        Shape::Avro,
        false,
        "02 61 | c3 01 01 02 03 04 05 06 07 | 00 00 00 01 | 4f 62 6a 02",
    );
}

#[test]
fn grpc() {
    let frame = |flag: u8, payload: &[u8]| {
        let len = u32::try_from(payload.len()).unwrap().to_be_bytes();
        [&[flag][..], &len, payload].concat()
    };
    let trailers = b"grpc-status:0\r\n";
    let body = [frame(0, b"hello"), frame(1, b""), frame(0x80, trailers)].concat();
    let frames: Vec<_> = grpc_frames(&body).expect("frames").flatten().collect();
    let expected = [
        (false, false, 5..10),
        (true, false, 15..15),
        (false, true, 20..35),
    ];
    let got: Vec<_> = frames
        .iter()
        .map(|f| (f.compressed, f.trailers, f.payload.clone()))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(&body[frames[2].payload.clone()], trailers);
    assert!(Shape::GrpcFrames.fits(&body));
    assert_eq!(grpc_frames(b"").map(Iterator::count), Some(0));
    let cut = frame(0x81, b"x")[..5].to_vec();
    for bad in [
        frame(2, b"x"),
        frame(0x40, b""),
        cut,
        hex("00 00 00"),
        hex("00 ff ff ff ff 00"),
    ] {
        assert!(grpc_frames(&bad).is_none(), "{bad:?}");
        assert!(!Shape::GrpcFrames.fits(&bad));
    }
    assert!(!Shape::GrpcFrames.fits(&[frame(0, b"a"), vec![0]].concat()));
}

#[path = "shape_random_tests.rs"]
mod random;
