//! Characters whose NFC, NFKC or Windows best-fit image is ASCII syntax.
//!
//! **Derived, not listed.** The NFC and NFKC lookalikes are generated ([`table`], written by
//! `scripts/gen_lookalikes.py` from Python's `unicodedata`): every code point whose NFKC form
//! differs from itself and holds a character of the syntax set below, with its whole NFKC image
//! (U+2474 `⑴` is `"(1)"`, U+33C2 `㏂` is `"a.m."`: they do become syntax after NFKC, so they are
//! listed). A test compares the table with `python3` over every code point. Only the Windows
//! best-fit mappings ([`BEST_FIT_MAPPINGS`]), which no Unicode data holds, are kept by hand.
//!
//! **Syntax set.** Path `. / \ :`, markup and quoting `< > " ' &`, URL `% ? # &`, shell
//! `$ ( ) | ; & < >` and the backtick (`` ` ``), templates `{ } [ ]`, SQL `' ;` and `-`
//! (comments, option injection), and `= ,` (query pairs, header lists; the hand-kept table
//! this replaces had their full-width forms). Not syntax here: `! * + @ ~ ^`: none of them
//! splits a path, query, header or markup by itself (`@` matters in a URL's authority, which
//! no checked location holds), and their full-width forms (！＊＋～) are everyday CJK
//! punctuation; spaces and `_` neither.
//!
//! **Tiers.** Each lookalike is reported by the default table or only by the best-fit one:
//!
//! * default: what NFC alone makes (every normalizing backend does), an image that is a
//!   dot-segment by itself (`.`, `..`), and any image holding *strong* syntax
//!   `/ \ < > ' " & [ ] { } | $ % # -` or a backtick: ordinary text has no reason to write these
//!   in full width, small or vertical form, so `＆`, `［`, `﹛`, `︰` and `℅` (`c/o`) are reported;
//! * best fit only: images whose syntax is only *prose* punctuation `. , : ; ? ( ) =`, which
//!   Chinese and Japanese text writes in full width all the time (`，：；？（）`), dot runs that
//!   are no dot-segment (`…`, `⒈`, `㏂`) and parenthesized forms (`⑴`, `㈱`): with the Windows
//!   best-fit punctuation, for the `windows-backend` profile.
//!
//! Full-width letters and digits (`Ａ`, `１`) hold no syntax, and CJK punctuation that NFKC
//! leaves as itself (`、。「」`) does not change: neither is a lookalike. The traversal check
//! folds lookalikes (of the profile's table) and counts only `.`, `/` and `\` in the result.
//!
//! Most text never reaches a lookup: the classifier (`super::clean`) and [`may_start`] pass
//! over every character whose lead byte starts no lookalike, and [`image`] is two table loads
//! (a two-level trie over 64-code-point blocks), no search.

use serde::{Deserialize, Serialize};

use crate::decide::found::Report;
use crate::finding::{FindingKind, Fix, RawFinding};

mod table;
#[cfg(test)]
mod tests;

use table::Tier;

/// Which lookalikes to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Table {
    /// Lookalikes of strong syntax (path, quoting, markup, shell, template) that ordinary text
    /// does not use, and what NFC alone makes.
    Default,
    /// The default table plus lookalikes of prose punctuation and the Windows best-fit
    /// mappings of common punctuation.
    BestFit,
}

/// One lookalike: (character, image, how it gets there, smallest table reporting it).
type Entry = (char, &'static str, &'static str, Tier);

/// Windows "best fit" code page conversion to ASCII (WorstFit, 2024: CVE-2024-4577's soft
/// hyphen; code pages 932 and 949 for the yen and won signs; the rest from the best-fit tables
/// of code page 1252), which no Unicode data holds: kept by hand, sorted by character. Common
/// punctuation (quotes, guillemets, primes) is reported by the best-fit table only.
const BEST_FIT_MAPPINGS: &[Entry] = &[
    ('\u{00A5}', "\\", "best fit (code page 932)", Tier::Default),
    ('\u{00AB}', "\"", "best fit", Tier::BestFit),
    ('\u{00AD}', "-", "best fit", Tier::Default),
    ('\u{00BB}', "\"", "best fit", Tier::BestFit),
    ('\u{02BA}', "\"", "best fit", Tier::Default),
    ('\u{2010}', "-", "best fit", Tier::Default),
    ('\u{2011}', "-", "best fit", Tier::Default),
    ('\u{2018}', "'", "best fit", Tier::BestFit),
    ('\u{2019}', "'", "best fit", Tier::BestFit),
    ('\u{201A}', "'", "best fit", Tier::BestFit),
    ('\u{201B}', "'", "best fit", Tier::BestFit),
    ('\u{201C}', "\"", "best fit", Tier::BestFit),
    ('\u{201D}', "\"", "best fit", Tier::BestFit),
    ('\u{201E}', "\"", "best fit", Tier::BestFit),
    ('\u{2032}', "'", "best fit", Tier::BestFit),
    ('\u{2033}', "\"", "best fit", Tier::BestFit),
    ('\u{2039}', "<", "best fit", Tier::BestFit),
    ('\u{203A}', ">", "best fit", Tier::BestFit),
    ('\u{2044}', "/", "best fit", Tier::Default),
    ('\u{20A9}', "\\", "best fit (code page 949)", Tier::Default),
    ('\u{2212}', "-", "best fit", Tier::Default),
    ('\u{2215}', "/", "best fit", Tier::Default),
    ('\u{2216}', "\\", "best fit", Tier::Default),
];

/// Every lookalike: the derived ones and the best-fit mappings merged, sorted by character.
const MERGED: [Entry; table::DERIVED.len() + BEST_FIT_MAPPINGS.len()] =
    merge(table::DERIVED, BEST_FIT_MAPPINGS);

/// [`MERGED`], once in memory.
static ALL: [Entry; MERGED.len()] = MERGED;

/// `a` and `b` (each sorted) merged into one sorted array; a shared character fails the build.
const fn merge<const N: usize>(a: &[Entry], b: &[Entry]) -> [Entry; N] {
    let mut out = [('\0', "", "", Tier::Default); N];
    let (mut i, mut j) = (0, 0);
    while i + j < N {
        let take_a = j == b.len() || (i < a.len() && (a[i].0 as u32) < (b[j].0 as u32));
        if i < a.len() && j < b.len() {
            assert!(a[i].0 as u32 != b[j].0 as u32, "a lookalike listed twice");
        }
        if take_a {
            out[i + j] = a[i];
            i += 1;
        } else {
            out[i + j] = b[j];
            j += 1;
        }
    }
    out
}

/// Code points below this are looked up by block; none above is a lookalike.
const BLOCKS_END: u32 = 0x2_0000;

/// Code points per block: `1 << BLOCK_BITS`.
const BLOCK_BITS: u32 = 6;

/// Blocks below [`BLOCKS_END`].
const BLOCKS: usize = (BLOCKS_END >> BLOCK_BITS) as usize;

/// Blocks that hold a lookalike.
const LEAVES: usize = leaf_count(&MERGED);

/// A two-level lookup of [`ALL`]: `leaf[block]` is the leaf of a block (0, all empty, when it
/// holds no lookalike; at most 255 leaves), and `slots[leaf][cp % 64]` one more than the index
/// of `cp` in [`ALL`] (0 when it is no lookalike). About 5 KiB; two loads per character.
struct Trie {
    leaf: [u8; BLOCKS],
    slots: [[u16; 1 << BLOCK_BITS]; LEAVES + 1],
}

static TRIE: Trie = trie(&MERGED);

const fn leaf_count(all: &[Entry]) -> usize {
    let mut count = 0;
    let mut k = 0;
    while k < all.len() {
        let block = all[k].0 as u32 >> BLOCK_BITS;
        if k == 0 || block != all[k - 1].0 as u32 >> BLOCK_BITS {
            count += 1;
        }
        k += 1;
    }
    count
}

const fn trie(all: &[Entry]) -> Trie {
    let mut t = Trie {
        leaf: [0; BLOCKS],
        slots: [[0; 1 << BLOCK_BITS]; LEAVES + 1],
    };
    assert!(LEAVES < 256 && all.len() < u16::MAX as usize);
    let mut leaves = 0;
    let mut k = 0;
    while k < all.len() {
        let cp = all[k].0 as u32;
        assert!(cp < BLOCKS_END, "a lookalike above BLOCKS_END");
        let block = (cp >> BLOCK_BITS) as usize;
        if t.leaf[block] == 0 {
            leaves += 1;
            t.leaf[block] = leaves as u8;
        }
        t.slots[t.leaf[block] as usize][(cp & ((1 << BLOCK_BITS) - 1)) as usize] = k as u16 + 1;
        k += 1;
    }
    t
}

/// The image of `c` (ASCII syntax, perhaps with letters or digits: `"(1)"`, `"(株)"`) and how
/// it gets there, if `c` is a lookalike in `table`.
#[inline]
pub(crate) fn image(table: Table, c: char) -> Option<(&'static str, &'static str)> {
    let cp = u32::from(c);
    if cp >= BLOCKS_END {
        return None;
    }
    let leaf = TRIE.leaf[(cp >> BLOCK_BITS) as usize];
    let slot = TRIE.slots[usize::from(leaf)][(cp & ((1 << BLOCK_BITS) - 1)) as usize];
    let (_, ascii, how, tier) = *ALL.get(usize::from(slot).checked_sub(1)?)?;
    (tier == Tier::Default || table == Table::BestFit).then_some((ascii, how))
}

/// The full-width lookalikes of `table` (`best_fit`: [`Table::BestFit`]) in U+FF00..U+FF7F
/// (`EF BC 80`..`EF BD BF`) by the low nibble of their third byte: bit `h - 8` for a high nibble
/// `h` (`8`..`B`). The classifier's full-width test (`super::clean`) reads it.
pub(crate) const fn full_width_lo(best_fit: bool) -> [u8; 16] {
    let mut lo = [0u8; 16];
    let lists: [&[Entry]; 2] = [table::DERIVED, BEST_FIT_MAPPINGS];
    let mut l = 0;
    while l < lists.len() {
        let mut k = 0;
        while k < lists[l].len() {
            let (c, _, _, tier) = lists[l][k];
            let cp = c as u32;
            if cp >= 0xFF00 && cp <= 0xFF7F && (best_fit || matches!(tier, Tier::Default)) {
                let b2 = 0x80 | (cp & 0x3F);
                lo[(b2 & 15) as usize] |= 1 << ((b2 >> 4) - 8);
            }
            k += 1;
        }
        l += 1;
    }
    lo
}

/// `true` if the byte may start a lookalike of `table` (`best_fit`: [`Table::BestFit`]): `C2`,
/// `CA`, `CD`, `E1`, `E2`, `EF`, and with best fit `E3` and `F0`, as two range tests so that
/// the best-fit leads cost nothing more.
#[inline(always)]
pub(crate) fn may_start(b: u8, best_fit: bool) -> bool {
    let more = u8::from(best_fit);
    (b == 0xC2)
        | (b == 0xCA)
        | (b == 0xCD)
        | (b.wrapping_sub(0xE1) <= 1 + more)
        | (b.wrapping_sub(0xEF) <= more)
}

/// Whether `image` holds path syntax ('.', '/' or '\\'), the only images the traversal check
/// counts.
#[inline]
fn has_path_syntax(image: &str) -> bool {
    image.contains(['.', '/', '\\'])
}

/// The first syntax character of an image (`(` of `"(1)"`), the ASCII a lookalike becomes.
fn first_syntax(image: &str) -> Option<char> {
    image.chars().find(|&a| table::SYNTAX.contains(a))
}

/// The first lookalike of `text` whose image holds path syntax ('.', '/' or '\\'), with its
/// offset. Only characters whose lead byte can start a lookalike are looked up.
#[cfg(test)]
pub(crate) fn first_path_syntax(table: Table, text: &str) -> Option<(usize, char)> {
    let mut first = None;
    let best_fit = table == Table::BestFit;
    super::bytes::for_each_flagged(
        text.as_bytes(),
        |b| may_start(b, best_fit),
        |at| {
            if first.is_some() {
                return;
            }
            if let Some(c) = super::bytes::char_at(text, at)
                && image(table, c).is_some_and(|(ascii, _)| has_path_syntax(ascii))
            {
                first = Some((at, c));
            }
        },
    );
    first
}

/// Folds every lookalike of `text` into its image.
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
    if path_syntax.is_none() && has_path_syntax(ascii) {
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
            first_syntax(ascii).map(|a| utf8gate_codec::format_scalar(u32::from(a))),
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
    let best_fit = table == Table::BestFit;
    super::bytes::for_each_flagged(
        text.as_bytes(),
        |b| may_start(b, best_fit),
        |at| visit(table, offset, text, at, out, &mut path_syntax),
    );
    path_syntax
}
