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
