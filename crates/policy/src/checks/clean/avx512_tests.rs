//! The AVX-512 classifier against the portable one, on valid UTF-8 (what it is given): every
//! lead byte with every second and third byte it can have, and generated text. Skipped, with a
//! line saying so, on a CPU without AVX-512 VBMI.

use proptest::prelude::*;

use super::tests::{CONTEXTS, all};
use super::{Context, avx512, first_candidate_portable};

/// Whether the CPU can run the AVX-512 build; says so when it cannot.
fn detected() -> bool {
    let yes = avx512::is_detected();
    if !yes {
        eprintln!("skipped: this CPU has no AVX-512 F, BW and VBMI");
    }
    yes
}

/// Every candidate by the AVX-512 build and by the portable one.
fn both(text: &str, cx: Context) -> (Vec<usize>, Vec<usize>) {
    // SAFETY: the callers checked `avx512::is_detected()`.
    let wide = all(text.as_bytes(), |b, f| unsafe {
        avx512::first_candidate(b, f, cx)
    });
    let portable = all(text.as_bytes(), |b, f| first_candidate_portable(b, f, cx));
    (wide, portable)
}

/// The second bytes a lead byte can have in valid UTF-8 (RFC 3629 §4).
fn seconds(b0: u8) -> std::ops::RangeInclusive<u8> {
    match b0 {
        0xE0 => 0xA0..=0xBF,
        0xED => 0x80..=0x9F,
        0xF0 => 0x90..=0xBF,
        0xF4 => 0x80..=0x8F,
        _ => 0x80..=0xBF,
    }
}

/// Every character of every lead byte with every second byte and every third byte (each
/// character of a run before characters of every length and after every ASCII control, across
/// the 64-byte blocks): flagged alike.
#[test]
fn every_valid_lead_second_and_third_byte_is_flagged_alike() {
    if !detected() {
        return;
    }
    for cx in CONTEXTS {
        for b0 in 0xC2..=0xF4u8 {
            for b1 in seconds(b0) {
                let mut text = String::new();
                let thirds: Vec<u8> = match b0 {
                    0xC2..=0xDF => vec![0],
                    _ => (0x80..=0xBF).collect(),
                };
                for b2 in thirds {
                    let bytes: Vec<u8> = match b0 {
                        0xC2..=0xDF => vec![b0, b1],
                        0xE0..=0xEF => vec![b0, b1, b2],
                        _ => vec![b0, b1, b2, 0xBF],
                    };
                    let c = std::str::from_utf8(&bytes).expect("a valid character");
                    for next in ["a", "\u{1}", "é", "\u{301}", "中", "😀", c] {
                        text.push_str(c);
                        text.push_str(next);
                    }
                    // After every ASCII control and DEL, which share the lookups' low bits
                    // with lead bytes.
                    for control in (0..0x20u8).chain([0x7F]) {
                        text.push(char::from(control));
                        text.push_str(c);
                    }
                }
                let (wide, portable) = both(&text, cx);
                assert_eq!(wide, portable, "{b0:02X} {b1:02X} {cx:?}");
            }
        }
    }
}

proptest! {
    /// Generated text of characters of every length, in runs shifted across blocks: flagged
    /// alike from any char boundary.
    #[test]
    fn generated_text_is_flagged_alike(
        chars in prop::collection::vec(
            prop_oneof![
                4 => any::<char>(),
                4 => prop::char::range('\u{80}', '\u{7FF}'),
                4 => prop::char::range('\u{2000}', '\u{33FF}'),
                4 => prop::char::range('\u{FE00}', '\u{FFFF}'),
                4 => prop::char::range('\u{1F000}', '\u{1FAFF}'),
                2 => prop::char::range('\0', '\u{7F}'),
            ],
            0..400,
        ),
        from in 0usize..600,
        cx in prop::sample::select(CONTEXTS.to_vec()),
    ) {
        if !avx512::is_detected() {
            return Ok(());
        }
        let text: String = chars.into_iter().collect();
        let mut at = from.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        // SAFETY: AVX-512 was detected just above.
        let wide = unsafe { avx512::first_candidate(text.as_bytes(), at, cx) };
        prop_assert_eq!(wide, first_candidate_portable(text.as_bytes(), at, cx));
    }
}
