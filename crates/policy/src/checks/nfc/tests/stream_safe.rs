//! Tests of the Stream-Safe run counting (UAX #15 §13): a naive count from each character's
//! NFKD as the oracle, known cases, chunk edges, and the shortcut for all-inert text.

use super::*;

/// Naive stream-safe count per UAX #15 §13, straight from the NFKD of each character, with
/// the same run reporting as `nonstarter_run_over`.
fn naive_nonstarter_run(s: &str, limit: usize) -> Option<(usize, usize, usize)> {
    let (mut start, mut end, mut count, mut over) = (0, 0, 0, false);
    for (i, c) in s.char_indices() {
        let mut nfkd = Vec::new();
        decompose_compatible(c, |d| nfkd.push(canonical_combining_class(d) != 0));
        let lead = nfkd.iter().take_while(|&&n| n).count();
        let trail = nfkd.iter().rev().take_while(|&&n| n).count();
        let i_end = i + c.len_utf8();
        if count + lead > limit {
            over = true;
        }
        if lead == nfkd.len() {
            if count == 0 {
                start = i;
            }
            count += lead;
            end = i_end;
        } else {
            if lead > 0 {
                if count == 0 {
                    start = i;
                }
                end = i_end;
            }
            if over {
                return Some((start, end - start, count + lead));
            }
            (start, end, count) = (i, i_end, trail);
        }
    }
    over.then_some((start, end - start, count))
}

/// The examples of the brief: 31 combining acutes after `a` are reported, 30 are not.
#[test]
fn nonstarter_runs() {
    let acutes = |n: usize| format!("xa{}b", "\u{301}".repeat(n));
    assert_eq!(nonstarter_run_over(&acutes(31), 30), Some((2, 62, 31)));
    assert_eq!(nonstarter_run_over(&acutes(30), 30), None);
    assert_eq!(
        nonstarter_run_over(&acutes(40)[..70], 30),
        Some((2, 68, 34))
    );
    // `À` brings one trailing non-starter of its own.
    let s = format!("\u{C0}{}", "\u{301}".repeat(30));
    assert_eq!(nonstarter_run_over(&s, 30), Some((0, 62, 31)));
    // U+FF9E is a starter whose NFKD is U+3099, a non-starter.
    let s = format!("\u{30AB}{}", "\u{FF9E}".repeat(31));
    assert_eq!(nonstarter_run_over(&s, 30), Some((3, 93, 31)));
    // U+0344 decomposes to two non-starters.
    let s = format!("a{}", "\u{344}".repeat(16));
    assert_eq!(nonstarter_run_over(&s, 30), Some((1, 32, 32)));
    assert_eq!(nonstarter_run_over("plain text, 東京", 0), None);
    assert_eq!(nonstarter_run_over("\u{C0}", 0), None);
    assert_eq!(nonstarter_run_over("\u{C0}b", 0), Some((0, 2, 1)));
    assert_eq!(nonstarter_run_over("", 0), None);
}

/// Runs of marks at every offset around the chunk edges, behind fillers of every script.
#[test]
fn nonstarter_runs_at_chunk_edges() {
    for filler in ["x", "é", "д", "中", "😀", "\u{C0}"] {
        for pad in 0..80 {
            for marks in [29, 30, 31, 32] {
                let s = format!(
                    "{}{}{}",
                    filler.repeat(pad / filler.len().max(1)),
                    "\u{316}".repeat(marks),
                    "k".repeat(pad % 5)
                );
                for limit in [0, 1, 2, 3, 4, 30] {
                    assert_eq!(
                        nonstarter_run_over(&s, limit),
                        naive_nonstarter_run(&s, limit),
                        "{s:?} limit {limit}"
                    );
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The shortcut of the checks: text whose characters are all inert and that
    /// `inert_text_is_stream_safe` accepts has no run over the limit.
    #[test]
    fn inert_text_shortcut_agrees_with_the_scan(
        s in interesting_text(),
        marks in proptest::sample::select(vec!["", "\u{FF9E}", "\u{FF9F}\u{FF9E}"]),
        count in 0usize..40,
    ) {
        let s = format!("{s}{}{s}", marks.repeat(count));
        for limit in [0, 1, 2, 3, 4, 5, 8, 30] {
            if nfc_scan(&s).1 && inert_text_is_stream_safe(&s, limit) {
                prop_assert_eq!(nonstarter_run_over(&s, limit), None, "limit {}", limit);
            }
        }
    }

    /// `nonstarter_run_over` agrees with the naive count, and with
    /// `unicode-normalization`'s `stream_safe()` at the UAX #15 limit of 30.
    #[test]
    fn nonstarter_runs_agree_with_naive(s in interesting_text(), marks in 0usize..40) {
        let s = format!("{s}{}{s}", "\u{301}".repeat(marks));
        for limit in [0, 1, 2, 3, 4, 5, 8, 30] {
            prop_assert_eq!(
                nonstarter_run_over(&s, limit),
                naive_nonstarter_run(&s, limit),
                "limit {}", limit
            );
        }
        let stream_safe: String = s.chars().stream_safe().collect();
        prop_assert_eq!(nonstarter_run_over(&s, 30).is_some(), stream_safe != s);
    }
}

/// Pieces of words: ASCII, letters of one to four bytes, and characters that add non-starters
/// (a combining acute; U+0344, two; U+FF9E, a starter whose NFKD is a non-starter; U+1FC1, two
/// trailing; U+0F73, two; `À`, one trailing; U+0CCB, a starter with trailing marks; U+094D, a
/// virama), and runs of marks, so that runs near every limit are common.
const PIECES: &[&str] = &[
    "a",
    "é",
    "д",
    "中",
    "😀",
    "\u{301}",
    "\u{344}",
    "\u{FF9E}",
    "\u{1FC1}",
    "\u{F73}",
    "\u{C0}",
    "\u{CCB}",
    "\u{94D}",
    "\u{301}\u{316}\u{301}\u{316}\u{301}\u{316}",
    "\u{344}\u{344}\u{344}",
];

/// The maximal stretches of bytes `0x80` and above of at least `min` bytes, byte by byte.
fn naive_high_stretches(bytes: &[u8], min: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, &b) in bytes.iter().chain([&0u8]).enumerate() {
        match (b >= 0x80, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                if i - s >= min {
                    out.push((s, i));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Words of marks and letters between ASCII, around the stretch a run over the limit needs:
    /// the count by stretches agrees with the naive count at every limit, and the stretches
    /// found are the naive ones.
    #[test]
    fn runs_in_words_agree_with_naive(
        words in prop::collection::vec(
            (prop::collection::vec(prop::sample::select(PIECES), 0..40), 0usize..3),
            0..12,
        ),
    ) {
        let s: String = words
            .iter()
            .map(|(pieces, gap)| format!("{}{}", pieces.concat(), " ".repeat(*gap)))
            .collect();
        for limit in [0, 1, 2, 3, 4, 8, 12, 13, 14, 15, 20, 29, 30, 31, 40] {
            prop_assert_eq!(
                nonstarter_run_over(&s, limit),
                naive_nonstarter_run(&s, limit),
                "limit {}", limit
            );
        }
        for min in [15, 16, 22, 23, 24, 28, 40, 64, 100] {
            let mut found = Vec::new();
            let mut from = 0;
            while let Some((start, end)) = long_high_stretch(s.as_bytes(), from, min) {
                found.push((start, end));
                from = end;
            }
            prop_assert_eq!(&found, &naive_high_stretches(s.as_bytes(), min), "min {}", min);
        }
    }
}

/// The stretch a run over the default limit needs is shorter than any that holds one: 31
/// acutes after `a` (62 bytes) are found, and the bound is the one the tables give.
#[test]
fn the_stretch_bound_follows_the_tables() {
    let tables = stream_safe_tables();
    assert_eq!(
        (tables.max_lead, tables.max_trail),
        (2, 3),
        "Unicode's counts changed"
    );
    assert_eq!(tables.stretch_for_a_run_over(30), Some(28));
    assert_eq!(tables.stretch_for_a_run_over(2), None);
    // Fourteen U+0344 (two non-starters each, 28 bytes) after `À` (one trailing): 29.
    let s = format!("x\u{C0}{} y", "\u{344}".repeat(14));
    assert_eq!(nonstarter_run_over(&s, 28), naive_nonstarter_run(&s, 28));
    assert!(nonstarter_run_over(&s, 28).is_some());
}
