//! The two-byte pass of the parent module with AVX2: text made only of ASCII and two-byte
//! characters proven valid UTF-8 in about half the work of the codec's full validation. Only
//! called after AVX2 was detected.

use std::arch::x86_64::*;

use super::avx2::{load, splat};

/// Whether `bytes` are valid UTF-8 made only of ASCII and two-byte characters: every byte is
/// ASCII, a lead byte `C2`–`DF` or a continuation byte; a byte is a continuation byte exactly
/// when the byte before it is such a lead byte (none before the first); the last byte is no
/// lead byte. 32 bytes at a time against the same bytes read one earlier; gives up at the first
/// 128-byte step with another byte.
#[target_feature(enable = "avx2")]
pub(super) fn is_two_byte_utf8(bytes: &[u8]) -> bool {
    let c0 = splat(0xC0);
    let c2 = splat(0xC2);
    let span = splat(0xDF - 0xC2);
    let lead = |v: __m256i| {
        let d = _mm256_sub_epi8(v, c2);
        _mm256_cmpeq_epi8(_mm256_min_epu8(d, span), d)
    };
    // Bad bytes of the block `v` whose previous bytes are `p`.
    let bad = |v: __m256i, p: __m256i| {
        // Signed, continuation bytes 0x80..=0xBF are the ones below -64 (0xC0).
        let continuation = _mm256_cmpgt_epi8(c0, v);
        let misplaced = _mm256_xor_si256(continuation, lead(p));
        let high = _mm256_cmpeq_epi8(_mm256_max_epu8(v, c0), v);
        _mm256_or_si256(misplaced, _mm256_andnot_si256(lead(v), high))
    };
    if bytes.last().is_some_and(|&b| b >= 0xC0) {
        return false;
    }
    // The first block, after a virtual ASCII byte, and whatever is shorter than one.
    let mut head = [0u8; 33];
    let n = bytes.len().min(32);
    head[1..=n].copy_from_slice(&bytes[..n]);
    let mut acc = bad(load(&head, 1), load(&head, 0));
    if n < 32 {
        // Bytes past the end are zeros (ASCII), after a last byte that is no lead byte.
        return _mm256_testz_si256(acc, acc) != 0;
    }
    let mut i = 32;
    while i + 128 <= bytes.len() {
        let step: &[u8; 129] = bytes[i - 1..i + 128].try_into().expect("a whole step");
        for k in [0, 32, 64, 96] {
            acc = _mm256_or_si256(acc, bad(load(step, k + 1), load(step, k)));
        }
        if _mm256_testz_si256(acc, acc) == 0 {
            return false;
        }
        i += 128;
    }
    // The rest, padded with zeros after the last byte (no lead byte).
    let mut tail = [0u8; 129];
    let rest = &bytes[i - 1..];
    tail[..rest.len()].copy_from_slice(rest);
    let mut k = 0;
    while k + 1 < rest.len() {
        acc = _mm256_or_si256(acc, bad(load(&tail, k + 1), load(&tail, k)));
        k += 32;
    }
    _mm256_testz_si256(acc, acc) != 0
}
