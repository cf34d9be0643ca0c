//! The classifier of the parent module, 32 bytes at a time with AVX2: the coarse test as two
//! nibble lookups (`vpshufb`) ANDed, the refined one as byte comparisons on the block and the
//! same block read one and two bytes later. Only called after AVX2 was detected.

use std::arch::x86_64::*;

use super::{COARSE_HI, COARSE_LO, Context, FULL_WIDTH_HI, FULL_WIDTH_LO};

/// Bytes classified per step of the main loops.
const STEP: usize = 64;

/// A 16-byte table in both 128-bit lanes (for `vpshufb`).
#[inline]
#[target_feature(enable = "avx2")]
fn table(t: &[u8; 16]) -> __m256i {
    let b = |k: usize| t[k] as i8;
    _mm256_setr_epi8(
        b(0),
        b(1),
        b(2),
        b(3),
        b(4),
        b(5),
        b(6),
        b(7),
        b(8),
        b(9),
        b(10),
        b(11),
        b(12),
        b(13),
        b(14),
        b(15),
        b(0),
        b(1),
        b(2),
        b(3),
        b(4),
        b(5),
        b(6),
        b(7),
        b(8),
        b(9),
        b(10),
        b(11),
        b(12),
        b(13),
        b(14),
        b(15),
    )
}

/// `k` in every byte.
#[inline]
#[target_feature(enable = "avx2")]
fn splat(k: u8) -> __m256i {
    _mm256_set1_epi8(k as i8)
}

/// The 32 bytes at `at` (`at + 32 <= bytes.len()`).
#[inline]
#[target_feature(enable = "avx2")]
fn load(bytes: &[u8], at: usize) -> __m256i {
    let block: &[u8; 32] = bytes[at..at + 32].try_into().expect("32 bytes");
    // SAFETY: `block` is 32 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(block.as_ptr().cast()) }
}

/// The lookups both tests use.
struct Tables {
    coarse_hi: __m256i,
    coarse_lo: __m256i,
    wide_hi: __m256i,
    wide_lo: __m256i,
    nibble: __m256i,
}

impl Tables {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new(cx: Context) -> Tables {
        Tables {
            coarse_hi: table(&COARSE_HI),
            coarse_lo: table(&COARSE_LO[usize::from(cx.text_content)]),
            wide_hi: table(&FULL_WIDTH_HI),
            wide_lo: table(&FULL_WIDTH_LO[usize::from(cx.best_fit)]),
            nibble: splat(0x0F),
        }
    }

    /// Non-zero bytes where `v` has a coarse candidate.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn coarse(&self, v: __m256i) -> __m256i {
        let hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), self.nibble);
        let lo = _mm256_and_si256(v, self.nibble);
        _mm256_and_si256(
            _mm256_shuffle_epi8(self.coarse_hi, hi),
            _mm256_shuffle_epi8(self.coarse_lo, lo),
        )
    }

    /// Bit mask of the candidates among the 32 bytes at `at` whose coarse classes are `c`
    /// (`at + 34 <= bytes.len()`).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn candidates(&self, bytes: &[u8], at: usize, c: __m256i) -> u32 {
        let (b0, b1, b2) = (load(bytes, at), load(bytes, at + 1), load(bytes, at + 2));
        let eq = |v: __m256i, k: u8| _mm256_cmpeq_epi8(v, splat(k));
        let ge = |v: __m256i, k: u8| _mm256_cmpeq_epi8(_mm256_max_epu8(v, splat(k)), v);
        let le = |v: __m256i, k: u8| _mm256_cmpeq_epi8(_mm256_min_epu8(v, splat(k)), v);
        let within = |v: __m256i, lo: u8, hi: u8| le(_mm256_sub_epi8(v, splat(lo)), hi - lo);
        let and = |a: __m256i, b: __m256i| _mm256_and_si256(a, b);
        let or = |a: __m256i, b: __m256i| _mm256_or_si256(a, b);
        let andnot = |a: __m256i, b: __m256i| _mm256_andnot_si256(a, b); // b & !a
        let b1_80 = eq(b1, 0x80);
        let latin1 = andnot(
            or(
                or(eq(b1, 0xA5), eq(b1, 0xAB)),
                or(eq(b1, 0xAD), eq(b1, 0xBB)),
            ),
            and(eq(b0, 0xC2), ge(b1, 0xA0)),
        );
        let greek = or(andnot(eq(b1, 0x87), eq(b0, 0xCE)), eq(b0, 0xCF));
        let symbols = andnot(or(eq(b1, 0x88), eq(b1, 0x8C)), within(b1, 0x85, 0xAA));
        let punctuation = and(
            eq(b0, 0xE2),
            or(and(b1_80, within(b2, 0x82, 0x8F)), symbols),
        );
        let marks = or(
            and(b1_80, within(b2, 0xAA, 0xAF)),
            and(eq(b1, 0x82), within(b2, 0x99, 0x9A)),
        );
        let kana = andnot(marks, eq(b0, 0xE3));
        let hangul = and(eq(b0, 0xEA), ge(b1, 0xB0));
        let hi2 = _mm256_and_si256(_mm256_srli_epi16(b2, 4), self.nibble);
        let lo2 = _mm256_and_si256(b2, self.nibble);
        let lookalike = _mm256_and_si256(
            _mm256_shuffle_epi8(self.wide_hi, hi2),
            _mm256_shuffle_epi8(self.wide_lo, lo2),
        );
        let not_lookalike = _mm256_cmpeq_epi8(lookalike, _mm256_setzero_si256());
        let forms = and(
            eq(b0, 0xEF),
            or(
                and(eq(b1, 0xB8), le(b2, 0x8F)),
                and(within(b1, 0xBC, 0xBD), not_lookalike),
            ),
        );
        let astral = and(
            and(eq(b0, 0xF0), within(b1, 0x9F, 0xAE)),
            _mm256_xor_si256(and(eq(b1, 0x9F), eq(b2, 0xBF)), splat(0xFF)),
        );
        let tags = and(eq(b0, 0xF3), eq(b1, 0xA0));
        let clean = or(
            or(or(latin1, greek), or(punctuation, kana)),
            or(or(hangul, forms), or(astral, tags)),
        );
        let coarse = !(_mm256_movemask_epi8(_mm256_cmpeq_epi8(c, _mm256_setzero_si256())) as u32);
        coarse & !(_mm256_movemask_epi8(clean) as u32)
    }
}

/// [`super::first_candidate`] with AVX2.
#[target_feature(enable = "avx2")]
pub(super) fn first_candidate(bytes: &[u8], from: usize, cx: Context) -> Option<usize> {
    let t = Tables::new(cx);
    let mut i = from;
    // Whole steps while the refined test can read two bytes past them.
    while i + STEP + 2 <= bytes.len() {
        let (c0, c1) = (t.coarse(load(bytes, i)), t.coarse(load(bytes, i + 32)));
        if _mm256_testz_si256(_mm256_or_si256(c0, c1), _mm256_or_si256(c0, c1)) == 0 {
            for (k, c) in [(0, c0), (32, c1)] {
                let m = t.candidates(bytes, i + k, c);
                if m != 0 {
                    return Some(i + k + m.trailing_zeros() as usize);
                }
            }
        }
        i += STEP;
    }
    // The rest (at most `STEP + 1` bytes), padded with zeros (past the end, candidates are
    // masked off).
    let rest = &bytes[i.min(bytes.len())..];
    let mut padded = [0u8; STEP + 32 + 2];
    padded[..rest.len()].copy_from_slice(rest);
    for k in [0, 32, 64] {
        if k >= rest.len() {
            break;
        }
        let c = t.coarse(load(&padded, k));
        let valid = rest.len() - k;
        let keep = if valid >= 32 {
            u32::MAX
        } else {
            (1u32 << valid) - 1
        };
        let m = t.candidates(&padded, k, c) & keep;
        if m != 0 {
            return Some(i + k + m.trailing_zeros() as usize);
        }
    }
    None
}

/// [`super::is_clean_ascii`] with AVX2: 128 bytes per test of the two accumulated vectors (the
/// bytes, for their high bits, and their coarse classes).
#[target_feature(enable = "avx2")]
pub(super) fn is_clean_ascii(bytes: &[u8], cx: Context) -> bool {
    let t = Tables::new(cx);
    let mut chunks = bytes.chunks_exact(128);
    for chunk in &mut chunks {
        let mut high = _mm256_setzero_si256();
        let mut classes = _mm256_setzero_si256();
        for k in [0, 32, 64, 96] {
            let v = load(chunk, k);
            high = _mm256_or_si256(high, v);
            classes = _mm256_or_si256(classes, t.coarse(v));
        }
        if _mm256_movemask_epi8(high) != 0 || _mm256_testz_si256(classes, classes) == 0 {
            return false;
        }
    }
    chunks
        .remainder()
        .iter()
        .all(|&b| b < 0x80 && !super::coarse(b, cx))
}
