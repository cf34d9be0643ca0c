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
//!    before it to the next inert character is quick-checked on its own, and compared with its
//!    NFC when the quick check says Maybe or No. Only this step calls the normalizer.

use std::borrow::Cow;
use std::sync::OnceLock;

use unicode_normalization::char::{canonical_combining_class, decompose_compatible};
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

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

/// Checks whether `text` is in NFC. Exact: `Nfc` if and only if `to_nfc(text) == text`.
pub(crate) fn nfc_status(text: &str) -> NfcStatus {
    let tables = nfc_tables();
    let mut from = 0;
    while let Some((start, end)) = next_region(text, from, tables) {
        if let Some(k) = region_difference(&text[start..end]) {
            return NfcStatus::NotNfc { offset: start + k };
        }
        from = end;
    }
    NfcStatus::Nfc
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
    let normalizer = icu_normalizer::ComposingNormalizerBorrowed::new_nfc();
    if normalizer.normalize_to(&text[start..], &mut out).is_err() {
        out.truncate(start);
        out.extend(text[start..].nfc());
    }
    Cow::Owned(out)
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
    let bytes = text.as_bytes();
    // With `limit >= max_trail`, a character that adds no leading non-starters can only go over
    // the limit right after one that does, so the scan may jump to the next such character.
    let skip = limit >= usize::from(tables.max_trail);
    let mut run = Run::default();
    let mut idle = true;
    let mut i = 0;
    while i < bytes.len() {
        if skip && idle {
            let found = if tables.filter_exact {
                find::<LEADS, LEADS, _>(bytes, i, tables)
            } else {
                find::<PLAIN, PLAIN, _>(bytes, i, tables)
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
fn next_region(text: &str, from: usize, tables: &NfcTables) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let hit = match tables.filter {
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

/// `None` if `region` (text between two normalization boundaries) is NFC; otherwise the byte
/// offset in `region` of the first character that differs from its NFC (or of the last
/// character, when NFC is only longer).
fn region_difference(region: &str) -> Option<usize> {
    if is_nfc_quick(region.chars()) == IsNormalized::Yes {
        return None;
    }
    let mut nfc = region.nfc();
    let mut last = 0;
    for (k, c) in region.char_indices() {
        if nfc.next() != Some(c) {
            return Some(k);
        }
        last = k;
    }
    nfc.next().map(|_| last)
}

/// Bytes tested at a time by the prefilter of [`find`].
const BLOCK: usize = 64;

/// Bytes after a block that the sequence filter may read (the rest of a 3-byte character).
const LOOKAHEAD: usize = 2;

/// A block with its lookahead.
type Window = [u8; BLOCK + LOOKAHEAD];

/// [`find`]'s filter: flag every byte not below `0xCC`.
const PLAIN: u8 = 0;
/// [`find`]'s filter: flag every byte not below `0xCC` except the lead bytes in
/// [`SKIPPED_LEADS`].
const LEADS: u8 = 1;
/// [`find`]'s filter: flag the lead bytes of possibly non-inert characters, see
/// [`may_be_not_inert`]. Only for the NFC table, and after [`LEADS`] flagged many.
const SEQUENCES: u8 = 2;

/// Whether `b` starts a character the tables must be asked about: it is not below `0xCC` (so
/// not ASCII, not U+0080..U+02FF, not a continuation byte), and not one of the
/// [`SKIPPED_LEADS`].
#[inline(always)]
fn needs_lookup(b: u8) -> bool {
    (b >= 0xCC) & !(in_range(b, 0xD0, 0xD1) | in_range(b, 0xE4, 0xE9) | in_range(b, 0xEB, 0xED))
}

/// Lead bytes whose every character is inert and has no leading non-starter in its NFKD:
/// Cyrillic U+0400..U+047F, Han U+4000..U+9FFF, Hangul U+B000..U+DFFF. A table lets [`find`]
/// skip them only after checking that it has no entry there.
const SKIPPED_LEADS: [(u8, u8); 3] = [(0xD0, 0xD1), (0xE4, 0xE9), (0xEB, 0xED)];

/// `lo <= b <= hi`, as one subtraction and one comparison (vectorizes well).
#[inline(always)]
fn in_range(b: u8, lo: u8, hi: u8) -> bool {
    b.wrapping_sub(lo) <= hi - lo
}

/// Whether the character starting with bytes `b0 b1 b2` may be non-inert. False for bytes
/// below `0xCC` and the [`SKIPPED_LEADS`], and, looking at the next one or two bytes, for the
/// inert parts of the ranges that common text uses next to a few non-inert characters: Greek
/// U+0380..U+03BF but U+0387, Cyrillic U+0480..U+04BF but U+0483..U+0489, punctuation, symbols
/// and dingbats U+2002..U+203F and U+2140..U+2ABF, CJK punctuation and kana U+3000..U+3FFF but
/// U+302A..U+302F and U+3099..U+309A, Hangul U+AC00..U+AFFF, full-width and other forms
/// U+F000..U+FFFF but U+F900..U+FB7F and U+FE20..U+FE2F, emoji and CJK extensions
/// U+1F000..U+2EFFF. `b2` is only read for 3-byte characters, so any byte may follow a 2-byte
/// one. When the tables are built, every non-inert character is checked to be flagged; if one
/// were not, [`find`] would fall back to [`needs_lookup`].
#[inline(always)]
fn may_be_not_inert(b0: u8, b1: u8, b2: u8) -> bool {
    let lead_clean = in_range(b0, 0xD0, 0xD1) | (in_range(b0, 0xE4, 0xED) & (b0 != 0xEA));
    let x80 = b1 == 0x80;
    let symbols = (b0 == 0xE2) & ((x80 & (b2 >= 0x82)) | (in_range(b1, 0x85, 0xAA) & (b1 != 0x8C)));
    let kana = (b0 == 0xE3)
        & !((x80 & in_range(b2, 0xAA, 0xAF)) | ((b1 == 0x82) & in_range(b2, 0x99, 0x9A)));
    let forms =
        (b0 == 0xEF) & !(in_range(b1, 0xA4, 0xAD) | ((b1 == 0xB8) & in_range(b2, 0xA0, 0xAF)));
    let astral = (b0 == 0xF0) & in_range(b1, 0x9F, 0xAE);
    (b0 >= 0xCC) & !(lead_clean | symbols | kana | forms | astral)
}

/// Whether `FILTER` flags the character starting at `w[k]`.
#[inline(always)]
fn flagged<const FILTER: u8>(w: &Window, k: usize) -> bool {
    match FILTER {
        PLAIN => w[k] >= 0xCC,
        LEADS => needs_lookup(w[k]),
        _ => may_be_not_inert(w[k], w[k + 1], w[k + 2]),
    }
}

/// The positions of a block that `FILTER` flags, as a bit mask. The flags are computed as bytes
/// in a loop LLVM vectorizes, and packed eight at a time with a multiplication.
#[inline(always)]
fn flag_mask<const FILTER: u8>(w: &Window) -> u64 {
    let mut flags = [0u8; BLOCK];
    let mut any = 0u8;
    for (k, flag) in flags.iter_mut().enumerate() {
        *flag = u8::from(flagged::<FILTER>(w, k));
        any |= *flag;
    }
    if any == 0 {
        return 0;
    }
    flags
        .chunks_exact(8)
        .enumerate()
        .fold(0u64, |mask, (j, eight)| {
            let mut word = [0u8; 8];
            word.copy_from_slice(eight);
            // Bytes 0 or 1: the product gathers byte i's bit into bit 56 + i, without carries.
            let bits = u64::from_le_bytes(word).wrapping_mul(0x0102_0408_1020_4080) >> 56;
            mask | (bits << (8 * j))
        })
}

/// How many characters per block [`find`] looks up one by one before it asks its more
/// selective filter.
const SPARSE: u32 = 8;

/// Blocks [`find`] starts with its more selective filter after a block needed it.
const DENSE_RUN: u32 = 16;

/// Byte offset of the first character at or after `i` (a char boundary of valid UTF-8) for
/// which `tables.hit` holds. `hit` must be false for every character that `BASE` or `TOP` does
/// not flag (U+0000..U+02FF for [`PLAIN`]).
///
/// Blocks of 64 bytes whose bytes are all below `0xCC` are skipped with a max-reduction. The
/// others are flagged by `BASE` and, when it flags more than [`SPARSE`] characters, by the more
/// selective but costlier `TOP` (which then starts the next [`DENSE_RUN`] blocks), each in a
/// loop LLVM vectorizes. Only the flagged characters are looked up. A block may end inside a
/// character: its continuation bytes, all below `0xCC`, are never flagged, and a character is
/// only ever looked at through its lead byte.
#[inline(always)]
fn find<const BASE: u8, const TOP: u8, T: Lookup>(
    bytes: &[u8],
    mut i: usize,
    tables: &T,
) -> Option<usize> {
    let mut tail: Window = [0; BLOCK + LOOKAHEAD];
    let mut dense = 0;
    while i < bytes.len() {
        let window: &Window = match bytes.get(i..i + BLOCK + LOOKAHEAD) {
            Some(w) => w.try_into().ok()?,
            None => {
                let rest = &bytes[i..];
                if rest.iter().fold(0u8, |m, &b| m.max(b)) < 0xCC {
                    return None;
                }
                // The last block, padded with zeros (never flagged; no character is cut).
                tail.fill(0);
                tail[..rest.len()].copy_from_slice(rest);
                &tail
            }
        };
        if window[..BLOCK].iter().fold(0u8, |m, &b| m.max(b)) < 0xCC {
            i += BLOCK;
            // Low text tends to go on: skip it four blocks at a time.
            while let Some(run) = bytes.get(i..i + 4 * BLOCK) {
                if run.iter().fold(0u8, |m, &b| m.max(b)) >= 0xCC {
                    break;
                }
                i += 4 * BLOCK;
            }
            continue;
        }
        let mut mask;
        if dense > 0 {
            dense -= 1;
            mask = flag_mask::<TOP>(window);
        } else {
            mask = flag_mask::<BASE>(window);
            if TOP != BASE && mask.count_ones() > SPARSE {
                mask = flag_mask::<TOP>(window);
                dense = DENSE_RUN;
            }
        }
        while mask != 0 {
            let k = mask.trailing_zeros() as usize & (BLOCK - 1);
            if tables.hit(bytes, i + k, [window[k], window[k + 1], window[k + 2]]) {
                return Some(i + k);
            }
            mask &= mask - 1;
        }
        i += BLOCK;
    }
    None
}

/// What [`find`] looks for.
trait Lookup {
    /// Whether the character at `j` in valid UTF-8 `bytes`, which starts with the bytes `start`
    /// (then whatever follows it), is one to find.
    fn hit(&self, bytes: &[u8], j: usize, start: [u8; 3]) -> bool;
}

impl Lookup for NfcTables {
    /// A character that is not inert.
    #[inline(always)]
    fn hit(&self, bytes: &[u8], j: usize, start: [u8; 3]) -> bool {
        self.not_inert_at(bytes, j, start)
    }
}

impl Lookup for StreamSafeTables {
    /// A character with leading non-starters in its NFKD.
    #[inline(always)]
    fn hit(&self, bytes: &[u8], j: usize, _start: [u8; 3]) -> bool {
        self.props(decode(bytes, j).0).lead() > 0
    }
}

/// The code point and byte length of the character starting at `i` in valid UTF-8.
#[inline(always)]
fn decode(bytes: &[u8], i: usize) -> (u32, usize) {
    let b0 = u32::from(bytes[i]);
    if b0 < 0x80 {
        return (b0, 1);
    }
    let cont = |k: usize| bytes.get(i + k).map_or(0, |&b| u32::from(b & 0x3F));
    if b0 < 0xE0 {
        (((b0 & 0x1F) << 6) | cont(1), 2)
    } else if b0 < 0xF0 {
        (((b0 & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3)
    } else {
        (
            ((b0 & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3),
            4,
        )
    }
}

/// Start of the character that ends just before `p` (`p > 0`, a char boundary).
fn prev_char_start(bytes: &[u8], p: usize) -> usize {
    let mut k = p - 1;
    while k > 0 && bytes[k] & 0xC0 == 0x80 {
        k -= 1;
    }
    k
}

/// Per-code-point data stored in blocks of 64 code points; blocks that are all default share
/// entry 0 of `data`.
#[derive(Debug)]
struct Blocks<T> {
    /// Code point >> 6 to index in `data`. Code points past its end have the default value.
    index: Box<[u16]>,
    /// The distinct-by-position blocks; `data[0]` is the all-default block.
    data: Box<[T]>,
}

impl<T: Copy + PartialEq> Blocks<T> {
    /// Builds the table from `block(n)`, the data of code points `64 * n .. 64 * n + 64`.
    fn build(empty: T, mut block: impl FnMut(u32) -> T) -> Self {
        let mut index = Vec::new();
        let mut data = vec![empty];
        for n in 0..(0x11_0000 >> 6) {
            let b = block(n);
            if b == empty {
                index.push(0);
            } else {
                // At most 0x4400 blocks, so the index always fits.
                index.push(u16::try_from(data.len()).unwrap_or(u16::MAX));
                data.push(b);
            }
        }
        let used = index.iter().rposition(|&k| k != 0).map_or(0, |k| k + 1);
        index.truncate(used);
        Self {
            index: index.into_boxed_slice(),
            data: data.into_boxed_slice(),
        }
    }

    /// The block holding `cp`.
    #[inline(always)]
    fn block(&self, cp: u32) -> T {
        let k = self.index.get((cp >> 6) as usize).copied().unwrap_or(0);
        self.data[usize::from(k)]
    }

    /// Whether every code point behind UTF-8 lead byte `lead` has the default value.
    fn lead_is_empty(&self, lead: u8) -> bool {
        let (first, last) = match lead {
            0xC2..=0xDF => (
                u32::from(lead & 0x1F) << 6,
                (u32::from(lead & 0x1F) << 6) | 0x3F,
            ),
            0xE0..=0xEF => (
                u32::from(lead & 0x0F) << 12,
                (u32::from(lead & 0x0F) << 12) | 0xFFF,
            ),
            0xF0..=0xF4 => (
                u32::from(lead & 0x07) << 18,
                ((u32::from(lead & 0x07) << 18) | 0x3_FFFF).min(0x10_FFFF),
            ),
            _ => return true,
        };
        ((first >> 6)..=(last >> 6)).all(|n| self.index.get(n as usize).copied().unwrap_or(0) == 0)
    }

    /// Whether every lead byte in [`SKIPPED_LEADS`] has only default entries behind it.
    fn skipped_leads_are_empty(&self) -> bool {
        SKIPPED_LEADS
            .iter()
            .all(|&(lo, hi)| (lo..=hi).all(|lead| self.lead_is_empty(lead)))
    }
}

/// The table of characters that are not inert (not `NFC_QC=Yes` with ccc 0).
#[derive(Debug)]
struct NfcTables {
    /// Bit `cp & 63` of a block is set when `cp` is not inert.
    not_inert: Blocks<u64>,
    /// By lead byte (`0xC0..=0xFF`, 6 bits) and second byte (6 bits): the index in `masks` of
    /// the mask to test with the third byte. 0 (an empty mask) when every character starting
    /// with the two is inert; an all-ones mask for a non-inert 2-byte character; `full` (also
    /// all ones) when the third byte does not settle it (a 4-byte character).
    pair: Box<[u16]>,
    /// `not_inert`'s masks, then two all-ones masks (the last one is `full`).
    masks: Box<[u64]>,
    /// The entry of `pair` that asks for a full lookup.
    full: u16,
    /// The most selective filter [`find`] may use: [`SEQUENCES`] (after [`LEADS`]) when both
    /// flag every non-inert character, as they do for Unicode 18; else [`LEADS`] or [`PLAIN`].
    filter: u8,
}

impl NfcTables {
    /// Builds the table from `unicode-normalization`'s data.
    fn build() -> Self {
        let not_inert = Blocks::build(0u64, |n| {
            (0..64).fold(0u64, |mask, k| {
                let c = char::from_u32((n << 6) | k);
                mask | (u64::from(c.is_some_and(|c| !is_inert(c))) << k)
            })
        });
        let sequences_exact = (0..0x11_0000u32)
            .filter(|&cp| (not_inert.block(cp) >> (cp & 63)) & 1 != 0)
            .filter_map(char::from_u32)
            .all(|c| {
                let mut utf8 = [0; 4];
                let b = c.encode_utf8(&mut utf8).as_bytes();
                match *b {
                    // Whatever follows a 2-byte character.
                    [b0, b1] => (0..=u8::MAX).all(|b2| may_be_not_inert(b0, b1, b2)),
                    [b0, b1, b2, ..] => may_be_not_inert(b0, b1, b2),
                    _ => false,
                }
            });
        let leads_exact = not_inert.skipped_leads_are_empty();
        let filter = match (leads_exact, sequences_exact) {
            (true, true) => SEQUENCES,
            (true, false) => LEADS,
            _ => PLAIN,
        };
        // Two all-ones masks at the end: one for non-inert 2-byte characters, one (the last)
        // for 4-byte pairs that need a full lookup.
        let mut masks = not_inert.data.to_vec();
        let all = u16::try_from(masks.len()).unwrap_or(u16::MAX);
        let full = all.saturating_add(1);
        masks.extend([u64::MAX, u64::MAX]);
        let pair = (0..64u32 * 64)
            .map(|k| {
                let (b0, b1) = (0xC0 | (k >> 6), 0x80 | (k & 0x3F));
                match b0 {
                    0xC2..=0xDF => {
                        let cp = ((b0 & 0x1F) << 6) | (b1 & 0x3F);
                        if (not_inert.block(cp) >> (cp & 63)) & 1 != 0 {
                            all
                        } else {
                            0
                        }
                    }
                    0xE0..=0xEF => {
                        let block = ((b0 & 0x0F) << 6) | (b1 & 0x3F);
                        not_inert.index.get(block as usize).copied().unwrap_or(0)
                    }
                    0xF0..=0xF4 => {
                        let first = (((b0 & 0x07) << 18) | ((b1 & 0x3F) << 12)) >> 6;
                        let clean = (first..first + 64)
                            .all(|n| not_inert.index.get(n as usize).copied().unwrap_or(0) == 0);
                        if clean { 0 } else { full }
                    }
                    _ => 0,
                }
            })
            .collect();
        Self {
            not_inert,
            pair,
            masks: masks.into_boxed_slice(),
            full,
            filter,
        }
    }

    /// Whether the character at `j` in valid UTF-8, which starts with the bytes `start` (then
    /// whatever follows), is not inert: looked up by its first two bytes and, when needed, its
    /// third; a 4-byte character may need a full lookup.
    #[inline(always)]
    fn not_inert_at(&self, bytes: &[u8], j: usize, start: [u8; 3]) -> bool {
        let [b0, b1, b2] = start;
        let entry = self.pair[(usize::from(b0 & 0x3F) << 6) | usize::from(b1 & 0x3F)];
        // Branch-free until a bit is set, which clean text never reaches.
        let set = (self.masks[usize::from(entry)] >> (b2 & 63)) & 1 != 0;
        set && (entry != self.full || self.is_not_inert(decode(bytes, j).0))
    }

    /// Whether `cp` is not inert.
    #[inline(always)]
    fn is_not_inert(&self, cp: u32) -> bool {
        (self.not_inert.block(cp) >> (cp & 63)) & 1 != 0
    }
}

/// Whether `c` is inert: `NFC_QC=Yes` and canonical combining class 0 (the definition the
/// table is built from).
fn is_inert(c: char) -> bool {
    canonical_combining_class(c) == 0 && is_nfc_quick(core::iter::once(c)) == IsNormalized::Yes
}

/// The shared, lazily built NFC table.
fn nfc_tables() -> &'static NfcTables {
    static TABLES: OnceLock<NfcTables> = OnceLock::new();
    TABLES.get_or_init(NfcTables::build)
}

/// What the stream-safe count needs of one character, packed in a byte: bits 0–2 the leading
/// non-starters of its NFKD, bits 3–5 the trailing ones, bit 6 set when its NFKD consists only
/// of non-starters. (Unicode 18 needs at most 2 leading and 3 trailing; a test checks that the
/// three bits suffice.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct NonstarterProps(u8);

impl NonstarterProps {
    /// Computes the properties of `c` from its NFKD.
    fn of(c: char) -> Self {
        let (mut len, mut lead, mut trail) = (0u32, 0u32, 0u32);
        decompose_compatible(c, |d| {
            let nonstarter = canonical_combining_class(d) != 0;
            if nonstarter {
                trail += 1;
                if lead == len {
                    lead += 1;
                }
            } else {
                trail = 0;
            }
            len += 1;
        });
        let all = u8::from(lead == len && len > 0);
        let clamp = |n: u32| u8::try_from(n.min(7)).unwrap_or(7);
        Self(clamp(lead) | (clamp(trail) << 3) | (all << 6))
    }

    /// Leading non-starters of the NFKD.
    fn lead(self) -> u8 {
        self.0 & 7
    }

    /// Trailing non-starters of the NFKD.
    fn trail(self) -> u8 {
        (self.0 >> 3) & 7
    }

    /// Whether the NFKD consists only of non-starters.
    fn all_nonstarters(self) -> bool {
        self.0 & 0x40 != 0
    }
}

/// The per-character data of the stream-safe count.
#[derive(Debug)]
struct StreamSafeTables {
    /// [`NonstarterProps`] of every code point.
    props: Blocks<[NonstarterProps; 64]>,
    /// The largest trailing count of any character.
    max_trail: u8,
    /// Whether no character behind [`SKIPPED_LEADS`] has leading non-starters.
    filter_exact: bool,
}

impl StreamSafeTables {
    /// Builds the table from `unicode-normalization`'s data.
    fn build() -> Self {
        let mut max_trail = 0;
        let props = Blocks::build([NonstarterProps::default(); 64], |n| {
            let mut block = [NonstarterProps::default(); 64];
            for (k, p) in (0u32..).zip(block.iter_mut()) {
                if let Some(c) = char::from_u32((n << 6) | k) {
                    *p = NonstarterProps::of(c);
                    max_trail = max_trail.max(p.trail());
                }
            }
            block
        });
        // A character with leading non-starters must be found by `find`: none below U+0300,
        // and none behind the skipped lead bytes when the filter is used.
        let lead_free = Blocks {
            index: props
                .index
                .iter()
                .map(|&k| {
                    let block = &props.data[usize::from(k)];
                    u16::from(block.iter().any(|p| p.lead() > 0))
                })
                .collect(),
            data: Box::new([false, true]),
        };
        let filter_exact = lead_free.skipped_leads_are_empty();
        Self {
            props,
            max_trail,
            filter_exact,
        }
    }

    /// The properties of `cp`.
    #[inline(always)]
    fn props(&self, cp: u32) -> NonstarterProps {
        self.props.block(cp)[(cp & 63) as usize]
    }
}

/// The shared, lazily built stream-safe table.
fn stream_safe_tables() -> &'static StreamSafeTables {
    static TABLES: OnceLock<StreamSafeTables> = OnceLock::new();
    TABLES.get_or_init(StreamSafeTables::build)
}

#[cfg(test)]
mod tests;
