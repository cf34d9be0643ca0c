//! Characters whose NFC, NFKC or Windows best-fit image is ASCII syntax.
//!
//! The default table holds the characters that fold into path, quoting and command syntax and
//! almost never occur in ordinary text; the best-fit table adds what Windows "best fit" code
//! page conversion turns into ASCII (WorstFit; CVE-2024-4577's soft hyphen), including common
//! punctuation such as U+2019, which is why only the `windows-backend` profile uses it.

use serde::{Deserialize, Serialize};

use crate::finding::{FindingKind, Fix, RawFinding};
use crate::found::Report;

/// Which lookalikes to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Table {
    /// Path, quoting and command syntax lookalikes that ordinary text does not use.
    Default,
    /// The default table plus Windows best-fit mappings of common punctuation.
    BestFit,
}

/// (character, ASCII image, how it gets there), sorted by character.
const DEFAULT: &[(char, &str, &str)] = &[
    ('\u{00A5}', "\\", "best fit (code page 932)"),
    ('\u{00AD}', "-", "best fit"),
    ('\u{02BA}', "\"", "best fit"),
    ('\u{037E}', ";", "NFC"),
    ('\u{1FEF}', "`", "NFC"),
    ('\u{2010}', "-", "best fit"),
    ('\u{2011}', "-", "best fit"),
    ('\u{2024}', ".", "NFKC"),
    ('\u{2025}', "..", "NFKC"),
    ('\u{2044}', "/", "best fit"),
    ('\u{20A9}', "\\", "best fit (code page 949)"),
    ('\u{2212}', "-", "best fit"),
    ('\u{2215}', "/", "best fit"),
    ('\u{2216}', "\\", "best fit"),
    ('\u{FE52}', ".", "NFKC"),
    ('\u{FE63}', "-", "NFKC"),
    ('\u{FE64}', "<", "NFKC"),
    ('\u{FE65}', ">", "NFKC"),
    ('\u{FE68}', "\\", "NFKC"),
    ('\u{FF02}', "\"", "NFKC"),
    ('\u{FF07}', "'", "NFKC"),
    ('\u{FF0D}', "-", "NFKC"),
    ('\u{FF0E}', ".", "NFKC"),
    ('\u{FF0F}', "/", "NFKC"),
    ('\u{FF1C}', "<", "NFKC"),
    ('\u{FF1E}', ">", "NFKC"),
    ('\u{FF3C}', "\\", "NFKC"),
    ('\u{FF40}', "`", "NFKC"),
    ('\u{FF5C}', "|", "NFKC"),
];

/// Added by [`Table::BestFit`], sorted by character.
const BEST_FIT: &[(char, &str, &str)] = &[
    ('\u{00AB}', "\"", "best fit"),
    ('\u{00BB}', "\"", "best fit"),
    ('\u{2018}', "'", "best fit"),
    ('\u{2019}', "'", "best fit"),
    ('\u{201A}', "'", "best fit"),
    ('\u{201B}', "'", "best fit"),
    ('\u{201C}', "\"", "best fit"),
    ('\u{201D}', "\"", "best fit"),
    ('\u{201E}', "\"", "best fit"),
    ('\u{2026}', "...", "NFKC"),
    ('\u{2032}', "'", "best fit"),
    ('\u{2033}', "\"", "best fit"),
    ('\u{2039}', "<", "best fit"),
    ('\u{203A}', ">", "best fit"),
    ('\u{FF03}', "#", "NFKC"),
    ('\u{FF05}', "%", "NFKC"),
    ('\u{FF06}', "&", "NFKC"),
    ('\u{FF0C}', ",", "NFKC"),
    ('\u{FF1A}', ":", "NFKC"),
    ('\u{FF1B}', ";", "NFKC"),
    ('\u{FF1D}', "=", "NFKC"),
    ('\u{FF1F}', "?", "NFKC"),
];

fn find(
    table: &[(char, &'static str, &'static str)],
    c: char,
) -> Option<(&'static str, &'static str)> {
    table
        .binary_search_by(|(k, _, _)| k.cmp(&c))
        .ok()
        .map(|i| (table[i].1, table[i].2))
}

/// The ASCII image of `c` and how it gets there, if `c` is a lookalike in `table`.
pub(crate) fn image(table: Table, c: char) -> Option<(&'static str, &'static str)> {
    if c.is_ascii() {
        return None;
    }
    find(DEFAULT, c).or_else(|| match table {
        Table::BestFit => find(BEST_FIT, c),
        Table::Default => None,
    })
}

/// `true` if the byte may start a lookalike of either table.
#[inline(always)]
pub(crate) fn may_start(b: u8) -> bool {
    (b == 0xC2) | (b == 0xCA) | (b == 0xCD) | (b == 0xE1) | (b == 0xE2) | (b == 0xEF)
}

/// The first lookalike of `text` whose image holds path syntax ('.', '/' or '\\'), with its
/// offset. Only characters whose lead byte can start a lookalike are looked up.
#[cfg(test)]
pub(crate) fn first_path_syntax(table: Table, text: &str) -> Option<(usize, char)> {
    let mut first = None;
    super::bytes::for_each_flagged(text.as_bytes(), may_start, |at| {
        if first.is_some() {
            return;
        }
        if let Some(c) = super::bytes::char_at(text, at)
            && image(table, c).is_some_and(|(ascii, _)| ascii.contains(['.', '/', '\\']))
        {
            first = Some((at, c));
        }
    });
    first
}

/// Folds every lookalike of `text` into its ASCII image.
pub(crate) fn fold(table: Table, text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match image(table, c) {
            Some((ascii, _)) => out.push_str(ascii),
            None => out.push(c),
        }
    }
    out
}

/// Reports the lookalike that byte `at` of a valid run (at field offset `offset`) starts, if it
/// starts one; `at` must be a byte [`may_start`] accepts. Keeps in `path_syntax` the first
/// one whose image holds path syntax ('.', '/' or '\\'), with its field offset, for the
/// traversal check.
#[inline(always)]
pub(crate) fn visit(
    table: Table,
    offset: usize,
    text: &str,
    at: usize,
    out: &mut impl Report,
    path_syntax: &mut Option<(usize, char)>,
) {
    let Some(c) = super::bytes::char_at(text, at) else {
        return;
    };
    let Some((ascii, how)) = image(table, c) else {
        return;
    };
    let o = offset + at;
    if path_syntax.is_none() && ascii.contains(['.', '/', '\\']) {
        *path_syntax = Some((o, c));
    }
    let len = c.len_utf8();
    let fix = Fix::Char(o..o + len);
    out.report(FindingKind::Lookalike, o, len, fix.clone(), || {
        let scalar = utf8gate_codec::format_scalar(u32::from(c));
        RawFinding::new(
            FindingKind::Lookalike,
            o,
            &text.as_bytes()[at..at + len],
            fix,
            ascii
                .chars()
                .next()
                .map(|a| utf8gate_codec::format_scalar(u32::from(a))),
            format!("{scalar} becomes {ascii:?} under {how}"),
        )
    });
}

/// Reports every lookalike in a valid run starting at field offset `offset` (the field checks
/// do this together with the other character checks, see `super::run`).
#[cfg(test)]
pub(crate) fn scan(
    table: Table,
    offset: usize,
    text: &str,
    out: &mut impl Report,
) -> Option<(usize, char)> {
    let mut path_syntax = None;
    super::bytes::for_each_flagged(text.as_bytes(), may_start, |at| {
        visit(table, offset, text, at, out, &mut path_syntax)
    });
    path_syntax
}

#[cfg(test)]
mod tests {
    use super::*;
    use unicode_normalization::UnicodeNormalization;

    #[test]
    fn tables_are_sorted_disjoint_and_reachable_by_the_prefilter() {
        for table in [DEFAULT, BEST_FIT] {
            assert!(table.windows(2).all(|w| w[0].0 < w[1].0));
            for (c, ascii, _) in table {
                assert!(ascii.is_ascii() && !ascii.is_empty());
                let mut buf = [0; 4];
                assert!(may_start(c.encode_utf8(&mut buf).as_bytes()[0]), "{c:?}");
            }
        }
        assert!(DEFAULT.iter().all(|(c, ..)| find(BEST_FIT, *c).is_none()));
    }

    #[test]
    fn nfc_and_nfkc_claims_hold() {
        for (c, ascii, how) in DEFAULT.iter().chain(BEST_FIT) {
            let s = c.to_string();
            match *how {
                "NFC" => assert_eq!(s.nfc().collect::<String>(), *ascii, "{c:?}"),
                "NFKC" => assert_eq!(s.nfkc().collect::<String>(), *ascii, "{c:?}"),
                _ => {}
            }
        }
    }

    #[test]
    fn ordinary_text_is_not_a_lookalike_by_default() {
        for text in [
            "你好，世界：今天。",
            "½ … «quoted» l’été",
            "Ölçü ¿qué? ¡sí!",
        ] {
            let mut out = Vec::new();
            scan(Table::Default, 0, text, &mut out);
            assert!(out.is_empty(), "{text}: {out:?}");
        }
        let mut out = Vec::new();
        scan(Table::BestFit, 0, "l’été", &mut out);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn folds_fullwidth_traversal() {
        assert_eq!(
            fold(Table::Default, "a/\u{FF0E}\u{FF0E}\u{FF0F}b"),
            "a/../b"
        );
    }
}
