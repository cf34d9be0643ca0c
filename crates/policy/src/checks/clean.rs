//! The fused clean-text classifier: one pass over a valid run's bytes that proves characters
//! *clean*, so that only the stretches around the others take the per-check path
//! ([`super::segmented`]).
//!
//! A character is **clean** when no check can say anything about it: it is inert for NFC
//! (`NFC_Quick_Check=Yes`, canonical combining class 0, see [`super::nfc`]), adds no leading
//! non-starter in the stream-safe count, and is not a control, bidi control, noncharacter,
//! U+FEFF or lookalike of either table (for the one in use, [`Context::best_fit`]). A byte is a
//! **candidate** when it starts a character this module does not prove clean; continuation
//! bytes never are. The proof reads the lead byte and, for a few leads, the next two bytes:
//!
//! 1. **Coarse**: the lead byte alone, as two 16-entry tables indexed by its high and low nibble
//!    whose AND is non-zero for a candidate ([`COARSE_HI`], [`COARSE_LO`]): ASCII controls but
//!    TAB, LF and CR in text content, DEL, and every lead byte but Latin `C3`–`C9`, Cyrillic
//!    `D0`–`D1`, Han `E4`–`E9` and Hangul `EB`–`ED`.
//! 2. **Refined** ([`refined_clean`]), only for blocks the coarse test flags: clears the clean
//!    parts of the leads `C2` (Latin-1 above U+00A0), `CE`/`CF` (Greek), `E2` (spaces, ZWJ, ZWNJ,
//!    LRM, RLM, dashes, curly quotes, arrows, symbols, dingbats), `E3` (CJK punctuation, kana), `EA` (Hangul),
//!    `EF` (variation selectors, full-width forms that are not lookalikes), `F0` (emoji and
//!    CJK extensions U+1F000..U+2EFFF), `F3` (tags U+E0000..U+E0FFF) and `D8`–`DB` (Arabic
//!    letters, not its marks, digits, punctuation or format characters); with the best-fit
//!    table, a few blocks of those (enclosed and parenthesized forms) hold lookalikes and are
//!    left candidates.
//!
//! A test checks every scalar value the classifier calls clean against the checks' own
//! definitions ([`refined_clean`] is in the leaf `refined`). Three builds compute the same
//! bytes, the fastest the CPU has chosen at run time:
//! * **AVX-512** ([`avx512`], F, BW and VBMI, 64 bytes at a time): the coarse test as below,
//!   the refined one as seven lookups in 64-entry tables (`vpermi2b`, `vpermb`) worked out
//!   from [`refined_clean`] at compile time: the same few instructions per block whatever
//!   scripts it mixes (about 3× the AVX2 build on CJK text, `docs/BENCHMARKS.md`). Exact on
//!   valid UTF-8, which is what it is given.
//! * **AVX2** ([`avx2`]): 32 bytes at a time with nibble lookups (`vpshufb`), 128 bytes per
//!   step, the refined tests of a step as byte comparisons computed only for the lead families
//!   (and the leads `E2`, `E3`, `EF`) the step has. Exact on any bytes. The WebAssembly
//!   `simd128` build is the same 16 bytes at a time; the two share the refined
//!   tests of the leads below `EF` ([`leads`], one macro over their lane operations).
//! * **Portable**: the scalar test on each byte, the reference both are tested against, and
//!   about 12× slower than AVX2, so without AVX2 the checks do not use the classifier
//!   ([`is_vectorized`]) and take the per-check path.
//!
//! [`two_byte_text`] is a second AVX2 pass (`two_byte_avx2`), for validation: text made only
//! of ASCII and two-byte characters is proven valid UTF-8 with about half the work of the
//! codec's full validation, which other text still takes.
//!
//! This module is one of the crate's uses of `unsafe` (with `super::wide` and the JSON proof's
//! block reading): calling the AVX2 and AVX-512 functions, sound once their features are
//! detected, unaligned 32- and 64-byte loads from slices that hold them, and
//! `from_utf8_unchecked` on what the two-byte pass proved valid. The AVX2 classifier makes the
//! clean path of `evaluate` 10–13× faster than the byte loop (docs/BENCHMARKS.md).

#![allow(unsafe_code)]

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(all(test, target_arch = "x86_64"))]
mod avx512_tests;
mod classes;
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
mod leads;
mod refined;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;
#[cfg(test)]
mod tests;
#[cfg(target_arch = "x86_64")]
mod two_byte_avx2;
#[cfg(test)]
mod two_byte_tests;

pub(crate) use classes::{Context, coarse};
pub(crate) use refined::refined_clean;

/// Whether the byte `b0`, followed by `b1 b2`, is a candidate.
#[inline(always)]
pub(crate) fn is_candidate(b0: u8, b1: u8, b2: u8, cx: Context) -> bool {
    coarse(b0, cx) && !refined_clean(b0, b1, b2, cx)
}

/// The candidate test at `i` of `bytes`, zeros past the end.
#[inline(always)]
fn candidate_at(bytes: &[u8], i: usize, cx: Context) -> bool {
    let at = |k: usize| bytes.get(i + k).copied().unwrap_or(0);
    is_candidate(bytes[i], at(1), at(2), cx)
}

/// The first candidate at or after `from`, one byte at a time (the portable build, and the
/// reference of the AVX2 one).
pub(crate) fn first_candidate_portable(bytes: &[u8], from: usize, cx: Context) -> Option<usize> {
    (from..bytes.len()).find(|&i| candidate_at(bytes, i, cx))
}

/// Whether the classifier has its vector build on this CPU (AVX2), or in this build (Wasm with
/// `simd128`). Without it the checks take the per-check path: the portable classifier, a byte
/// loop, is slower than the per-check scans, which LLVM vectorizes for the baseline target.
#[inline]
pub(crate) fn is_vectorized() -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return true;
    }
    cfg!(all(target_arch = "wasm32", target_feature = "simd128"))
}

/// The offset of the first candidate at or after `from` in `bytes` (valid UTF-8; `from` a char
/// boundary). Everything in `from..` before it is clean.
#[inline]
pub(crate) fn first_candidate(bytes: &[u8], from: usize, cx: Context) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if avx512::is_detected() {
        // SAFETY: calling a function compiled for AVX-512 F, BW and VBMI is sound on a CPU
        // that has them, which was detected just above.
        return unsafe { avx512::first_candidate(bytes, from, cx) };
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: calling a function compiled for AVX2 is sound on a CPU that has it, which
        // was detected just above.
        return unsafe { avx2::first_candidate(bytes, from, cx) };
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return simd128::first_candidate(bytes, from, cx);
    #[allow(unreachable_code)]
    first_candidate_portable(bytes, from, cx)
}

/// Whether `bytes` (any bytes) are all ASCII and hold no candidate: then they are valid UTF-8
/// and no character check finds anything in them.
#[inline]
pub(crate) fn is_clean_ascii(bytes: &[u8], cx: Context) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: as in `first_candidate`, AVX2 was detected just above.
        return unsafe { avx2::is_clean_ascii(bytes, cx) };
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return simd128::is_clean_ascii(bytes, cx);
    #[allow(unreachable_code)]
    bytes.iter().all(|&b| b < 0x80 && !coarse(b, cx))
}

/// `bytes` as text when they are made only of ASCII and two-byte characters (Latin, Greek,
/// Cyrillic, Hebrew, Arabic...) and are valid UTF-8, as one AVX2 pass proves; `None` when they
/// are not, or the pass cannot tell (other characters, no AVX2), for the codec's validation to
/// decide. On such text this pass is about half the work of the full validation.
#[inline]
pub(crate) fn two_byte_text(bytes: &[u8]) -> Option<&str> {
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: as in `first_candidate`, AVX2 was detected just above.
        if unsafe { two_byte_avx2::is_two_byte_utf8(bytes) } {
            // SAFETY: `is_two_byte_utf8` returned true, so `bytes` hold only ASCII, lead bytes
            // `C2`–`DF` and continuation bytes, every continuation byte follows a lead byte,
            // every lead byte is followed by a continuation byte and the last byte is no lead
            // byte: a sequence of one-byte and well-formed two-byte characters, which is valid
            // UTF-8 (tests compare it with `core::str::from_utf8`).
            return Some(unsafe { core::str::from_utf8_unchecked(bytes) });
        }
    }
    None
}

/// The start of the first clean character at or after `from` (a char boundary of valid UTF-8
/// `bytes`), or the end.
pub(crate) fn next_clean(bytes: &[u8], from: usize, cx: Context) -> usize {
    (from..bytes.len())
        .find(|&i| (bytes[i] & 0xC0 != 0x80) && !candidate_at(bytes, i, cx))
        .unwrap_or(bytes.len())
}
