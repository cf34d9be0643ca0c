//! Finding the bytes that end a JSON string's plain run (a quote, a backslash, a control byte)
//! eight at a time in a `u64` (a leaf). Escape-dense strings end a run every few bytes, where
//! `memchr2` costs more to set up than it saves; a word costs a dozen instructions for 8 bytes,
//! in safe code. The proof reads 64 bytes at a time instead ([`Window`]: `window`, `escapes`,
//! `blocks`, `wide`).

/// `0x01` in every byte.
const ONES: u64 = u64::from_le_bytes([1; 8]);
/// `0x80` in every byte.
const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);

/// A flag (`0x80`) in the byte of `word` that is the first zero byte, and possibly in later
/// ones, but never in an earlier one: a borrow only carries towards higher bytes.
#[inline(always)]
fn zero_flags(word: u64) -> u64 {
    word.wrapping_sub(ONES) & !word & HIGHS
}

/// Flags for the bytes of `word` that are `"`, `\` or below 0x20; exact in the first flagged
/// byte (the lowest: words are read little-endian).
#[inline(always)]
fn special_flags(word: u64) -> u64 {
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    control | quote_flags(word)
}

/// Flags for the bytes of `word` that are `"` or `\`; exact in the first flagged byte.
#[inline(always)]
fn quote_flags(word: u64) -> u64 {
    zero_flags(word ^ (ONES * u64::from(b'"'))) | zero_flags(word ^ (ONES * u64::from(b'\\')))
}

/// The offset of the first byte of `bytes[..limit]` (rounded down to whole words) that `flags`
/// flags, `Err` with the offset where the words stopped if there is none.
#[inline(always)]
fn first_flagged(bytes: &[u8], limit: usize, flags: fn(u64) -> u64) -> Result<usize, usize> {
    let mut at = 0;
    while at < limit {
        let Some(word) = bytes.get(at..at + 8) else {
            break;
        };
        let mut eight = [0u8; 8];
        eight.copy_from_slice(word);
        let found = flags(u64::from_le_bytes(eight));
        if found != 0 {
            return Ok(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    Err(at)
}

/// The offset of the first `"`, `\` or control byte among the first `limit` bytes of `bytes`
/// (whole words only), or `Err` with how far the words read.
pub(super) fn first_special(bytes: &[u8], limit: usize) -> Result<usize, usize> {
    first_flagged(bytes, limit, special_flags)
}

/// The offset of the first `"` or `\` among the first `limit` bytes of `bytes` (whole words
/// only), or `Err` with how far the words read.
pub(super) fn first_quote_or_backslash(bytes: &[u8], limit: usize) -> Result<usize, usize> {
    first_flagged(bytes, limit, quote_flags)
}

/// The length of the leading run of `bytes` without a `"`, `\\` or control byte, for a long
/// one: the quote or backslash found with `memchr2`, the run before it tested for control
/// bytes 64 bytes at a time with a minimum (a loop LLVM vectorizes), so long strings of text
/// cost little more than a copy.
pub(super) fn long_run(bytes: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let end = memchr::memchr2(b'"', b'\\', bytes).unwrap_or(bytes.len());
    let head = &bytes[..end];
    let mut at = 0;
    for block in head.chunks_exact(BLOCK) {
        if block.iter().fold(u8::MAX, |m, &b| m.min(b)) < 0x20 {
            break;
        }
        at += BLOCK;
    }
    at + head[at..]
        .iter()
        .position(|&b| b < 0x20)
        .unwrap_or(head.len() - at)
}

mod blocks;
mod escapes;
mod wide;
mod window;

pub(super) use window::Window;

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    /// What the words must find, byte by byte.
    fn naive(bytes: &[u8], stop: impl Fn(u8) -> bool, limit: usize) -> Result<usize, usize> {
        let words = (bytes.len() / 8 * 8).min(limit.div_ceil(8) * 8);
        (bytes[..words].iter().position(|&b| stop(b))).ok_or(words)
    }

    proptest! {
        /// The first flagged byte is the first special byte, whatever follows it (borrows
        /// carry upwards only), for every byte value.
        #[test]
        fn words_find_what_bytes_find(
            bytes in prop::collection::vec(
                prop_oneof![any::<u8>(), prop::sample::select(b"\"\\\x00\x1f\x20\x21\x7f\x80\xa0\xdc\xff".to_vec())],
                0..80,
            ),
            limit in 0usize..96,
        ) {
            let special = |b: u8| b == b'"' || b == b'\\' || b < 0x20;
            prop_assert_eq!(super::first_special(&bytes, limit), naive(&bytes, special, limit));
            let quote = |b: u8| b == b'"' || b == b'\\';
            prop_assert_eq!(
                super::first_quote_or_backslash(&bytes, limit),
                naive(&bytes, quote, limit)
            );
        }
    }

    /// Every byte value, alone in a word of plain bytes, at every position.
    #[test]
    fn every_byte_at_every_position() {
        for b in 0..=255u8 {
            for at in 0..8 {
                let mut word = *b"abcdefgh";
                word[at] = b;
                let special = b == b'"' || b == b'\\' || b < 0x20;
                let expected = if special { Ok(at) } else { Err(8) };
                assert_eq!(super::first_special(&word, 8), expected, "{b:#04x} at {at}");
            }
        }
    }
}
