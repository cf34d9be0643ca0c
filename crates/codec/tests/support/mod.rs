//! Oracles shared by the codec's integration tests.
#![allow(dead_code, unreachable_pub)]

use utf8gate_codec::{Malformation, MalformedKind, diagnose, to_lossy, validate};

/// `validate` agrees with `core::str::from_utf8` on Ok/Err, `valid_up_to` and `error_len`, and
/// the error's malformation starts at `valid_up_to`.
pub fn check_validate(input: &[u8]) {
    match (core::str::from_utf8(input), validate(input)) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(s), Err(o)) => {
            assert_eq!(
                o.valid_up_to(),
                s.valid_up_to(),
                "valid_up_to of {input:02X?}"
            );
            assert_eq!(o.error_len(), s.error_len(), "error_len of {input:02X?}");
            assert_eq!(o.malformation().offset(), s.valid_up_to(), "{input:02X?}");
            let m = o.malformation();
            assert!(
                core::str::from_utf8(m.bytes()).is_err(),
                "{input:02X?}: {m:?}"
            );
            assert_eq!(&input[m.range()], m.bytes());
        }
        (s, o) => panic!("{input:02X?}: std {s:?}, utf8gate {o:?}"),
    }
}

/// The diagnosis splits `input` into valid stretches and malformed spans: every span is
/// invalid per std, the stretches between spans are valid per std, the spans are in order and
/// no span is reported for valid input; each malformation keeps its kind's promise.
pub fn check_diagnosis(input: &[u8]) -> Vec<Malformation> {
    let found: Vec<_> = diagnose(input).collect();
    let mut at = 0;
    for m in &found {
        assert!(m.offset() >= at, "{input:02X?}: out of order {found:?}");
        assert!(
            core::str::from_utf8(&input[at..m.offset()]).is_ok(),
            "{input:02X?}: invalid bytes between findings {found:?}"
        );
        assert_eq!(&input[m.range()], m.bytes());
        assert!(
            core::str::from_utf8(m.bytes()).is_err(),
            "{input:02X?}: {m:?}"
        );
        check_kind_promise(m);
        at = m.range().end;
    }
    assert!(
        core::str::from_utf8(&input[at..]).is_ok(),
        "{input:02X?}: {found:?}"
    );
    assert_eq!(found.is_empty(), core::str::from_utf8(input).is_ok());
    found
}

/// `to_lossy` is byte-identical to `String::from_utf8_lossy`.
pub fn check_lossy(input: &[u8]) {
    assert_eq!(
        to_lossy(input),
        String::from_utf8_lossy(input),
        "{input:02X?}"
    );
}

/// Number of bytes in the RFC 2279 form whose lead byte is `lead`.
pub fn form_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        0xF8..=0xFB => 5,
        0xFC..=0xFD => 6,
        _ => 0,
    }
}

/// Shortest RFC 2279 form length of a value (up to 31 bits).
pub fn shortest_len(v: u32) -> usize {
    match v {
        0..=0x7F => 1,
        0x80..=0x7FF => 2,
        0x800..=0xFFFF => 3,
        0x1_0000..=0x1F_FFFF => 4,
        0x20_0000..=0x3FF_FFFF => 5,
        _ => 6,
    }
}

/// CESU-8 bytes of a supplementary scalar, built independently of the codec.
pub fn cesu8(scalar: u32) -> Vec<u8> {
    let v = scalar - 0x1_0000;
    let mut out = Vec::new();
    for unit in [0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF)] {
        out.extend([
            0xE0 | (unit >> 12) as u8,
            0x80 | ((unit >> 6) & 0x3F) as u8,
            0x80 | (unit & 0x3F) as u8,
        ]);
    }
    out
}

/// Each kind's promise about its bytes and lax scalar.
pub fn check_kind_promise(m: &Malformation) {
    let b = m.bytes();
    let lax = m.lax_scalar();
    match m.kind() {
        MalformedKind::Overlong => {
            let v = lax.expect("overlong has a lax scalar");
            assert_eq!(m.len(), form_len(b[0]), "{m:?}");
            assert!(shortest_len(v) < m.len(), "{m:?}");
            if let Some(c) = char::from_u32(v) {
                assert!(c.len_utf8() < m.len(), "{m:?}");
            }
        }
        MalformedKind::Surrogate => {
            assert_eq!(m.len(), 3);
            assert!(
                (0xD800..=0xDFFF).contains(&lax.expect("surrogate value")),
                "{m:?}"
            );
        }
        MalformedKind::Cesu8Pair => {
            let c = m.lax_char().expect("a pair is a scalar");
            assert!(c as u32 >= 0x1_0000, "{m:?}");
            assert_eq!(b, cesu8(c as u32), "{m:?}");
            assert_eq!(c.len_utf8(), 4);
        }
        MalformedKind::AboveMax => {
            assert_eq!(m.len(), 4);
            assert!(lax.expect("value") > 0x10_FFFF, "{m:?}");
        }
        MalformedKind::LegacyForm => {
            let v = lax.expect("value");
            assert!(m.len() == 5 || m.len() == 6, "{m:?}");
            assert_eq!(shortest_len(v), m.len(), "{m:?}");
        }
        MalformedKind::InvalidByte => assert!(b == [0xFE] || b == [0xFF], "{m:?}"),
        MalformedKind::UnexpectedContinuation => {
            assert_eq!(m.len(), 1);
            assert_eq!(b[0] & 0xC0, 0x80, "{m:?}");
        }
        MalformedKind::Truncated => {
            assert!(m.len() < form_len(b[0]), "{m:?}");
            assert!(b[1..].iter().all(|&c| c & 0xC0 == 0x80), "{m:?}");
            assert_eq!(lax, None);
        }
        other => panic!("untested kind {other:?}"),
    }
}
