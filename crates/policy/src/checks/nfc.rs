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
mod runs;
mod tables;

pub(crate) use runs::{inert_text_is_stream_safe, max_trailing_nonstarters, nonstarter_run_over};

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
    let (tables, mut finder) = (nfc_tables(), Finder::default());
    let mut from = 0;
    let mut all_inert = true;
    while let Some((start, end)) = next_region(text, from, tables, &mut finder) {
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

/// `text` in NFC; borrowed when already NFC.
///
/// Only the regions around non-inert characters go through the normalizer; the inert text
/// between them is copied as it is.
pub(crate) fn to_nfc(text: &str) -> Cow<'_, str> {
    let (tables, mut finder) = (nfc_tables(), Finder::default());
    let mut from = 0;
    let start = loop {
        let Some((start, end)) = next_region(text, from, tables, &mut finder) else {
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
    let (tables, mut finder) = (nfc_tables(), Finder::default());
    let (mut from, mut grown, mut shrunk) = (0, 0usize, 0usize);
    while let Some((start, end)) = next_region(text, from, tables, &mut finder) {
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

/// The next region, at or after `from`, around a character that is not inert: from the inert
/// character just before it (or `from`, when it is at `from`) to the next inert character (or
/// the end). `from` must be 0 or the start of an inert character; `finder` scans `text` only.
#[inline(always)]
fn next_region(
    text: &str,
    from: usize,
    tables: &NfcTables,
    finder: &mut Finder,
) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let hit = match tables.not_inert.filter {
        SEQUENCES => finder.find::<LEADS, SEQUENCES, _>(bytes, from, tables),
        LEADS => finder.find::<LEADS, LEADS, _>(bytes, from, tables),
        _ => finder.find::<PLAIN, PLAIN, _>(bytes, from, tables),
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
