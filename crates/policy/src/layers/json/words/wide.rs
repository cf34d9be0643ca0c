//! The block readings of the parent module compiled a second time for AVX2, chosen at run
//! time: the same loops, inlined into functions compiled with `target_feature(enable =
//! "avx2")`, read a 64-byte block in two 256-bit vectors instead of four 128-bit ones (the
//! portable x86-64 build has only SSE2). One of the crate's uses of `unsafe` (with
//! `checks::wide` and `checks::clean`): calling a function compiled for a feature is sound
//! only on a CPU that has it, which the caller detected (`Specials::new`).

#![allow(unsafe_code)]

/// [`super::block_masks`], with AVX2 when `avx2` (which must say the CPU has it).
#[inline(always)]
pub(super) fn block_masks(bytes: &[u8], avx2: bool) -> (u64, u64) {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: `avx2` is only true when AVX2 was detected on this CPU (`Specials::new`).
        return unsafe { block_masks_avx2(bytes) };
    }
    let _ = avx2;
    super::block_masks(bytes)
}

/// [`super::plain_blocks`], with AVX2 when `avx2` (which must say the CPU has it).
#[inline(always)]
pub(super) fn plain_blocks(bytes: &[u8], avx2: bool) -> (usize, bool) {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: as in `block_masks`.
        return unsafe { plain_blocks_avx2(bytes) };
    }
    let _ = avx2;
    super::plain_blocks(bytes)
}

/// [`super::block_masks`] with AVX2: a whole block as two 256-bit vectors, each compared and
/// its mask taken with `vpmovmskb` (the portable loop, compiled for AVX2, for a last block of
/// fewer than 64 bytes).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn block_masks_avx2(bytes: &[u8]) -> (u64, u64) {
    use std::arch::x86_64::*;
    let Some(block) = bytes.first_chunk::<64>() else {
        return super::block_masks(bytes);
    };
    let masks = |half: &[u8; 32]| {
        // SAFETY: `half` is 32 readable bytes; `loadu` has no alignment requirement.
        let v = unsafe { _mm256_loadu_si256(half.as_ptr().cast()) };
        let eq = |k: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(k as i8));
        let control = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1F)), v);
        let special = _mm256_or_si256(_mm256_or_si256(eq(b'"'), eq(b'\\')), control);
        let trigger = _mm256_or_si256(eq(b'.'), eq(b'%'));
        (
            u64::from(_mm256_movemask_epi8(special) as u32),
            u64::from(_mm256_movemask_epi8(trigger) as u32),
        )
    };
    let (low, high) = block.split_at(32);
    let (s0, t0) = masks(low.try_into().expect("32 bytes"));
    let (s1, t1) = masks(high.try_into().expect("32 bytes"));
    (s0 | s1 << 32, t0 | t1 << 32)
}

/// [`super::plain_blocks`] with AVX2: per 64-byte block, the special bytes of two vectors
/// ORed and tested at once; the `.` and `%` ORed into one vector tested at the end.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn plain_blocks_avx2(bytes: &[u8]) -> (usize, bool) {
    use std::arch::x86_64::*;
    let (quote, backslash) = (_mm256_set1_epi8(b'"' as i8), _mm256_set1_epi8(b'\\' as i8));
    let (dot, percent) = (_mm256_set1_epi8(b'.' as i8), _mm256_set1_epi8(b'%' as i8));
    let below = _mm256_set1_epi8(0x1F);
    let mut triggers = _mm256_setzero_si256();
    let mut at = 0;
    for block in bytes.chunks_exact(64) {
        let mut special = _mm256_setzero_si256();
        let mut dots = _mm256_setzero_si256();
        for half in block.chunks_exact(32) {
            // SAFETY: `half` is 32 readable bytes; `loadu` has no alignment requirement.
            let v = unsafe { _mm256_loadu_si256(half.as_ptr().cast()) };
            let control = _mm256_cmpeq_epi8(_mm256_min_epu8(v, below), v);
            let quotes =
                _mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, backslash));
            special = _mm256_or_si256(special, _mm256_or_si256(quotes, control));
            let found = _mm256_or_si256(_mm256_cmpeq_epi8(v, dot), _mm256_cmpeq_epi8(v, percent));
            dots = _mm256_or_si256(dots, found);
        }
        if _mm256_testz_si256(special, special) == 0 {
            break;
        }
        triggers = _mm256_or_si256(triggers, dots);
        at += 64;
    }
    (at, _mm256_testz_si256(triggers, triggers) == 0)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// The AVX2 build reads what the portable one reads, for every kind of byte.
        #[test]
        fn both_builds_agree(
            bytes in prop::collection::vec(
                prop_oneof![
                    16 => Just(b'a'),
                    1 => prop::sample::select(b"\"\\\x00\x1f\x20\x7f\x80\xff.%".to_vec()),
                ],
                0..700,
            ),
        ) {
            let avx2 = super::super::has_avx2();
            prop_assert_eq!(super::block_masks(&bytes, avx2), super::super::block_masks(&bytes));
            prop_assert_eq!(super::plain_blocks(&bytes, avx2), super::super::plain_blocks(&bytes));
        }
    }
}
