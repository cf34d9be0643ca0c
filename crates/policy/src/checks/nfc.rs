//! Normalization Form C (UAX #15): whether valid UTF-8 text is already NFC, its NFC form, and
//! runs of non-starters longer than the Stream-Safe Text Format allows (UAX #15 §13).
//!
//! # Why the clean path is fast
//!
//! Call a character *inert* when it is `NFC_Quick_Check=Yes` and has canonical combining class 0.
//! Two facts make the check cheap:
//!
//! * Text made only of inert characters is NFC: the quick check of UAX #15 §9 answers Yes.
//! * An inert character is a normalization boundary. Its canonical decomposition starts with an
//!   inert starter (a test checks this for every scalar), which canonical reordering cannot move
//!   and which cannot compose with anything before it (characters that can be the second half of
//!   a composition are `NFC_QC=Maybe`). So the NFC of a text is the concatenation of the NFC of
//!   its pieces between inert characters.
//!
//! The scan therefore only looks for non-inert characters, 64 bytes at a time:
//!
//! 1. **Low bytes.** U+0000..U+02FF are all inert, and in UTF-8 they are exactly the characters
//!    whose bytes are all below `0xCC`. A block whose maximum byte is below `0xCC` is skipped
//!    (ASCII and most Latin text; runs of such blocks four at a time).
//! 2. **Filters.** In the other blocks a loop that LLVM vectorizes flags the lead bytes that may
//!    start a non-inert character: all from `0xCC` on except Cyrillic `D0`–`D1`, Han `E4`–`E9`
//!    and Hangul `EB`–`ED` ([`needs_lookup`]). When that flags many characters of a block (dense
//!    kana, emoji), a costlier filter that also reads the next two bytes clears the inert parts of
//!    CJK punctuation and kana, general punctuation and symbols, full-width forms and emoji
//!    ([`may_be_not_inert`]). When the tables are built, both filters are checked to flag every
//!    non-inert character; if one did not, the scan would do without it.
//! 3. **Table.** Each flagged character is looked up by its first two bytes in a table of 4096
//!    entries that points to a 64-bit mask tested with its third byte (a 4-byte character whose
//!    first two bytes also start a non-inert one takes a second lookup by code point). The
//!    tables are built once, lazily, from `unicode-normalization`'s own data: 12–25 ms in a
//!    release build for the NFC table, about as much for the stream-safe one.
//! 4. **Exact fallback.** Around a non-inert character, the *region* from the inert character
//!    before it to the next inert character is quick-checked on its own (a table of ccc and
//!    `NFC_QC`), and compared with its NFC when that says Maybe or No: the normalizer's step.
//!
//! In the field checks this scan rarely sees clean text at all: the clean-text classifier
//! (`super::clean`) proves inert characters that no other check flags either, in the same pass
//! for every check, and the scan runs only on the segments around the others
//! (`super::segmented`), which start and end at inert characters and so hold whole regions.
//! [`nfc_status`], [`to_nfc`] and the streamed scan use the scan above on their whole text.

use std::borrow::Cow;
use std::sync::OnceLock;

use unicode_normalization::char::{canonical_combining_class, decompose_compatible};
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

use {blocks::*, filter::*, tables::*};

mod blocks;
mod filter;
mod tables;

/// Result of the NFC check on valid UTF-8 text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NfcStatus {
    /// Already NFC.
    Nfc,
    /// Not NFC.
    NotNfc {
        /// Byte offset (a char boundary) of the first character that NFC changes, or, when the
        /// difference is only that NFC ends earlier, of the last character before that point.
        /// Never past the first byte at which the text and its NFC differ.
        offset: usize,
    },
}

/// Builds the lazily built tables now.
pub(crate) fn prepare() {
    nfc_tables();
    stream_safe_tables();
}

/// Checks whether `text` is in NFC. Exact: `Nfc` if and only if `to_nfc(text) == text`.
pub(crate) fn nfc_status(text: &str) -> NfcStatus {
    nfc_scan(text).0
}

/// [`nfc_status`], and whether every character of `text` is inert (then the text is NFC).
#[inline(always)]
pub(crate) fn nfc_scan(text: &str) -> (NfcStatus, bool) {
    let tables = nfc_tables();
    let mut from = 0;
    let mut all_inert = true;
    while let Some((start, end)) = next_region(text, from, tables) {
        all_inert = false;
        if let Some(k) = region_difference(&text[start..end]) {
            return (NfcStatus::NotNfc { offset: start + k }, false);
        }
        from = end;
    }
    (NfcStatus::Nfc, all_inert)
}

/// Whether `c` is inert and adds no leading non-starter in the stream-safe count: the NFC and
/// stream-safe checks say the same of it, and of the characters beside it, whatever those
/// are.
pub(crate) fn is_isolated(c: char) -> bool {
    let cp = u32::from(c);
    !nfc_tables().is_not_inert(cp) && !stream_safe_tables().leading.contains(cp)
}

/// Whether text made only of inert characters certainly has no run of non-starters over
/// `limit`, so that [`nonstarter_run_over`] need not scan it. Only characters with leading
/// non-starters in their NFKD make a run grow; all but a few are not inert, and the few inert
/// ones (U+FF9E and U+FF9F in Unicode 18, listed when the table is built) are searched for.
/// Without them, a run is at most the trailing non-starters of one character, which is not
/// over a `limit` of at least the largest such count.
pub(crate) fn inert_text_is_stream_safe(text: &str, limit: usize) -> bool {
    let tables = stream_safe_tables();
    limit >= usize::from(tables.max_trail)
        && tables.inert_leading.iter().all(|(prefix, lasts)| {
            let bytes = text.as_bytes();
            prefix.find_iter(bytes).all(|at| {
                !bytes
                    .get(at + prefix.needle().len())
                    .is_some_and(|b| lasts.contains(b))
            })
        })
}

/// The most trailing non-starters one character adds in the stream-safe count (of its NFKD):
/// with a limit at least this, a run over the limit needs characters with leading
/// non-starters.
pub(crate) fn max_trailing_nonstarters() -> usize {
    usize::from(stream_safe_tables().max_trail)
}

/// `text` in NFC; borrowed when already NFC.
///
/// Only the regions around non-inert characters go through the normalizer; the inert text
/// between them is copied as it is.
pub(crate) fn to_nfc(text: &str) -> Cow<'_, str> {
    let tables = nfc_tables();
    let mut from = 0;
    let start = loop {
        let Some((start, end)) = next_region(text, from, tables) else {
            return Cow::Borrowed(text);
        };
        if region_difference(&text[start..end]).is_some() {
            break start;
        }
        from = end;
    };
    // Everything before `start` is NFC and ends before a character that never composes with
    // what precedes it, so the rest can be normalized on its own. ICU4X rewrites about twice
    // as fast as unicode-normalization (docs/BENCHMARKS.md) and passes normalized stretches
    // through cheaply.
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..start]);
    // A run of more than `STREAM_SAFE` non-starters gets a U+034F COMBINING GRAPHEME JOINER
    // before each 31st (UAX #15 §13's stream-safe conversion), so that the normalizer never
    // holds more than one piece's run: the result is NFC and stream-safe, and reads as
    // `region_difference` reads the text it came from.
    let normalizer = icu_normalizer::ComposingNormalizerBorrowed::new_nfc();
    for (at, piece) in stream_safe_pieces(&text[start..]) {
        if at > 0 {
            out.push('\u{34F}');
        }
        normalize_piece(&normalizer, piece, &mut out);
    }
    Cow::Owned(out)
}

/// How many bytes longer [`to_nfc`] of `text` is than `text` (0 when it is not longer),
/// counted without writing it: what a rewrite to NFC would add (NFC can triple a character's
/// bytes: U+1D160 is U+1D158 U+1D165 U+1D16E).
pub(crate) fn nfc_growth(text: &str) -> usize {
    let tables = nfc_tables();
    let (mut from, mut grown, mut shrunk) = (0, 0usize, 0usize);
    while let Some((start, end)) = next_region(text, from, tables) {
        let region = &text[start..end];
        if region_difference(region).is_some() {
            // Each piece's NFC, and a U+034F (two bytes) between two pieces.
            let len = stream_safe_pieces(region)
                .map(|(_, piece)| piece.nfc().map(char::len_utf8).sum::<usize>() + 2)
                .sum::<usize>()
                - 2;
            grown += len.saturating_sub(region.len());
            shrunk += region.len().saturating_sub(len);
        }
        from = end;
    }
    grown.saturating_sub(shrunk)
}

/// Appends the NFC of `piece` to `out`.
fn normalize_piece(
    normalizer: &icu_normalizer::ComposingNormalizerBorrowed,
    piece: &str,
    out: &mut String,
) {
    let at = out.len();
    if normalizer.normalize_to(piece, out).is_err() {
        out.truncate(at);
        out.extend(piece.nfc());
    }
}

/// The first run of more than `limit` consecutive non-starters, counted as the Stream-Safe Text
/// Format counts them (UAX #15 §13, the same count as `unicode-normalization`'s `stream_safe()`):
/// on the compatibility decomposition (NFKD) of each character. A character whose NFKD consists
/// only of non-starters (combining marks, and also starters such as U+FF9E HALFWIDTH KATAKANA
/// VOICED SOUND MARK) adds all of them; any other character ends the run with its leading
/// non-starters and starts the next one with its trailing ones (U+00C0 `À` is `A` + U+0300, so
/// it opens a run of 1).
///
/// The run is over the limit when, at some character, the count before it plus its leading
/// non-starters exceeds `limit` (where UAX #15 would insert U+034F).
///
/// Returns `(offset, len, count)`: the byte offset of the run's first character (the one that
/// contributes its first non-starter), the byte length up to the end of the last character that
/// contributes to it, and the number of non-starters counted in it. `count` is the number of
/// characters in the run when none of them decomposes, as with plain combining marks.
pub(crate) fn nonstarter_run_over(text: &str, limit: usize) -> Option<(usize, usize, usize)> {
    let tables = stream_safe_tables();
    let Some(min) = tables.stretch_for_a_run_over(limit) else {
        return run_over(text, limit, tables);
    };
    // Such a run lies in a stretch of `min` non-ASCII bytes or more (ASCII adds no
    // non-starters and ends a run): only those are counted.
    let mut from = 0;
    while let Some((start, end)) = long_high_stretch(text.as_bytes(), from, min) {
        if let Some((s, n, c)) = run_over(&text[start..end], limit, tables) {
            return Some((start + s, n, c));
        }
        from = end;
    }
    None
}

/// [`nonstarter_run_over`] of `text`, counted character by character.
fn run_over(text: &str, limit: usize, tables: &StreamSafeTables) -> Option<(usize, usize, usize)> {
    let bytes = text.as_bytes();
    // With `limit >= max_trail`, a character that adds no leading non-starters can only go over
    // the limit right after one that does, so the scan may jump to the next such character.
    let skip = limit >= usize::from(tables.max_trail);
    let mut run = Run::default();
    let mut idle = true;
    let mut i = 0;
    while i < bytes.len() {
        if skip && idle {
            let found = match tables.leading.filter {
                SEQUENCES => find::<LEADS, SEQUENCES, _>(bytes, i, tables),
                LEADS => find::<LEADS, LEADS, _>(bytes, i, tables),
                _ => find::<PLAIN, PLAIN, _>(bytes, i, tables),
            };
            // No character adds leading non-starters from here on: nothing can go over.
            let p = found?;
            if p > i {
                // Recount from the character before `p`: it adds no leading non-starters, so
                // only its trailing ones matter.
                i = prev_char_start(bytes, p);
                run = Run::default();
            }
        }
        let (cp, len) = decode(bytes, i);
        let props = tables.props(cp);
        let lead = usize::from(props.lead());
        let total = run.count + lead;
        run.over |= total > limit;
        if props.all_nonstarters() {
            if run.count == 0 {
                run.start = i;
            }
            run.count = total;
            run.end = i + len;
            idle = false;
        } else {
            if lead > 0 {
                if run.count == 0 {
                    run.start = i;
                }
                run.end = i + len;
            }
            if run.over {
                return Some((run.start, run.end - run.start, total));
            }
            let trail = usize::from(props.trail());
            run = Run {
                start: i,
                end: i + len,
                count: trail,
                over: false,
            };
            idle = true;
        }
        i += len;
    }
    run.over
        .then_some((run.start, run.end - run.start, run.count))
}

/// The run of non-starters being counted by [`nonstarter_run_over`].
#[derive(Debug, Default, Clone, Copy)]
struct Run {
    /// Byte offset of the character that contributed the run's first non-starter.
    start: usize,
    /// End (exclusive) of the last character that contributed to the run.
    end: usize,
    /// Non-starters counted so far.
    count: usize,
    /// Whether the count went over the limit at some character of this run.
    over: bool,
}

/// The next region, at or after `from`, around a character that is not inert: from the inert
/// character just before it (or `from`, when it is at `from`) to the next inert character (or
/// the end). `from` must be 0 or the start of an inert character.
#[inline(always)]
fn next_region(text: &str, from: usize, tables: &NfcTables) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let hit = match tables.not_inert.filter {
        SEQUENCES => find::<LEADS, SEQUENCES, _>(bytes, from, tables),
        LEADS => find::<LEADS, LEADS, _>(bytes, from, tables),
        _ => find::<PLAIN, PLAIN, _>(bytes, from, tables),
    }?;
    // Everything in `from..hit` is inert, so the character before `hit` is a boundary.
    let start = if hit > from {
        prev_char_start(bytes, hit)
    } else {
        hit
    };
    let mut end = hit + decode(bytes, hit).1;
    while end < bytes.len() {
        let (cp, len) = decode(bytes, end);
        if !tables.is_not_inert(cp) {
            break;
        }
        end += len;
    }
    Some((start, end))
}

/// Non-starters in a row that one normalization of a region holds at most: UAX #15 §13's
/// stream-safe limit.
const STREAM_SAFE: usize = 30;

/// `None` if `region` (text between two normalization boundaries) is NFC; otherwise the byte
/// offset in `region` of the first character that differs from its NFC (or of the last
/// character, when NFC is only longer).
///
/// A normalizer holds a run of non-starters whole to reorder it: `a` and four million U+0301
/// would be 32 MiB of buffer. The region is read as its stream-safe form instead (UAX #15
/// §13: a U+034F before each 31st non-starter in a row, which ends a reordering and a
/// composition), one piece at a time; a run that long is `excessive_combining` already. Text
/// without such a run reads exactly as before.
fn region_difference(region: &str) -> Option<usize> {
    if nfc_tables().quick_check(region) == IsNormalized::Yes {
        return None;
    }
    stream_safe_pieces(region)
        .find_map(|(start, piece)| piece_difference(piece).map(|at| start + at))
}

/// `text` cut before each 31st non-starter in a row (by canonical combining class): the pieces
/// UAX #15 §13's stream-safe form separates with a U+034F, each with its offset. Text without
/// such a run is one piece.
fn stream_safe_pieces(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let (mut piece, mut run) = (0, 0);
    let mut chars = text.char_indices();
    core::iter::from_fn(move || {
        if piece > text.len() {
            return None;
        }
        for (k, c) in chars.by_ref() {
            run = if canonical_combining_class(c) == 0 {
                0
            } else {
                run + 1
            };
            if run > STREAM_SAFE {
                let cut = (piece, &text[piece..k]);
                (piece, run) = (k, 1);
                return Some(cut);
            }
        }
        let last = (piece, &text[piece..]);
        piece = text.len() + 1;
        Some(last)
    })
}

/// [`region_difference`] of one stream-safe piece.
fn piece_difference(piece: &str) -> Option<usize> {
    let mut nfc = piece.nfc();
    let mut last = 0;
    for (k, c) in piece.char_indices() {
        if nfc.next() != Some(c) {
            return Some(k);
        }
        last = k;
    }
    nfc.next().map(|_| last)
}

#[cfg(test)]
mod tests;
