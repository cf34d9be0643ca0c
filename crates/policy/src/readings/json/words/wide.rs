//! The block readings of the parent module compiled for wider vectors, chosen at run time:
//! with AVX2, the same loops, inlined into functions compiled with `target_feature(enable =
//! "avx2")`, read a 64-byte block in two 256-bit vectors instead of four 128-bit ones (the
//! portable x86-64 build has only SSE2); with AVX-512 (F, BW), a block is one vector and each
//! compare gives its 64-bit mask directly. One of the crate's uses of `unsafe` (with
//! `checks::wide` and `checks::clean`): calling a function compiled for a feature is sound
//! only on a CPU that has it, which the caller detected (`Window::new`).

#![allow(unsafe_code)]

#[cfg(target_arch = "x86_64")]
use std::borrow::Cow;

use crate::readings::json::words::blocks::{self, Vectors};
#[cfg(target_arch = "x86_64")]
use crate::readings::json::words::escapes::Specials;
use crate::readings::json::words::escapes::{self, Settled};

/// A block as the window reads it (`escapes::read` of [`blocks::block_masks`]) and its
/// triggers, with the vectors `v` (which must be ones the CPU has): compiled whole for them,
/// counts and bit scans included.
#[inline(always)]
pub(super) fn read_block(bytes: &[u8], v: Vectors) -> (Settled, u64) {
    #[cfg(target_arch = "x86_64")]
    match v {
        // SAFETY: `v` only names vectors detected on this CPU (`Window::new`).
        Vectors::Avx512 => return unsafe { read_avx512(bytes) },
        // SAFETY: as above.
        Vectors::Avx2 => return unsafe { read_avx2(bytes) },
        Vectors::Portable => {}
    }
    let _ = v;
    read_portable(bytes)
}

/// [`read_block`] with the portable loops, out of line: their flag arrays would otherwise make
/// the frame of every caller large, on every CPU.
#[inline(never)]
fn read_portable(bytes: &[u8]) -> (Settled, u64) {
    let (specials, triggers) = blocks::block_masks(bytes);
    (escapes::read(bytes, specials), triggers)
}

/// [`read_block`] with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,bmi1")]
fn read_avx2(bytes: &[u8]) -> (Settled, u64) {
    let (specials, triggers) = block_masks_avx2(bytes);
    (escapes::read(bytes, specials), triggers)
}

/// [`read_block`] with AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,popcnt,bmi1")]
fn read_avx512(bytes: &[u8]) -> (Settled, u64) {
    let (specials, triggers) = block_masks_avx512(bytes);
    (escapes::read(bytes, specials), triggers)
}

/// [`blocks::plain_blocks`], with the vectors `v` (which must be ones the CPU has).
#[inline(always)]
pub(super) fn plain_blocks(bytes: &[u8], v: Vectors) -> (usize, bool) {
    #[cfg(target_arch = "x86_64")]
    match v {
        // SAFETY: as in `block_masks`.
        Vectors::Avx512 => return unsafe { plain_blocks_avx512(bytes) },
        // SAFETY: as in `block_masks`.
        Vectors::Avx2 => return unsafe { plain_blocks_avx2(bytes) },
        Vectors::Portable => {}
    }
    let _ = v;
    blocks::plain_blocks(bytes)
}

/// The first 64 bytes of `bytes`; a document's last block of fewer, padded with `/`: no special
/// byte, no trigger, and what may end a dot-segment, as the end of a value does
/// (`blocks::block_masks` reads past the end so), so that the vectors read it as the portable
/// loops do.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn whole(bytes: &[u8]) -> Cow<'_, [u8; 64]> {
    match bytes.first_chunk::<64>() {
        Some(block) => Cow::Borrowed(block),
        None => {
            let mut block = [b'/'; 64];
            block[..bytes.len()].copy_from_slice(bytes);
            Cow::Owned(block)
        }
    }
}

/// The bits of `eq` (a byte compare) over a 64-byte block's two halves.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
fn bits(
    eq: impl Fn(std::arch::x86_64::__m256i) -> std::arch::x86_64::__m256i,
    halves: [std::arch::x86_64::__m256i; 2],
) -> u64 {
    use std::arch::x86_64::_mm256_movemask_epi8;
    let low = _mm256_movemask_epi8(eq(halves[0])) as u32;
    let high = _mm256_movemask_epi8(eq(halves[1])) as u32;
    u64::from(low) | u64::from(high) << 32
}

/// The two 32-byte halves of a 64-byte block.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
fn halves(block: &[u8; 64]) -> [std::arch::x86_64::__m256i; 2] {
    use std::arch::x86_64::_mm256_loadu_si256;
    // SAFETY: `block` is 64 readable bytes, so both halves are 32; `loadu` has no alignment
    // requirement.
    unsafe {
        [
            _mm256_loadu_si256(block.as_ptr().cast()),
            _mm256_loadu_si256(block[32..].as_ptr().cast()),
        ]
    }
}

/// [`blocks::block_masks`] with AVX2: a whole block as two 256-bit vectors, each compared and
/// its mask taken with `vpmovmskb` (a last block of fewer than 64 bytes padded).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
fn block_masks_avx2(bytes: &[u8]) -> (Specials, u64) {
    use std::arch::x86_64::*;
    let block = &*whole(bytes);
    let v = halves(block);
    let k = |b: u8| _mm256_set1_epi8(b as i8);
    let eq = |b: u8| move |x: __m256i| _mm256_cmpeq_epi8(x, k(b));
    let specials = Specials {
        quotes: bits(eq(b'"'), v),
        backslashes: bits(eq(b'\\'), v),
        controls: bits(|x| _mm256_cmpeq_epi8(_mm256_min_epu8(x, k(0x1F)), x), v),
    };
    let dots = bits(eq(b'.'), v);
    if dots == 0 {
        return (specials, bits(eq(b'%'), v));
    }
    let enders = bits(eq(b'/'), v) | specials.backslashes | specials.quotes;
    let next_ends = blocks::ends_segment(bytes.get(64));
    (
        specials,
        blocks::triggers(dots, bits(eq(b'%'), v), enders, next_ends),
    )
}

/// [`blocks::plain_blocks`] with AVX2: per 64-byte block, the special bytes of two vectors
/// ORed and tested at once; the `.` and `%` taken as masks only in a block that has one.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn plain_blocks_avx2(bytes: &[u8]) -> (usize, bool) {
    use std::arch::x86_64::*;
    let k = |b: u8| _mm256_set1_epi8(b as i8);
    let mut at = 0;
    let mut trigger = 0;
    for (n, block) in bytes.chunks_exact(64).enumerate() {
        let block: &[u8; 64] = block.try_into().expect("64 bytes");
        let v = halves(block);
        let mut special = _mm256_setzero_si256();
        let mut dots = _mm256_setzero_si256();
        for x in v {
            let control = _mm256_cmpeq_epi8(_mm256_min_epu8(x, k(0x1F)), x);
            let quotes = _mm256_or_si256(
                _mm256_cmpeq_epi8(x, k(b'"')),
                _mm256_cmpeq_epi8(x, k(b'\\')),
            );
            special = _mm256_or_si256(special, _mm256_or_si256(quotes, control));
            let found =
                _mm256_or_si256(_mm256_cmpeq_epi8(x, k(b'.')), _mm256_cmpeq_epi8(x, k(b'%')));
            dots = _mm256_or_si256(dots, found);
        }
        if _mm256_testz_si256(special, special) == 0 {
            break;
        }
        if _mm256_testz_si256(dots, dots) == 0 {
            let eq = |b: u8| move |x: __m256i| _mm256_cmpeq_epi8(x, k(b));
            let next_ends = blocks::ends_segment(bytes.get(64 * (n + 1)));
            let (dots, percents) = (bits(eq(b'.'), v), bits(eq(b'%'), v));
            trigger |= blocks::triggers(dots, percents, bits(eq(b'/'), v), next_ends);
        }
        at += 64;
    }
    (at, trigger != 0)
}

/// A 64-byte block in one vector, and a mask of its bytes equal to `b` (AVX-512 BW).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn block512(block: &[u8; 64]) -> impl Fn(u8) -> u64 {
    use std::arch::x86_64::*;
    // SAFETY: `block` is 64 readable bytes; `loadu` has no alignment requirement.
    let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
    move |b: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b as i8))
}

/// The special bytes (`"`, `\`, controls) of a 64-byte block, as one mask (AVX-512 BW).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn specials512(block: &[u8; 64]) -> u64 {
    use std::arch::x86_64::*;
    // SAFETY: as in `block512`.
    let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
    let eq = |b: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b as i8));
    eq(b'"') | eq(b'\\') | _mm512_cmple_epu8_mask(v, _mm512_set1_epi8(0x1F))
}

/// [`blocks::block_masks`] with AVX-512: a whole block as one vector, each compare a mask (a
/// last block of fewer than 64 bytes padded).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn block_masks_avx512(bytes: &[u8]) -> (Specials, u64) {
    use std::arch::x86_64::*;
    let block = &*whole(bytes);
    let eq = block512(block);
    // SAFETY: as in `block512`.
    let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
    let specials = Specials {
        quotes: eq(b'"'),
        backslashes: eq(b'\\'),
        controls: _mm512_cmple_epu8_mask(v, _mm512_set1_epi8(0x1F)),
    };
    let (dots, percents) = (eq(b'.'), eq(b'%'));
    if dots == 0 {
        return (specials, percents);
    }
    let enders = eq(b'/') | specials.backslashes | specials.quotes;
    let next_ends = blocks::ends_segment(bytes.get(64));
    (
        specials,
        blocks::triggers(dots, percents, enders, next_ends),
    )
}

/// [`blocks::plain_blocks`] with AVX-512: per 64-byte block, the special bytes as one mask;
/// the `.` and `%` as masks, and the `/` only in a block that has one of them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn plain_blocks_avx512(bytes: &[u8]) -> (usize, bool) {
    let mut at = 0;
    let mut trigger = 0;
    for (n, block) in bytes.chunks_exact(64).enumerate() {
        let block: &[u8; 64] = block.try_into().expect("64 bytes");
        if specials512(block) != 0 {
            break;
        }
        let eq = block512(block);
        let (dots, percents) = (eq(b'.'), eq(b'%'));
        if dots | percents != 0 {
            let next_ends = blocks::ends_segment(bytes.get(64 * (n + 1)));
            trigger |= blocks::triggers(dots, percents, eq(b'/'), next_ends);
        }
        at += 64;
    }
    (at, trigger != 0)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// The AVX2 and AVX-512 builds (those the CPU has) read what the portable one reads,
        /// for every kind of byte.
        #[test]
        fn both_builds_agree(
            bytes in prop::collection::vec(
                prop_oneof![
                    16 => Just(b'a'),
                    1 => prop::sample::select(b"\"\\\x00\x1f\x20\x7f\x80\xff.%/".to_vec()),
                ],
                0..700,
            ),
        ) {
            use super::blocks::Vectors;
            // Every build this CPU can run.
            let builds: &[Vectors] = match Vectors::detect() {
                Vectors::Avx512 => &[Vectors::Avx2, Vectors::Avx512],
                Vectors::Avx2 => &[Vectors::Avx2],
                Vectors::Portable => &[],
            };
            for &v in builds {
                prop_assert_eq!(super::read_block(&bytes, v), super::read_block(&bytes, Vectors::Portable));
                prop_assert_eq!(super::plain_blocks(&bytes, v), super::blocks::plain_blocks(&bytes));
            }
        }
    }
}
