//! The lossy decoder's unchecked prefix conversion against the checked path it replaced and
//! against `String::from_utf8_lossy`, on adversarial input.

use proptest::prelude::*;
use utf8gate_codec::{REPLACEMENT, push_lossy, to_lossy};

/// The lossy decoder before the unchecked conversion: every valid prefix re-validated.
fn checked_lossy(bytes: &[u8], out: &mut String) -> usize {
    let mut rest = bytes;
    let mut replaced = 0;
    loop {
        match simdutf8::compat::from_utf8(rest) {
            Ok(text) => {
                out.push_str(text);
                return replaced;
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                out.push_str(core::str::from_utf8(valid).expect("valid_up_to prefix"));
                out.push(REPLACEMENT);
                replaced += 1;
                match e.error_len() {
                    Some(n) => rest = &after[n..],
                    None => return replaced,
                }
            }
        }
    }
}

fn check(input: &[u8]) {
    let mut ours = String::from("prefix ");
    let mut checked = String::from("prefix ");
    let n = push_lossy(input, &mut ours);
    assert_eq!(n, checked_lossy(input, &mut checked), "{input:02X?}");
    assert_eq!(ours, checked, "{input:02X?}");
    assert_eq!(
        to_lossy(input),
        String::from_utf8_lossy(input),
        "{input:02X?}"
    );
}

/// Valid characters of every length and the malformed forms a lax decoder accepts.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => any::<char>().prop_map(|c| c.to_string().into_bytes()),
        2 => "[ -~]{1,40}".prop_map(String::into_bytes),
        1 => (0xD800u32..=0xDFFF).prop_map(|u| vec![0xED, 0x80 | ((u >> 6) & 0x3F) as u8, 0x80 | (u & 0x3F) as u8]),
        1 => (0x11_0000u32..0x20_0000).prop_map(|v| vec![
            0xF0 | (v >> 18) as u8, 0x80 | ((v >> 12) & 0x3F) as u8, 0x80 | ((v >> 6) & 0x3F) as u8, 0x80 | (v & 0x3F) as u8,
        ]),
        1 => prop::sample::select(vec![
            &b"\xC0\xAE"[..], b"\xC1\xBF", b"\xE0\x80\xAF", b"\xE0\x9F\xBF", b"\xF0\x80\x80\xAF", b"\xF0\x8F\xBF\xBF",
            b"\xF8\x80\x80\x80\xAF", b"\xFC\x80\x80\x80\x80\xAF", b"\xFB\xBF\xBF\xBF\xBF", b"\xFD\xBF\xBF\xBF\xBF\xBF",
            b"\xFE", b"\xFF", b"\x80", b"\xBF", b"\xED\xA0\xBD\xED\xB8\x80", b"\xF4\x90\x80\x80", b"\xF5\x80\x80\x80",
        ]).prop_map(<[u8]>::to_vec),
        1 => any::<char>().prop_flat_map(|c| {
            let full = c.to_string().into_bytes();
            let n = full.len();
            (Just(full), 0..n).prop_map(|(f, cut)| f[..cut].to_vec())
        }),
        1 => prop::collection::vec(any::<u8>(), 1..16),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn unchecked_prefixes_equal_the_checked_path(pieces in prop::collection::vec(piece(), 0..48)) {
        check(&pieces.concat());
    }

    #[test]
    fn random_bytes(input in prop::collection::vec(any::<u8>(), 0..300)) {
        check(&input);
    }

    #[test]
    fn long_valid_text_with_errors_injected(
        text in "\\PC{0,400}",
        errors in prop::collection::vec((any::<prop::sample::Index>(), piece()), 0..6),
    ) {
        let mut input = text.into_bytes();
        for (at, bad) in errors {
            let at = at.index(input.len() + 1);
            input.splice(at..at, bad);
        }
        check(&input);
    }
}

#[test]
fn every_truncation_of_text_with_every_kind_of_sequence() {
    let mut text = "aé€😀\u{10FFFF}\u{FFFD}".repeat(3).into_bytes();
    text.extend_from_slice(b"\xC0\xAE\xED\xA0\x80\xF4\x90\x80\x80\xF8\x88\x80\x80\x80\xE2\x82");
    text.extend_from_slice("z€".repeat(40).as_bytes());
    for end in 0..=text.len() {
        for start in 0..end.min(12) {
            check(&text[start..end]);
        }
    }
}
