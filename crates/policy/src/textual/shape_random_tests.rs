//! Random and hostile bodies: text rarely fits a shape, nothing panics, nesting and counts
//! past the body fail.

use super::super::*;
use super::ALL;

/// A deterministic xorshift64 generator.
struct XorShift(u64);

impl XorShift {
    /// The next number.
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Whether an ASCII string is one CBOR item, worked out apart: every ASCII head is an integer
/// (major 1) or a string (2, 3), so it is one exactly when its head's length covers the rest.
fn ascii_is_one_cbor_item(s: &[u8]) -> bool {
    let (b0, len) = (s[0], s.len());
    match b0 {
        0x38 => len == 2,
        0x39 => len == 3,
        0x3a => len == 5,
        0x3b => len == 9,
        0x40..=0x57 | 0x60..=0x77 => len == 1 + usize::from(b0 & 0x1f),
        0x58 | 0x78 => len == 2 + usize::from(s[1]),
        _ => false, // 0x59/0x79 and up declare at least 0x2020 bytes; the rest are 1 byte
    }
}

#[test]
fn random_printable_ascii_rarely_fits() {
    const N: usize = 20_000;
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut fitting = [0usize; 9];
    for _ in 0..N {
        let len = 8 + (rng.next() % 57) as usize;
        let s: Vec<u8> = (0..len).map(|_| 0x20 + (rng.next() % 95) as u8).collect();
        for (count, shape) in fitting.iter_mut().zip(ALL) {
            *count += usize::from(shape.fits(&s));
        }
        let shown = String::from_utf8_lossy(&s);
        assert_eq!(
            Shape::Cbor.fits(&s),
            ascii_is_one_cbor_item(&s),
            "{shown:?}"
        );
    }
    for (count, shape) in fitting.iter().zip(ALL) {
        let percent = *count as f64 * 100.0 / N as f64;
        println!("{}: {count} of {N} fit ({percent:.3}%)", shape.name());
    }
    let [protobuf, cbor, seq, msgpack, bson, der, thrift, avro, grpc] = fitting;
    assert!(protobuf * 100 < N, "protobuf {protobuf}");
    // Not 0: "gabcdefg" is one CBOR text string of 7 bytes (checked exactly above).
    assert!(cbor * 100 < N, "CBOR {cbor}");
    assert!(seq * 10 < N, "CBOR sequence {seq}"); // a sequence takes more: see above
    assert_eq!([msgpack, bson, der, thrift, avro, grpc], [0; 6]);
}

#[test]
fn random_bytes_never_panic_and_agree() {
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    // Half the bodies are drawn from heads and small numbers, to reach deeper states.
    let pool = [
        0x00, 0x01, 0x02, 0x0b, 0x0c, 0x30, 0x80, 0x81, 0x9f, 0xbf, 0xff, 0x91, 0xa1, 0x61,
    ];
    for round in 0..50_000 {
        let len = (rng.next() % 48) as usize;
        let body: Vec<u8> = (0..len)
            .map(|_| match round % 2 {
                0 => rng.next() as u8,
                _ => pool[(rng.next() % pool.len() as u64) as usize],
            })
            .collect();
        let fits = ALL.map(|shape| shape.fits(&body));
        assert_eq!(fits[8], grpc_frames(&body).is_some());
        assert!(
            !fits[1] || fits[2],
            "one CBOR item is a CBOR sequence: {body:02x?}"
        );
    }
}

#[test]
fn hostile_bodies_fail() {
    const MIB: usize = 1 << 20;
    let groups = b"\x0b\x0c".repeat(MIB / 2);
    let cases: [(Shape, Vec<u8>); 8] = [
        (Shape::Cbor, vec![0x9f; MIB]),
        (Shape::CborSeq, vec![0x9f; MIB]),
        (Shape::MessagePack, vec![0x91; MIB]),
        (Shape::MessagePack, vec![0xdc; MIB]),
        (Shape::Protobuf, vec![0x0b; MIB]),
        (Shape::Der, b"\x30\x80".repeat(MIB / 2)),
        (Shape::Protobuf, [&groups[..], &[0x0b]].concat()),
        (Shape::CborSeq, [vec![0; MIB], vec![0xff]].concat()),
    ];
    // (Their time is measured, not asserted: `cargo bench --bench files`, `protobuf_worst`.)
    for (shape, body) in cases {
        assert!(!shape.fits(&body), "{}", shape.name());
    }
    assert!(Shape::CborSeq.fits(&vec![0; MIB]) && Shape::Protobuf.fits(&groups));
}
