//! Property tests over random mixes of valid scalars of every length and malformed pieces.

mod support;

use proptest::prelude::*;
use support::{cesu8, check_diagnosis, check_lossy, check_validate};
use utf8gate_codec::{MalformedKind, StreamValidator, diagnose, repair_cesu8};

/// One piece of input: a valid character, a known malformed sequence, or arbitrary bytes.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => any::<char>().prop_map(|c| c.to_string().into_bytes()),
        2 => (0u32..0x80).prop_map(|c| vec![c as u8]),
        1 => (0x1_0000u32..=0x10_FFFF).prop_map(cesu8),
        1 => (0xD800u32..=0xDFFF).prop_map(|u| vec![0xED, 0x80 | ((u >> 6) & 0x3F) as u8, 0x80 | (u & 0x3F) as u8]),
        1 => prop::sample::select(vec![
            &b"\xC0\xAE"[..], b"\xC0\x80", b"\xC1\x9C", b"\xE0\x80\xAF", b"\xF0\x80\x80\xAF",
            b"\xF8\x80\x80\x80\xAF", b"\xFC\x80\x80\x80\x80\xAF", b"\xF4\x90\x80\x80", b"\xF7\xBF\xBF\xBF",
            b"\xF8\x88\x80\x80\x80", b"\xFD\xBF\xBF\xBF\xBF\xBF", b"\xFE", b"\xFF", b"\x80", b"\xBF",
            b"\xE2\x82", b"\xF0\x9F\x98", b"\xC2", b"\xED\xA0\x80\xED",
        ]).prop_map(<[u8]>::to_vec),
        1 => prop::collection::vec(any::<u8>(), 1..8),
    ]
}

fn input() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(piece(), 0..64).prop_map(|p| p.concat())
}

/// Splits `input` at the given cut points (taken modulo its length) and streams it.
fn streamed(input: &[u8], cuts: &[usize]) -> (Vec<utf8gate_codec::Malformation>, usize) {
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
    points.push(0);
    points.push(input.len());
    points.sort_unstable();
    let mut v = StreamValidator::new();
    let mut found = Vec::new();
    for w in points.windows(2) {
        v.feed(&input[w[0]..w[1]], |m| found.push(m));
    }
    let summary = v.finish(|m| found.push(m));
    assert_eq!(summary.malformations, found.len() as u64);
    (found, summary.bytes)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn diagnosis_validation_and_lossy_agree_with_std(input in input()) {
        check_validate(&input);
        check_diagnosis(&input);
        check_lossy(&input);
    }

    #[test]
    fn streaming_at_any_split_equals_one_shot(input in input(), cuts in prop::collection::vec(any::<usize>(), 0..12)) {
        let one_shot: Vec<_> = diagnose(&input).collect();
        let (found, bytes) = streamed(&input, &cuts);
        prop_assert_eq!(bytes, input.len());
        prop_assert_eq!(found, one_shot);
    }

    #[test]
    fn streaming_byte_by_byte_equals_one_shot(input in input()) {
        let cuts: Vec<usize> = (0..input.len()).collect();
        let (found, _) = streamed(&input, &cuts);
        prop_assert_eq!(found, diagnose(&input).collect::<Vec<_>>());
    }

    #[test]
    fn repair_turns_exactly_the_pairs_into_utf8(input in input()) {
        let before: Vec<_> = diagnose(&input).collect();
        let repaired = repair_cesu8(&input);
        let after: Vec<_> = diagnose(&repaired).map(|m| (m.kind(), m.bytes().to_vec())).collect();
        let expected: Vec<_> = before
            .iter()
            .filter(|m| m.kind() != MalformedKind::Cesu8Pair)
            .map(|m| (m.kind(), m.bytes().to_vec()))
            .collect();
        prop_assert_eq!(after, expected);
        let pairs = before.iter().filter(|m| m.kind() == MalformedKind::Cesu8Pair).count();
        prop_assert_eq!(repaired.len() + 2 * pairs, input.len());
    }
}

#[test]
fn every_scalar_validates_and_encodes_like_std() {
    let mut buf = [0; 4];
    for v in 0..=0x11_0000u32 {
        let ours = utf8gate_codec::encode_scalar(v, &mut buf).map(<[u8]>::to_vec);
        match char::from_u32(v) {
            Some(c) => {
                let expected = c.to_string().into_bytes();
                assert_eq!(ours.as_deref(), Ok(&expected[..]));
                assert!(utf8gate_codec::is_valid(&expected));
                assert_eq!(diagnose(&expected).count(), 0);
            }
            None => assert!(ours.is_err(), "{v:X}"),
        }
    }
}
