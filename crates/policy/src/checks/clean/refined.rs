//! The refined test of the clean-text classifier (a leaf): which coarse candidates are clean
//! after all, by their lead byte and the next two bytes. `const`, so that the lookup tables of
//! the AVX-512 build (`super::avx512`) are worked out from this very test at compile time.

use super::classes::{Context, FULL_WIDTH_HI, FULL_WIDTH_LO};

/// `lo <= b <= hi`.
#[inline(always)]
const fn in_range(b: u8, lo: u8, hi: u8) -> bool {
    b.wrapping_sub(lo) <= hi - lo
}

/// Whether the character starting with `b0 b1 b2` (a coarse candidate) is clean after all.
#[inline(always)]
pub(crate) const fn refined_clean(b0: u8, b1: u8, b2: u8, cx: Context) -> bool {
    let latin1 = (b0 == 0xC2) & (b1 >= 0xA0) & !matches!(b1, 0xA5 | 0xAB | 0xAD | 0xBB);
    let greek = ((b0 == 0xCE) & (b1 != 0x87)) | (b0 == 0xCF);
    let punctuation = (b0 == 0xE2)
        & (((b1 == 0x80) & (in_range(b2, 0x82, 0x8F) | typographic(b2, cx.best_fit)))
            | (in_range(b1, 0x85, 0xAA) & (b1 != 0x88) & (b1 != 0x8C)));
    let kana = (b0 == 0xE3)
        & !(((b1 == 0x80) & in_range(b2, 0xAA, 0xAF)) | ((b1 == 0x82) & in_range(b2, 0x99, 0x9A)));
    let hangul = (b0 == 0xEA) & (b1 >= 0xB0);
    let lookalike = FULL_WIDTH_HI[(b2 >> 4) as usize]
        & FULL_WIDTH_LO[cx.best_fit as usize][(b2 & 15) as usize]
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
const fn typographic(b2: u8, best_fit: bool) -> bool {
    in_range(b2, 0x92, 0x97) | (in_range(b2, 0x98, 0x9F) & !best_fit) | in_range(b2, 0xA0, 0xA2)
}

/// Whether `b0 b1` are an Arabic letter (U+0620..U+063F, U+0641..U+064A, U+066E..U+066F,
/// U+0671..U+06D3, U+06D5, U+06EE..U+06EF, U+06FA..U+06FC, U+06FF): not the marks, digits,
/// punctuation, format characters (U+061C is a bidi control) or tatweel around them.
#[inline(always)]
const fn arabic_letter(b0: u8, b1: u8) -> bool {
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
const fn best_fit_block(b0: u8, b1: u8, b2: u8) -> bool {
    ((b0 == 0xE2) & matches!(b1, 0x91 | 0x92 | 0xA9))
        | ((b0 == 0xE3) & matches!(b1, 0x88 | 0x89 | 0x8F))
        | ((b0 == 0xF0) & (b1 == 0x9F) & (b2 == 0x84))
}
