//! The named cases of the founding texts and of known incidents, each placed at SIMD block
//! edges (offsets 0, 15, 16, 31, 32, 63, 64) of otherwise valid text, checked against std and
//! against the kind and lax scalar the texts give.

mod support;

use support::{check_diagnosis, check_lossy, check_validate};
use utf8gate_codec::{MalformedKind, MalformedKind::*, StreamValidator, validate};

struct Case {
    name: &'static str,
    bytes: &'static [u8],
    /// Kind, span length and lax scalar of each malformation, in order.
    expect: &'static [(MalformedKind, usize, Option<u32>)],
}

const CASES: &[Case] = &[
    Case {
        name: "IIS/Nimda overlong dot in /../",
        bytes: b"/\xC0\xAE./",
        expect: &[(Overlong, 2, Some(0x2E))],
    },
    Case {
        name: "overlong NUL (Java modified UTF-8)",
        bytes: b"\xC0\x80",
        expect: &[(Overlong, 2, Some(0))],
    },
    Case {
        name: "overlong slash, 2 bytes",
        bytes: b"\xC0\xAF",
        expect: &[(Overlong, 2, Some(0x2F))],
    },
    Case {
        name: "overlong backslash (IIS)",
        bytes: b"\xC1\x9C",
        expect: &[(Overlong, 2, Some(0x5C))],
    },
    Case {
        name: "overlong slash, 3 bytes",
        bytes: b"\xE0\x80\xAF",
        expect: &[(Overlong, 3, Some(0x2F))],
    },
    Case {
        name: "overlong slash, 4 bytes",
        bytes: b"\xF0\x80\x80\xAF",
        expect: &[(Overlong, 4, Some(0x2F))],
    },
    Case {
        name: "overlong slash, 5 bytes",
        bytes: b"\xF8\x80\x80\x80\xAF",
        expect: &[(Overlong, 5, Some(0x2F))],
    },
    Case {
        name: "overlong slash, 6 bytes",
        bytes: b"\xFC\x80\x80\x80\x80\xAF",
        expect: &[(Overlong, 6, Some(0x2F))],
    },
    Case {
        name: "lone high surrogate",
        bytes: b"\xED\xA0\x80",
        expect: &[(Surrogate, 3, Some(0xD800))],
    },
    Case {
        name: "CESU-8 U+1F600",
        bytes: b"\xED\xA0\xBD\xED\xB8\x80",
        expect: &[(Cesu8Pair, 6, Some(0x1F600))],
    },
    Case {
        name: "CESU-8 U+233B4 (RFC 3629 §3)",
        bytes: b"\xED\xA1\x8C\xED\xBE\xB4",
        expect: &[(Cesu8Pair, 6, Some(0x233B4))],
    },
    Case {
        name: "first value above U+10FFFF",
        bytes: b"\xF4\x90\x80\x80",
        expect: &[(AboveMax, 4, Some(0x110000))],
    },
    Case {
        name: "byte FE",
        bytes: b"\xFE",
        expect: &[(InvalidByte, 1, None)],
    },
    Case {
        name: "byte FF",
        bytes: b"\xFF",
        expect: &[(InvalidByte, 1, None)],
    },
];

/// 70 bytes of valid text with characters of every length.
const FILLER: &str =
    "abcdefghijklmnopé€𝄞ßж中文😀abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345";

fn placed(offset: usize, bytes: &[u8]) -> Vec<u8> {
    let mut input = String::new();
    for c in FILLER.chars() {
        if input.len() + c.len_utf8() > offset {
            break;
        }
        input.push(c);
    }
    while input.len() < offset {
        input.push('.');
    }
    let mut input = input.into_bytes();
    input.extend_from_slice(bytes);
    input.extend_from_slice(FILLER.as_bytes());
    input
}

fn check_case(case: &Case, input: &[u8], at: usize) {
    check_validate(input);
    check_lossy(input);
    let found = check_diagnosis(input);
    let got: Vec<_> = found
        .iter()
        .map(|m| (m.kind(), m.len(), m.lax_scalar()))
        .collect();
    assert_eq!(got, case.expect, "{} at {at}", case.name);
    let mut span = 0;
    for m in &found {
        assert!(
            m.offset() >= at && m.range().end <= at + case.bytes.len() + span,
            "{}",
            case.name
        );
        span += m.len();
    }
    assert_eq!(
        validate(input).unwrap_err().kind(),
        case.expect[0].0,
        "{}",
        case.name
    );
    // The same findings when streamed one byte at a time.
    let mut v = StreamValidator::new();
    let mut streamed = Vec::new();
    for b in input {
        v.feed(std::slice::from_ref(b), |m| streamed.push(m));
    }
    v.finish(|m| streamed.push(m));
    assert_eq!(streamed, found, "{} streamed at {at}", case.name);
}

#[test]
fn every_case_at_every_block_edge() {
    for case in CASES {
        for at in [0, 15, 16, 31, 32, 63, 64] {
            let input = placed(at, case.bytes);
            assert_eq!(&input[at..at + case.bytes.len()], case.bytes);
            assert!(core::str::from_utf8(&input[..at]).is_ok());
            check_case(case, &input, at);
        }
    }
}

#[test]
fn truncated_at_the_end_of_input() {
    for at in [0, 15, 16, 31, 32, 63, 64] {
        let mut input = placed(at, b"");
        input.truncate(at);
        input.extend_from_slice(b"\xE2\x82");
        let err = validate(&input).unwrap_err();
        assert_eq!(
            (err.valid_up_to(), err.error_len(), err.kind()),
            (at, None, Truncated)
        );
        let found = check_diagnosis(&input);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].offset(), found[0].len()), (at, 2));
        check_lossy(&input);
    }
}

#[test]
fn unicode_maximal_subpart_example() {
    let input = b"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64";
    check_lossy(input);
    assert_eq!(
        utf8gate_codec::to_lossy(input),
        "a\u{FFFD}\u{FFFD}\u{FFFD}b\u{FFFD}c\u{FFFD}\u{FFFD}d"
    );
    // The diagnosis groups by lax sequences: F1 80 80, E1 80, C2, then two stray bytes.
    let kinds: Vec<_> = check_diagnosis(input)
        .iter()
        .map(|m| (m.offset(), m.kind()))
        .collect();
    assert_eq!(
        kinds,
        [
            (1, Truncated),
            (4, Truncated),
            (6, Truncated),
            (8, UnexpectedContinuation),
            (10, UnexpectedContinuation),
            (11, UnexpectedContinuation)
        ]
    );
}
