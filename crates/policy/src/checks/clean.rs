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
//! definitions. The AVX2 build ([`avx2`]) computes the same bytes 32 at a time with nibble
//! lookups (`vpshufb`), 128 bytes per step, and computes the refined tests of a step only for
//! the lead families (and the leads `E2`, `E3`, `EF`) the step has. The portable build calls
//! the scalar test on each byte: it is the reference the AVX2 build is tested against, and
//! about 12× slower, so without AVX2 the checks do not use the classifier
//! ([`is_vectorized`]) and take the per-check path.
//!
//! [`two_byte_text`] is a second AVX2 pass, for validation: text made only of ASCII and
//! two-byte characters is proven valid UTF-8 with about half the work of the codec's full
//! validation, which other text still takes.
//!
//! This module is one of the crate's two uses of `unsafe` (with `super::wide`): calling the
//! AVX2 functions, sound once AVX2 is detected, unaligned 32-byte loads from slices of at
//! least 32 bytes, and `from_utf8_unchecked` on what the two-byte pass proved valid. The AVX2 classifier makes the clean path of `evaluate` 10–13× faster than
//! the byte loop (docs/BENCHMARKS.md).

#![allow(unsafe_code)]

#[cfg(target_arch = "x86_64")]
mod avx2;
mod classes;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod two_byte_tests;

pub(crate) use classes::{Context, FULL_WIDTH_HI, FULL_WIDTH_LO, coarse};

/// `lo <= b <= hi`.
#[inline(always)]
const fn in_range(b: u8, lo: u8, hi: u8) -> bool {
    b.wrapping_sub(lo) <= hi - lo
}

/// Whether the character starting with `b0 b1 b2` (a coarse candidate) is clean after all.
#[inline(always)]
pub(crate) fn refined_clean(b0: u8, b1: u8, b2: u8, cx: Context) -> bool {
    let latin1 = (b0 == 0xC2) & (b1 >= 0xA0) & !matches!(b1, 0xA5 | 0xAB | 0xAD | 0xBB);
    let greek = ((b0 == 0xCE) & (b1 != 0x87)) | (b0 == 0xCF);
    let punctuation = (b0 == 0xE2)
        & (((b1 == 0x80) & (in_range(b2, 0x82, 0x8F) | typographic(b2, cx.best_fit)))
            | (in_range(b1, 0x85, 0xAA) & (b1 != 0x88) & (b1 != 0x8C)));
    let kana = (b0 == 0xE3)
        & !(((b1 == 0x80) & in_range(b2, 0xAA, 0xAF)) | ((b1 == 0x82) & in_range(b2, 0x99, 0x9A)));
    let hangul = (b0 == 0xEA) & (b1 >= 0xB0);
    let lookalike = FULL_WIDTH_HI[usize::from(b2 >> 4)]
        & FULL_WIDTH_LO[usize::from(cx.best_fit)][usize::from(b2 & 15)]
        != 0;
    let forms =
        (b0 == 0xEF) & (((b1 == 0xB8) & (b2 <= 0x8F)) | (in_range(b1, 0xBC, 0xBD) & !lookalike));
    let astral = (b0 == 0xF0) & in_range(b1, 0x9F, 0xAE) & !((b1 == 0x9F) & (b2 == 0xBF));
    let tags = (b0 == 0xF3) & (b1 == 0xA0);
    // Behind a branch: on text of other scripts it is two instructions, not a dozen.
    let arabic = in_range(b0, 0xD8, 0xDB) && arabic_letter(b0, b1);
    let clean = latin1 | greek | punctuation | kana | hangul | forms | astral | tags | arabic;
    // Tested apart (and only with best fit), so that the default's scalar test, which
    // `next_clean` runs on every byte of a segment, costs nothing more.
    clean && !(cx.best_fit && best_fit_block(b0, b1, b2))
}

/// Whether `E2 80 b2` is typographic punctuation of prose: the figure, en and em dashes and
/// the other dashes (U+2012..U+2017), the curly quotes (U+2018..U+201F, lookalikes of `'` and
/// `"` in the best-fit table only) and dagger, double dagger and bullet (U+2020..U+2022). Not
/// the hyphens U+2010 and U+2011 (lookalikes of `-`) nor the leaders after them (U+2024,
/// U+2025 read as `.` and `..` once folded).
#[inline(always)]
fn typographic(b2: u8, best_fit: bool) -> bool {
    in_range(b2, 0x92, 0x97) | (in_range(b2, 0x98, 0x9F) & !best_fit) | in_range(b2, 0xA0, 0xA2)
}

/// Whether `b0 b1` are an Arabic letter (U+0620..U+063F, U+0641..U+064A, U+066E..U+066F,
/// U+0671..U+06D3, U+06D5, U+06EE..U+06EF, U+06FA..U+06FC, U+06FF): not the marks, digits,
/// punctuation, format characters (U+061C is a bidi control) or tatweel around them.
#[inline(always)]
fn arabic_letter(b0: u8, b1: u8) -> bool {
    ((b0 == 0xD8) & (b1 >= 0xA0))
        | ((b0 == 0xD9) & (in_range(b1, 0x81, 0x8A) | in_range(b1, 0xAE, 0xAF) | (b1 >= 0xB1)))
        | (b0 == 0xDA)
        | ((b0 == 0xDB)
            & (in_range(b1, 0x80, 0x93)
                | (b1 == 0x95)
                | in_range(b1, 0xAE, 0xAF)
                | in_range(b1, 0xBA, 0xBC)
                | (b1 == 0xBF)))
}

/// The blocks the refined test calls clean but that hold lookalikes of the best-fit table:
/// parenthesized and dotted numbers and letters (U+2474..U+24B5, `E2 91`, `E2 92`), `::=` and
/// `==` (U+2A74..U+2A76, `E2 A9`), parenthesized Hangul and ideographs (U+3200..U+3243,
/// `E3 88`, `E3 89`), `a.m.` and friends (U+33C2, U+33C7, U+33D8, `E3 8F`), digits with a stop
/// or comma and parenthesized capitals (U+1F100..U+1F12A, `F0 9F 84`).
#[inline(always)]
fn best_fit_block(b0: u8, b1: u8, b2: u8) -> bool {
    ((b0 == 0xE2) & matches!(b1, 0x91 | 0x92 | 0xA9))
        | ((b0 == 0xE3) & matches!(b1, 0x88 | 0x89 | 0x8F))
        | ((b0 == 0xF0) & (b1 == 0x9F) & (b2 == 0x84))
}

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

/// Whether the classifier has its vector build on this CPU (AVX2). Without it the checks take
/// the per-check path: the portable classifier, a byte loop, is slower than the per-check
/// scans, which LLVM vectorizes for the baseline target.
#[inline]
pub(crate) fn is_vectorized() -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return true;
    }
    false
}

/// The offset of the first candidate at or after `from` in `bytes` (valid UTF-8; `from` a char
/// boundary). Everything in `from..` before it is clean.
#[inline]
pub(crate) fn first_candidate(bytes: &[u8], from: usize, cx: Context) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: calling a function compiled for AVX2 is sound on a CPU that has it, which
        // was detected just above.
        return unsafe { avx2::first_candidate(bytes, from, cx) };
    }
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
    bytes.iter().all(|&b| b < 0x80 && !coarse(b, cx))
}

/// `bytes` as text when they are made only of ASCII and two-byte characters (Latin, Greek,
/// Cyrillic, Hebrew, Arabic...) and are valid UTF-8, as one AVX2 pass proves; `None` when they
/// are not, or the pass cannot tell (other characters, no AVX2), for the codec's validation to
/// decide. On such text this pass is about half the work of the full validation.
#[inline]
pub(crate) fn two_byte_text(bytes: &[u8]) -> Option<&str> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: as in `first_candidate`, AVX2 was detected just above.
        if unsafe { avx2::is_two_byte_utf8(bytes) } {
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
