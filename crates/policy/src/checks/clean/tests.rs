//! The classifier against the checks' own definitions, every scalar value; the AVX2 build
//! against the portable one; the segmented checks against the per-check ones.

use proptest::prelude::*;
use unicode_normalization::char::{canonical_combining_class, decompose_compatible};
use unicode_normalization::{IsNormalized, is_nfc_quick};

use super::*;
use crate::checks::CheckOptions;
use crate::checks::run;
use crate::checks::{controls, lookalike};
use crate::location::Part;

/// The four contexts of the classifier (shared with `super::avx512_tests`).
pub(super) const CONTEXTS: [Context; 4] = [
    Context {
        text_content: false,
        best_fit: false,
    },
    Context {
        text_content: false,
        best_fit: true,
    },
    Context {
        text_content: true,
        best_fit: false,
    },
    Context {
        text_content: true,
        best_fit: true,
    },
];

/// Every part, for the control check (TAB, CR, LF depend on it).
const PARTS: [Part; 18] = [
    Part::Path,
    Part::QueryKey,
    Part::QueryValue,
    Part::Header,
    Part::FormKey,
    Part::FormValue,
    Part::JsonKey,
    Part::JsonString,
    Part::MultipartName,
    Part::MultipartFilename,
    Part::MultipartHeader,
    Part::MultipartContent,
    Part::Body,
    Part::CookieName,
    Part::CookieValue,
    Part::UrlPath,
    Part::UrlQuery,
    Part::HeaderParameter,
];

/// Why `c` is not clean in `cx`, if it is not.
fn not_clean(c: char, cx: Context) -> Option<String> {
    if is_nfc_quick(core::iter::once(c)) != IsNormalized::Yes {
        return Some("NFC_QC is not Yes".into());
    }
    if canonical_combining_class(c) != 0 {
        return Some("ccc is not 0".into());
    }
    let mut nfkd = Vec::new();
    decompose_compatible(c, |d| nfkd.push(d));
    if nfkd
        .first()
        .is_some_and(|&d| canonical_combining_class(d) != 0)
    {
        return Some("its NFKD starts with a non-starter".into());
    }
    if let Some(part) = PARTS
        .into_iter()
        .filter(|p| p.is_text_content() == cx.text_content)
        .find(|&p| controls::classify(p, c).is_some())
    {
        return Some(format!("a control in {part:?}"));
    }
    if c == '\u{FEFF}' {
        return Some("U+FEFF".into());
    }
    let table = if cx.best_fit {
        lookalike::Table::BestFit
    } else {
        lookalike::Table::Default
    };
    lookalike::image(table, c).map(|_| "a lookalike".into())
}

/// Every scalar value the classifier does not flag is clean, in every context; continuation
/// bytes are never flagged.
#[test]
fn every_character_called_clean_is_clean() {
    let mut clean = 0u32;
    for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
        let mut buf = [0u8; 4];
        let bytes = c.encode_utf8(&mut buf).as_bytes();
        let at = |k: usize| bytes.get(k).copied().unwrap_or(0);
        for cx in CONTEXTS {
            if !is_candidate(at(0), at(1), at(2), cx) {
                clean += 1;
                if let Some(why) = not_clean(c, cx) {
                    panic!(
                        "U+{:04X} is called clean in {cx:?} but is {why}",
                        u32::from(c)
                    );
                }
            }
        }
    }
    // Most of the code space (Han, Hangul, emoji, unassigned planes) is proven clean.
    assert!(clean > 4 * 100_000, "{clean}");
    for b in 0x80..=0xBF {
        for cx in CONTEXTS {
            assert!(!coarse(b, cx));
        }
    }
}

/// The characters of the benchmark scripts are clean (so their text takes no segment).
#[test]
fn common_text_is_clean() {
    let text = "déjà Straße naïve coração привет съешь 你好 日本語 テキスト 。，： 漢字 \
                ひらがな 한국어 😀🎉👍🏽👩\u{200D}💻🇫🇷❤\u{FE0F}🧑\u{200D}🤝\u{200D}🧑✨ \
                🏴\u{E0067}\u{E0062}\u{E007F} \u{A0}© Ξεσκεπάζω\r\n\t \
                أنا قادر على أكل الزجاج و هذا لا يؤلمني فارسی";
    let cx = Context {
        text_content: true,
        best_fit: false,
    };
    assert_eq!(first_candidate_portable(text.as_bytes(), 0, cx), None);
    assert_eq!(first_candidate(text.as_bytes(), 0, cx), None);
}

/// Every candidate of `bytes` from `from` on, by `find` (shared with `super::avx512_tests`).
pub(super) fn all(bytes: &[u8], find: impl Fn(&[u8], usize) -> Option<usize>) -> Vec<usize> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(p) = find(bytes, from) {
        found.push(p);
        from = p + 1;
    }
    found
}

/// Every candidate of `bytes` (any bytes): with AVX2 when the CPU has it, with `simd128` in a
/// Wasm build that has it, else portable.
fn every_candidate(bytes: &[u8], cx: Context) -> Vec<usize> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was detected just above.
        return unsafe { avx2::every_candidate(bytes, cx) };
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return all(bytes, |b, f| simd128::first_candidate(b, f, cx));
    #[allow(unreachable_code)]
    all(bytes, |b, f| first_candidate_portable(b, f, cx))
}

/// The AVX2 classifier (where the CPU has it) flags the same bytes as the portable one, for
/// every lead byte and second byte, and every third byte the refined test reads (the AVX-512
/// one, exact on valid UTF-8 only, is tested in `avx512_tests`).
#[test]
fn every_byte_triple_is_flagged_alike() {
    for cx in CONTEXTS {
        for b0 in 0..=255u8 {
            for b1 in 0..=255u8 {
                // Every third byte after the leads whose test reads it, the edges of its
                // ranges after the others.
                let thirds: Vec<u8> = if matches!(b0, 0xE2 | 0xE3 | 0xEF | 0xF0) {
                    (0..=255).collect()
                } else {
                    vec![
                        0, 0x7F, 0x80, 0x8F, 0x90, 0x99, 0x9A, 0xAA, 0xAF, 0xBF, 0xC0, 0xFF,
                    ]
                };
                let bytes: Vec<u8> = thirds.into_iter().flat_map(|b2| [b0, b1, b2]).collect();
                assert_eq!(
                    every_candidate(&bytes, cx),
                    all(&bytes, |b, f| first_candidate_portable(b, f, cx)),
                    "{b0:02X} {b1:02X} {cx:?}"
                );
            }
        }
    }
}

/// Adversarial text: every check's triggers and every script's clean characters, shifted
/// across 32- and 64-byte block boundaries by ASCII runs of any length, and bytes that are not
/// UTF-8.
fn adversarial() -> impl Strategy<Value = Vec<u8>> {
    let special = prop::sample::select(vec![
        "\0",
        "\t",
        "\n",
        "\r",
        "\u{7}",
        "\u{7F}",
        "\u{85}",
        "\u{9F}",
        "\u{A0}",
        "\u{A5}",
        "\u{AB}",
        "\u{AD}",
        "\u{BB}",
        "\u{2BA}",
        "\u{37E}",
        "\u{387}",
        "\u{483}",
        "\u{301}",
        "\u{325}",
        "\u{344}",
        "\u{1FEF}",
        "\u{2000}",
        "\u{2001}",
        "\u{200D}",
        "\u{2010}",
        "\u{2019}",
        "\u{2024}",
        "\u{2026}",
        "\u{202E}",
        "\u{2044}",
        "\u{2066}",
        "\u{20A9}",
        "\u{2126}",
        "\u{2212}",
        "\u{2215}",
        "\u{2329}",
        "\u{2ADC}",
        "\u{302A}",
        "\u{3099}",
        "\u{309B}",
        "\u{AC00}",
        "\u{F900}",
        "\u{FB1D}",
        "\u{FDD0}",
        "\u{FDEF}",
        "\u{FE0F}",
        "\u{FE20}",
        "\u{FE52}",
        "\u{FEFF}",
        "\u{FF02}",
        "\u{FF0C}",
        "\u{FF0E}",
        "\u{FF1A}",
        "\u{FF40}",
        "\u{FF5C}",
        "\u{2105}",
        "\u{2474}",
        "\u{2A74}",
        "\u{3231}",
        "\u{33C2}",
        "\u{FE30}",
        "\u{FE5B}",
        "\u{FF06}",
        "\u{FF3B}",
        "\u{1F110}",
        "\u{FF9E}",
        "\u{FF9F}",
        "\u{FFFE}",
        "\u{FFFF}",
        "\u{1D15E}",
        "\u{1F3FD}",
        "\u{1FFFE}",
        "\u{1FFFF}",
        "\u{2F800}",
        "\u{E0001}",
        "\u{E0067}",
        "\u{E0100}",
        "\u{10FFFF}",
        "é",
        "e\u{301}\u{301}\u{301}\u{301}",
        "ｶ\u{FF9E}\u{FF9E}\u{FF9E}\u{FF9E}",
        "Ξ",
        "я",
        "中",
        "の",
        "한",
        "😀",
        "👩\u{200D}💻",
        "🇫🇷",
        "❤\u{FE0F}",
        "ア",
        "。",
        "/../",
        "%2e%2E/",
        "\u{FF0E}\u{FF0E}/",
    ]);
    let piece = prop_oneof![
        4 => special.prop_map(|s| s.as_bytes().to_vec()),
        2 => "[a-z ]{0,70}".prop_map(String::into_bytes),
        1 => any::<char>().prop_map(|c| c.to_string().into_bytes()),
        1 => proptest::collection::vec(any::<u8>(), 0..4),
        1 => Just(vec![0xC0, 0xAE, 0xED, 0xA0, 0xBD, 0xF0, 0x9F]),
    ];
    proptest::collection::vec(piece, 0..48).prop_map(|p| p.concat())
}

fn options(best_fit: bool, max_nonstarters: usize) -> CheckOptions {
    CheckOptions {
        lookalikes: if best_fit {
            lookalike::Table::BestFit
        } else {
            lookalike::Table::Default
        },
        max_nonstarters,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// The checks with the classifier (the clean-ASCII shortcut, segments) find exactly what
    /// every check over every whole valid run finds, in the same order.
    #[test]
    fn segmented_checks_find_what_the_per_check_path_finds(
        bytes in adversarial(),
        part in prop::sample::select(PARTS.to_vec()),
        at_body_start in any::<bool>(),
        best_fit in any::<bool>(),
        max_nonstarters in prop::sample::select(vec![1usize, 2, 3, 4, 30]),
    ) {
        let options = options(best_fit, max_nonstarters);
        let reference = run::check_any_field_per_check(part, &bytes, at_body_start, &options);
        let mut segmented = crate::decide::found::Found::unbounded();
        run::check_any_field(part, &bytes, at_body_start, &options, &mut segmented);
        prop_assert_eq!(&segmented, &reference);
        prop_assert_eq!(
            &crate::checks::found_in(part, &bytes, at_body_start, &options),
            &reference
        );
    }

    /// The dispatched classifier finds what the portable one finds in valid UTF-8 (what it is
    /// given), from any char boundary; the AVX2 build does on any bytes.
    #[test]
    fn first_candidate_matches_the_portable_scan(
        bytes in adversarial(),
        from in 0usize..200,
        cx in prop::sample::select(CONTEXTS.to_vec()),
    ) {
        let text = String::from_utf8_lossy(&bytes);
        let mut at = from.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        prop_assert_eq!(
            first_candidate(text.as_bytes(), at, cx),
            first_candidate_portable(text.as_bytes(), at, cx)
        );
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            let from = from.min(bytes.len());
            // SAFETY: AVX2 was detected just above.
            let wide = unsafe { avx2::first_candidate(&bytes, from, cx) };
            prop_assert_eq!(wide, first_candidate_portable(&bytes, from, cx));
        }
        let ascii = bytes.iter().all(|&b| b < 0x80 && !coarse(b, cx));
        prop_assert_eq!(is_clean_ascii(&bytes, cx), ascii);
    }
}
