//! Tests of the NFC check: NormalizationTest.txt and unicode-normalization as oracles, every
//! scalar in and around the scan's blocks. The tables are tested in `tests/tables.rs`, the
//! Stream-Safe run counting in `tests/stream_safe.rs`.

use super::*;

use proptest::prelude::*;

mod stream_safe;
mod tables;

/// Every scalar value.
fn scalars() -> impl Iterator<Item = char> {
    (0..=0x10_FFFFu32).filter_map(char::from_u32)
}

/// The oracle: NFC by `unicode-normalization`, character by character.
fn oracle_nfc(s: &str) -> String {
    s.nfc().collect()
}

/// Checks `nfc_status` and `to_nfc` on `s` against the oracle.
fn check_against_oracle(s: &str) {
    let expected = oracle_nfc(s);
    let status = nfc_status(s);
    let normalized = to_nfc(s);
    assert_eq!(normalized, expected, "to_nfc({s:?})");
    assert_eq!(
        matches!(normalized, Cow::Borrowed(_)),
        expected == s,
        "to_nfc({s:?}) borrows exactly when already NFC"
    );
    if expected == s {
        assert_eq!(status, NfcStatus::Nfc, "nfc_status({s:?})");
    } else {
        let NfcStatus::NotNfc { offset } = status else {
            panic!("nfc_status({s:?}) is Nfc but NFC is {expected:?}");
        };
        let first_diff = s
            .bytes()
            .zip(expected.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(s.len().min(expected.len()));
        assert!(s.is_char_boundary(offset), "{s:?}: offset {offset}");
        assert!(
            offset <= first_diff,
            "{s:?}: offset {offset} is past the first difference {first_diff}"
        );
        assert!(offset < s.len(), "{s:?}: offset {offset}");
    }
}

/// The parsed lines and the Part 1 characters of NormalizationTest.txt.
struct NormalizationTest {
    /// `(line number, [c1, c2, c3, c4, c5])`.
    lines: Vec<(usize, [String; 5])>,
    /// The characters listed in Part 1.
    part1: std::collections::BTreeSet<char>,
}

/// Reads `tests/data/NormalizationTest.txt` (Unicode 18).
fn normalization_test() -> NormalizationTest {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/NormalizationTest.txt"
    );
    let data = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut lines = Vec::new();
    let mut part1 = std::collections::BTreeSet::new();
    let mut part = "";
    for (n, line) in data.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if let Some(name) = line.strip_prefix('@') {
            part = if name.starts_with("Part1") {
                "Part1"
            } else {
                "other"
            };
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let columns: Vec<String> = line
            .split(';')
            .take(5)
            .map(|col| {
                col.split_whitespace()
                    .map(|hex| {
                        let cp = u32::from_str_radix(hex, 16).expect("hex code point");
                        char::from_u32(cp).expect("scalar value")
                    })
                    .collect()
            })
            .collect();
        let columns: [String; 5] = columns.try_into().expect("five columns");
        if part == "Part1" {
            let mut chars = columns[0].chars();
            part1.insert(chars.next().expect("one character"));
            assert!(chars.next().is_none(), "Part 1 lists single characters");
        }
        lines.push((n + 1, columns));
    }
    assert!(lines.len() > 19_000, "{} lines", lines.len());
    assert!(part1.len() > 10_000, "{} Part 1 characters", part1.len());
    NormalizationTest { lines, part1 }
}

/// Every line of NormalizationTest.txt: the NFC invariants, and `nfc_status` agrees with
/// `to_nfc` on every column.
#[test]
fn normalization_test_lines() {
    let test = normalization_test();
    for (n, [c1, c2, c3, c4, c5]) in &test.lines {
        for (source, nfc) in [(c1, c2), (c2, c2), (c3, c2), (c4, c4), (c5, c4)] {
            assert_eq!(to_nfc(source), nfc.as_str(), "line {n}: NFC({source:?})");
        }
        for column in [c1, c2, c3, c4, c5] {
            let is_nfc = to_nfc(column) == column.as_str();
            assert_eq!(
                nfc_status(column) == NfcStatus::Nfc,
                is_nfc,
                "line {n}: nfc_status({column:?})"
            );
            check_against_oracle(column);
        }
    }
}

/// Part 1 characters agree with the oracle; every other scalar (assigned or not) is its own
/// NFC (NormalizationTest.txt, conformance 2), so `nfc_status` is `Nfc` and `to_nfc` borrows.
#[test]
fn every_scalar_alone() {
    let test = normalization_test();
    for c in scalars() {
        let s = c.to_string();
        if test.part1.contains(&c) {
            check_against_oracle(&s);
        } else {
            assert_eq!(nfc_status(&s), NfcStatus::Nfc, "{c:?}");
            assert!(matches!(to_nfc(&s), Cow::Borrowed(_)), "{c:?}");
            assert!(s.nfc().eq(s.chars()), "oracle disagrees on {c:?}");
        }
    }
}

/// Every scalar between two contexts that interact with it: after a starter that
/// composes with marks, before a combining mark, and after ASCII that puts it at the end of a
/// 32-byte chunk.
#[test]
fn every_scalar_in_context() {
    for c in scalars() {
        let mut s = String::from("e");
        s.push(c);
        s.push('\u{301}');
        check_against_oracle(&s);
        let mut s = "x".repeat(31);
        s.push(c);
        s.push('\u{327}');
        check_against_oracle(&s);
    }
}

/// Non-NFC sequences placed at every offset around the 32-byte chunk edges.
#[test]
fn chunk_edges() {
    let cases = [
        "e\u{301}",
        "\u{301}",
        "\u{1100}\u{1161}",
        "\u{AC00}\u{11A8}",
        "\u{304B}\u{3099}",
        "\u{F900}",
        "a\u{323}\u{307}",
        "\u{1E0A}\u{323}",
        "\u{212B}",
        "\u{2000}",
        "\u{1D15E}",
        "\u{2F800}",
        "\u{0915}\u{093C}",
    ];
    for case in cases {
        for pad in 0..200 {
            for filler in [
                "x",
                "é",
                "д",
                "中",
                "😀",
                "ア",
                "。",
                "👩\u{200D}💻",
                "❤\u{FE0F}",
            ] {
                let mut s = filler.repeat(pad / filler.len());
                s.push_str(&"y".repeat(pad % filler.len()));
                s.push_str(case);
                s.push_str(&"z".repeat(pad % 7));
                check_against_oracle(&s);
            }
        }
    }
}

/// A defect after runs of low bytes of every length, across the four-block skip.
#[test]
fn low_runs() {
    for n in 0..700 {
        for low in ["x".repeat(n), "é".repeat(n / 2) + &"x".repeat(n % 2)] {
            for defect in ["\u{301}", "\u{F900}", "\u{1D15E}", "\u{212B}"] {
                check_against_oracle(&format!("{low}{defect}{}", "x".repeat(n % 7)));
            }
            assert_eq!(nfc_status(&low), NfcStatus::Nfc);
        }
    }
}

/// Long dense text (which the scan checks with its costlier filter) with one defect at many
/// places, and clean.
#[test]
fn long_text_one_defect() {
    let bases = [
        "テキストの東京。ひらがな，カタカナ：".repeat(120),
        "👍🏽👩\u{200D}💻🇫🇷❤\u{FE0F}✨".repeat(120),
        "{\"t\":\"привет 東京 ✨ déjà\"}\n".repeat(120),
    ];
    for base in &bases {
        assert_eq!(nfc_status(base), NfcStatus::Nfc);
        let boundaries: Vec<usize> = base.char_indices().map(|(i, _)| i).collect();
        for &at in boundaries.iter().step_by(boundaries.len() / 97) {
            for defect in ["e\u{301}", "\u{309A}", "\u{F900}", "\u{2000}", "\u{FE20}"] {
                let s = format!("{}{defect}{}", &base[..at], &base[at..]);
                check_against_oracle(&s);
            }
        }
    }
}

/// Offsets in a few known cases.
#[test]
fn offsets() {
    assert_eq!(nfc_status(""), NfcStatus::Nfc);
    assert_eq!(
        nfc_status("déjà vu, Straße, 東京, привет, 😀"),
        NfcStatus::Nfc
    );
    assert_eq!(nfc_status("cafe\u{301}"), NfcStatus::NotNfc { offset: 3 });
    assert_eq!(nfc_status("\u{301}e"), NfcStatus::Nfc);
    assert_eq!(nfc_status("ab\u{212B}"), NfcStatus::NotNfc { offset: 2 });
    // Ḋ + dot below: the composite itself changes (to Ḍ + dot above).
    assert_eq!(
        nfc_status("x\u{1E0A}\u{323}"),
        NfcStatus::NotNfc { offset: 1 }
    );
    // Marks out of canonical order: the first mark is where the text differs.
    assert_eq!(
        nfc_status("q\u{301}\u{323}"),
        NfcStatus::NotNfc { offset: 1 }
    );
    assert_eq!(to_nfc("cafe\u{301}!"), "café!");
    assert!(matches!(to_nfc("café"), Cow::Borrowed("café")));
}

/// A strategy for text that exercises normalization: ASCII, Latin, combining marks, Hangul
/// jamo and syllables, CJK, kana with voicing marks, emoji and compatibility ideographs.
fn interesting_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[a-zA-Z0-9 ]{1,40}",
        2 => "[àéïôûçÅåñøß]{1,4}",
        3 => "[\u{300}-\u{36F}]",
        1 => "[\u{1AB0}-\u{1AFF}]",
        1 => "[\u{20D0}-\u{20FF}]",
        1 => "[\u{591}-\u{5C7}]",
        2 => "[\u{1100}-\u{11FF}]",
        2 => "[\u{AC00}-\u{AC40}\u{D7A0}-\u{D7FF}]",
        2 => "[\u{4E00}-\u{4E40}]{1,3}",
        2 => "[\u{3040}-\u{30FF}]",
        2 => "[\u{3099}\u{309A}]",
        1 => "[\u{1F600}-\u{1F64F}\u{1F3FB}-\u{1F3FF}\u{200D}\u{FE0F}]",
        1 => "[\u{F900}-\u{FAFF}\u{2F800}-\u{2F810}]",
        1 => "[\u{0900}-\u{097F}\u{0E00}-\u{0E7F}\u{0F70}-\u{0F80}]",
        1 => "[\u{1E00}-\u{1EFF}\u{1F00}-\u{1FFF}\u{2000}-\u{2130}]",
        1 => "[\u{0400}-\u{04FF}]{1,5}",
        1 => any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// `nfc_status` and `to_nfc` agree with `unicode-normalization` on mixed text.
    #[test]
    fn agrees_with_unicode_normalization(s in interesting_text()) {
        check_against_oracle(&s);
    }
}

/// The first character at or after `from` that is not inert, one character at a time.
fn naive_not_inert(s: &str, from: usize) -> Option<usize> {
    s[from..]
        .char_indices()
        .find(|&(_, c)| nfc_tables().is_not_inert(u32::from(c)))
        .map(|(k, _)| from + k)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// A finder resumed at rising offsets, as the scans resume it (from an answer, from past
    /// it, from before it within its block), answers as a character-by-character search, with
    /// each pair of filters.
    #[test]
    fn a_resumed_finder_answers_as_a_naive_search(
        s in interesting_text(),
        cuts in prop::collection::vec(0usize..4000, 0..16),
    ) {
        let (bytes, tables) = (s.as_bytes(), nfc_tables());
        let mut offsets: Vec<usize> = cuts
            .into_iter()
            .map(|c| c % (s.len() + 1))
            .filter(|&c| s.is_char_boundary(c))
            .collect();
        offsets.sort_unstable();
        offsets.push(s.len());
        let mut dense = Finder::default();
        let (mut leads, mut plain) = (Finder::default(), Finder::default());
        for pair in offsets.windows(2) {
            let (from, next) = (pair[0], pair[1]);
            let expected = naive_not_inert(&s, from);
            prop_assert_eq!(dense.find::<LEADS, SEQUENCES, _>(bytes, from, tables), expected);
            prop_assert_eq!(leads.find::<LEADS, LEADS, _>(bytes, from, tables), expected);
            prop_assert_eq!(plain.find::<PLAIN, PLAIN, _>(bytes, from, tables), expected);
            // Again from the answer itself when the next offset is not before it.
            if let Some(at) = expected.filter(|&at| at <= next) {
                prop_assert_eq!(dense.find::<LEADS, SEQUENCES, _>(bytes, at, tables), Some(at));
            }
        }
    }
}

/// A run of non-starters past the stream-safe limit is normalized as its stream-safe form
/// (UAX #15 §13: `unicode-normalization`'s `stream_safe()` is the oracle), a piece at a time,
/// and read so by the check: the result is NFC and has no run past the limit.
#[test]
fn long_runs_of_non_starters_are_normalized_as_their_stream_safe_form() {
    for marks in [
        "\u{301}",
        "\u{316}\u{301}",
        "\u{327}\u{301}\u{316}",
        "\u{301}\u{300}",
    ] {
        for n in [29, 30, 31, 61, 1000] {
            let text = format!("xa{}b e\u{301}", marks.repeat(n));
            let expected: String = text.stream_safe().nfc().collect();
            let normalized = to_nfc(&text);
            assert_eq!(normalized, expected, "{marks:?} x {n}");
            assert_eq!(nfc_status(&normalized), NfcStatus::Nfc, "{marks:?} x {n}");
            assert!(
                !matches!(nfc_status(&text), NfcStatus::Nfc),
                "{marks:?} x {n}"
            );
        }
    }
}
