//! The block scan: byte filters that flag possibly non-inert characters 64 bytes at a time,
//! and [`Finder::find`], which asks the tables only about flagged characters (steps 1–3 of the
//! parent module's notes).

/// Bytes tested at a time by the prefilter of [`Finder::find`].
pub(super) const BLOCK: usize = 64;

/// Bytes after a block that the sequence filter may read (the rest of a 3-byte character).
pub(super) const LOOKAHEAD: usize = 2;

/// A block with its lookahead.
pub(super) type Window = [u8; BLOCK + LOOKAHEAD];

/// [`Finder::find`]'s filter: flag every byte not below `0xCC`.
pub(super) const PLAIN: u8 = 0;
/// [`Finder::find`]'s filter: flag every byte not below `0xCC` except the lead bytes in
/// [`SKIPPED_LEADS`].
pub(super) const LEADS: u8 = 1;
/// [`Finder::find`]'s filter: flag the lead bytes of possibly non-inert characters, see
/// [`may_be_not_inert`]. Only for the NFC table, and after [`LEADS`] flagged many.
pub(super) const SEQUENCES: u8 = 2;

/// Whether `b` starts a character the tables must be asked about: it is not below `0xCC` (so
/// not ASCII, not U+0080..U+02FF, not a continuation byte), and not one of the
/// [`SKIPPED_LEADS`].
#[inline(always)]
pub(super) fn needs_lookup(b: u8) -> bool {
    (b >= 0xCC) & !(in_range(b, 0xD0, 0xD1) | in_range(b, 0xE4, 0xE9) | in_range(b, 0xEB, 0xED))
}

/// Lead bytes whose every character is inert and has no leading non-starter in its NFKD:
/// Cyrillic U+0400..U+047F, Han U+4000..U+9FFF, Hangul U+B000..U+DFFF. A table lets
/// [`Finder::find`] skip them only after checking that it has no entry there.
pub(super) const SKIPPED_LEADS: [(u8, u8); 3] = [(0xD0, 0xD1), (0xE4, 0xE9), (0xEB, 0xED)];

/// `lo <= b <= hi`, as one subtraction and one comparison (vectorizes well).
#[inline(always)]
pub(super) fn in_range(b: u8, lo: u8, hi: u8) -> bool {
    b.wrapping_sub(lo) <= hi - lo
}

/// Whether the character starting with bytes `b0 b1 b2` may be non-inert. False for bytes
/// below `0xCC` and the [`SKIPPED_LEADS`], and, looking at the next one or two bytes, for the
/// inert parts of the ranges that common text uses next to a few non-inert characters: Greek
/// U+0380..U+03FF but U+0387, Cyrillic U+0480..U+04BF but U+0483..U+0489, Arabic
/// U+0600..U+06FF but its marks (U+0610..U+061A, U+064B..U+065F, U+0670, U+06D6..U+06ED),
/// punctuation, symbols and dingbats U+2002..U+203F and U+2140..U+2ABF, CJK punctuation and
/// kana U+3000..U+3FFF but U+302A..U+302F and U+3099..U+309A, Hangul U+AC00..U+AFFF, full-width
/// and other forms U+F000..U+FFFF but U+F900..U+FB7F and U+FE20..U+FE2F, emoji and CJK
/// extensions U+1F000..U+2EFFF. `b2` is only read for 3-byte characters, so any byte may follow
/// a 2-byte one. When the tables are built, every non-inert character is checked to be flagged;
/// if one were not, [`Finder::find`] would fall back to [`needs_lookup`].
#[inline(always)]
pub(super) fn may_be_not_inert(b0: u8, b1: u8, b2: u8) -> bool {
    let lead_clean = in_range(b0, 0xD0, 0xD1) | (in_range(b0, 0xE4, 0xED) & (b0 != 0xEA));
    let greek = ((b0 == 0xCE) & (b1 != 0x87)) | (b0 == 0xCF);
    let cyrillic = (b0 == 0xD2) & !in_range(b1, 0x83, 0x89);
    let arabic = ((b0 == 0xD8) & !in_range(b1, 0x90, 0x9A))
        | ((b0 == 0xD9) & !(in_range(b1, 0x8B, 0x9F) | (b1 == 0xB0)))
        | (b0 == 0xDA)
        | ((b0 == 0xDB) & !in_range(b1, 0x96, 0xAD));
    let hangul = (b0 == 0xEA) & (b1 >= 0xB0);
    let x80 = b1 == 0x80;
    let symbols = (b0 == 0xE2) & ((x80 & (b2 >= 0x82)) | (in_range(b1, 0x85, 0xAA) & (b1 != 0x8C)));
    let kana = (b0 == 0xE3)
        & !((x80 & in_range(b2, 0xAA, 0xAF)) | ((b1 == 0x82) & in_range(b2, 0x99, 0x9A)));
    let forms =
        (b0 == 0xEF) & !(in_range(b1, 0xA4, 0xAD) | ((b1 == 0xB8) & in_range(b2, 0xA0, 0xAF)));
    let astral = (b0 == 0xF0) & in_range(b1, 0x9F, 0xAE);
    (b0 >= 0xCC)
        & !(lead_clean | greek | cyrillic | arabic | hangul | symbols | kana | forms | astral)
}

/// Whether `FILTER` flags the character starting at `w[k]`.
#[inline(always)]
pub(super) fn flagged<const FILTER: u8>(w: &Window, k: usize) -> bool {
    match FILTER {
        PLAIN => w[k] >= 0xCC,
        LEADS => needs_lookup(w[k]),
        _ => may_be_not_inert(w[k], w[k + 1], w[k + 2]),
    }
}

/// The positions of a block that `FILTER` flags, as a bit mask. The flags are computed as bytes
/// in a loop LLVM vectorizes, and packed eight at a time with a multiplication.
#[inline(always)]
pub(super) fn flag_mask<const FILTER: u8>(w: &Window) -> u64 {
    let mut flags = [0u8; BLOCK];
    let mut any = 0u8;
    for (k, flag) in flags.iter_mut().enumerate() {
        *flag = u8::from(flagged::<FILTER>(w, k));
        any |= *flag;
    }
    if any == 0 {
        return 0;
    }
    crate::checks::bytes::pack_flags(&flags)
}

/// How many characters per block [`Finder::find`] looks up one by one before it asks its more
/// selective filter.
pub(super) const SPARSE: u32 = 8;

/// Blocks [`Finder::find`] starts with its more selective filter after a block needed it.
pub(super) const DENSE_RUN: u32 = 16;

/// A scan of one text by [`Finder::find`], resumed where it left off: the flags of the block
/// it was in are kept (those looked up and not found are dropped), so finding the characters
/// of a text one after another flags each block once, however many of them it holds.
#[derive(Debug, Default)]
pub(super) struct Finder {
    /// Start of the block the flags are of.
    at: usize,
    /// The flagged positions of that block not yet looked up (bit `k`: `at + k`).
    mask: u64,
    /// Where the next block starts (`at + BLOCK` once a block is flagged).
    next: usize,
    /// Blocks still to flag with the more selective filter.
    dense: u32,
}

impl Finder {
    /// Byte offset of the first character at or after `from` (a char boundary of valid UTF-8)
    /// for which `tables.hit` holds. `hit` must be false for every character that `BASE` or
    /// `TOP` does not flag (U+0000..U+02FF for [`PLAIN`]). One finder is used with one text,
    /// one pair of filters and one table, and `from` never decreases from call to call.
    ///
    /// Blocks of 64 bytes whose bytes are all below `0xCC` are skipped with a max-reduction.
    /// The others are flagged by `BASE` and, when it flags more than [`SPARSE`] characters, by
    /// the more selective but costlier `TOP` (which then starts the next [`DENSE_RUN`] blocks),
    /// each in a loop LLVM vectorizes. Only the flagged characters are looked up. A block may
    /// end inside a character: its continuation bytes, all below `0xCC`, are never flagged, and
    /// a character is only ever looked at through its lead byte.
    #[inline(always)]
    pub(super) fn find<const BASE: u8, const TOP: u8, T: Lookup>(
        &mut self,
        bytes: &[u8],
        from: usize,
        tables: &T,
    ) -> Option<usize> {
        if from >= self.next {
            self.mask = 0;
            self.next = from;
        } else if from > self.at {
            // Within the block flagged last: its positions before `from` are behind.
            self.mask &= u64::MAX << (from - self.at);
        }
        loop {
            while self.mask != 0 {
                let j = self.at + self.mask.trailing_zeros() as usize;
                let start = [0, 1, 2].map(|d| bytes.get(j + d).copied().unwrap_or(0));
                if tables.hit(bytes, j, start) {
                    // Its flag stays: a call from `j` finds it again, one from past it clears it.
                    return Some(j);
                }
                self.mask &= self.mask - 1;
            }
            let i = self.next_flagged_block(bytes)?;
            let window: Window = match bytes.get(i..i + BLOCK + LOOKAHEAD) {
                Some(w) => w.try_into().ok()?,
                None => {
                    // The last block, padded with zeros (never flagged; no character is cut).
                    let mut tail: Window = [0; BLOCK + LOOKAHEAD];
                    tail[..bytes.len() - i].copy_from_slice(&bytes[i..]);
                    tail
                }
            };
            self.mask = if self.dense > 0 {
                self.dense -= 1;
                flag_mask::<TOP>(&window)
            } else {
                let mask = flag_mask::<BASE>(&window);
                if TOP != BASE && mask.count_ones() > SPARSE {
                    self.dense = DENSE_RUN;
                    flag_mask::<TOP>(&window)
                } else {
                    mask
                }
            };
            self.at = i;
            self.next = i + BLOCK;
        }
    }

    /// The start of the next block, from `self.next` on, that has a byte not below `0xCC`;
    /// `None` when the text has none left.
    #[inline(always)]
    fn next_flagged_block(&mut self, bytes: &[u8]) -> Option<usize> {
        let high = |run: &[u8]| run.iter().fold(0u8, |m, &b| m.max(b)) >= 0xCC;
        let mut i = self.next;
        loop {
            let block = bytes.get(i..i + BLOCK).or_else(|| bytes.get(i..))?;
            if block.is_empty() {
                return None;
            }
            if high(block) {
                return Some(i);
            }
            i += BLOCK;
            // Low text tends to go on: skip it four blocks at a time.
            while let Some(run) = bytes.get(i..i + 4 * BLOCK) {
                if high(run) {
                    break;
                }
                i += 4 * BLOCK;
            }
        }
    }
}

/// What [`Finder::find`] looks for.
pub(super) trait Lookup {
    /// Whether the character at `j` in valid UTF-8 `bytes`, which starts with the bytes `start`
    /// (then whatever follows it), is one to find.
    fn hit(&self, bytes: &[u8], j: usize, start: [u8; 3]) -> bool;
}

/// The code point and byte length of the character starting at `i` in valid UTF-8.
#[inline(always)]
pub(super) fn decode(bytes: &[u8], i: usize) -> (u32, usize) {
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
pub(super) fn prev_char_start(bytes: &[u8], p: usize) -> usize {
    let mut k = p - 1;
    while k > 0 && bytes[k] & 0xC0 == 0x80 {
        k -= 1;
    }
    k
}

/// The first stretch of `min` bytes or more (`min >= 15`) that are all `0x80` or above, at or
/// after `from`, as `(start, end)`: non-ASCII characters between ASCII bytes or the ends, whole
/// (in valid UTF-8 a byte below `0x80` is a character of its own). `from` must be 0 or the
/// offset of an ASCII byte (where the stretch before it ended).
///
/// A stretch of `min` bytes holds `(min - 7) / 8` whole eight-byte words at offsets that are
/// multiples of eight (two from 23 bytes on): the scan tests words eight at a time for one, or
/// two in a row, whose bytes are all high, and only around such a word finds its stretch's ends
/// byte by byte. Every stretch is looked at once, so the cost is linear in the bytes.
pub(super) fn long_high_stretch(bytes: &[u8], from: usize, min: usize) -> Option<(usize, usize)> {
    debug_assert!(min >= 15, "a stretch of {min} bytes may hold no whole word");
    let pair = min >= 23;
    let mut tail = [0u8; BLOCK];
    let mut w = from & !7;
    // Whether the word before `w` is all high.
    let mut before = false;
    while w < bytes.len() {
        let block: &[u8; BLOCK] = match bytes.get(w..w + BLOCK) {
            Some(block) => block.try_into().ok()?,
            None => {
                // The last block, padded with zeros: ASCII, never part of a stretch.
                tail.fill(0);
                tail[..bytes.len() - w].copy_from_slice(&bytes[w..]);
                &tail
            }
        };
        let all_high = all_high_words(block);
        let hits = match pair {
            true => all_high & ((all_high << 1) | u32::from(before)),
            false => all_high,
        };
        if hits == 0 {
            before = all_high >> 7 == 1;
            w += BLOCK;
            continue;
        }
        let at = w + 8 * hits.trailing_zeros() as usize;
        let mut start = at;
        while start > from && bytes[start - 1] >= 0x80 {
            start -= 1;
        }
        let after = &bytes[at + 8..];
        let end = at + 8 + after.iter().position(|&b| b < 0x80).unwrap_or(after.len());
        if end - start >= min {
            return Some((start, end));
        }
        // The word at `end` holds an ASCII byte (or is past the end): none before it counts.
        w = end & !7;
        before = false;
    }
    None
}

/// Bit `j` set when the `j`-th eight bytes of `block` are all `0x80` or above: a loop LLVM
/// vectorizes, its flags packed with a multiplication.
#[inline(always)]
fn all_high_words(block: &[u8; BLOCK]) -> u32 {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut flags = [0u8; 8];
    for (flag, word) in flags.iter_mut().zip(block.chunks_exact(8)) {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        *flag = u8::from(word & HIGH == HIGH);
    }
    (u64::from_le_bytes(flags).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}
