//! The classifier of the parent module, 32 bytes at a time with AVX2: the coarse test as two
//! nibble lookups (`vpshufb`) ANDed, the refined one as byte comparisons on the block and the
//! same block read one and two bytes later. Only called after AVX2 was detected.

use std::arch::x86_64::*;

use super::classes::{COARSE_HI, COARSE_LO, Context, FULL_WIDTH_HI, FULL_WIDTH_LO};
use super::leads::clean_leads;

/// Bytes classified per step of the main loop.
const STEP: usize = 128;

/// A 16-byte table in both 128-bit lanes (for `vpshufb`).
#[inline]
#[target_feature(enable = "avx2")]
fn table(t: &[u8; 16]) -> __m256i {
    let mut both = [0u8; 32];
    both[..16].copy_from_slice(t);
    both[16..].copy_from_slice(t);
    load(&both, 0)
}

/// `k` in every byte.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn splat(k: u8) -> __m256i {
    _mm256_set1_epi8(k as i8)
}

/// The 32 bytes at `at` (`at + 32 <= bytes.len()`).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn load(bytes: &[u8], at: usize) -> __m256i {
    let block: &[u8; 32] = bytes[at..at + 32].try_into().expect("32 bytes");
    // SAFETY: `block` is 32 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(block.as_ptr().cast()) }
}

/// The lookups both tests use; `BEST_FIT`: the best-fit table is in use, and a few more blocks
/// hold lookalikes (see `refined_clean`), a constant so that the default build has no test of it.
struct Tables<const BEST_FIT: bool> {
    coarse_hi: __m256i,
    coarse_lo: __m256i,
    wide_hi: __m256i,
    wide_lo: __m256i,
    nibble: __m256i,
}

impl<const BEST_FIT: bool> Tables<BEST_FIT> {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new(cx: Context) -> Self {
        Tables {
            coarse_hi: table(&COARSE_HI),
            coarse_lo: table(&COARSE_LO[usize::from(cx.text_content)]),
            wide_hi: table(&FULL_WIDTH_HI),
            wide_lo: table(&FULL_WIDTH_LO[usize::from(BEST_FIT)]),
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
    /// (`at + 34 <= bytes.len()`). The refined tests of the leads `Cx`, `Dx`, `E2` and `EA`, `E3`,
    /// `EF`, `Fx` are only computed when `present` says the window has such a lead (decided per
    /// window rather than per block, the branches are predictable on text of one script).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn candidates(&self, bytes: &[u8], at: usize, c: __m256i, present: Present) -> u32 {
        let (b0, b1, b2) = (load(bytes, at), load(bytes, at + 1), load(bytes, at + 2));
        let eq = |v: __m256i, k: u8| _mm256_cmpeq_epi8(v, splat(k));
        let ge = |v: __m256i, k: u8| _mm256_cmpeq_epi8(_mm256_max_epu8(v, splat(k)), v);
        let le = |v: __m256i, k: u8| _mm256_cmpeq_epi8(_mm256_min_epu8(v, splat(k)), v);
        let within = |v: __m256i, lo: u8, hi: u8| le(_mm256_sub_epi8(v, splat(lo)), hi - lo);
        let and = |a: __m256i, b: __m256i| _mm256_and_si256(a, b);
        let or = |a: __m256i, b: __m256i| _mm256_or_si256(a, b);
        let andnot = |a: __m256i, b: __m256i| _mm256_andnot_si256(a, b); // b & !a
        let mut clean = clean_leads!(
            present,
            _mm256_setzero_si256(),
            (b0, b1, b2),
            BEST_FIT,
            [eq, ge, within, and, or, andnot]
        );
        if present.ef {
            let ef = eq(b0, 0xEF);
            let hi2 = _mm256_and_si256(_mm256_srli_epi16(b2, 4), self.nibble);
            let lo2 = _mm256_and_si256(b2, self.nibble);
            let lookalike = _mm256_and_si256(
                _mm256_shuffle_epi8(self.wide_hi, hi2),
                _mm256_shuffle_epi8(self.wide_lo, lo2),
            );
            let not_lookalike = _mm256_cmpeq_epi8(lookalike, _mm256_setzero_si256());
            let forms = or(
                and(eq(b1, 0xB8), le(b2, 0x8F)),
                and(within(b1, 0xBC, 0xBD), not_lookalike),
            );
            clean = or(clean, and(ef, forms));
        }
        if present.f {
            let mut not_astral = eq(b2, 0xBF);
            if BEST_FIT {
                not_astral = or(not_astral, eq(b2, 0x84));
            }
            let astral = and(
                and(eq(b0, 0xF0), within(b1, 0x9F, 0xAE)),
                _mm256_xor_si256(and(eq(b1, 0x9F), not_astral), splat(0xFF)),
            );
            let tags = and(eq(b0, 0xF3), eq(b1, 0xA0));
            clean = or(clean, or(astral, tags));
        }
        let coarse = !(_mm256_movemask_epi8(_mm256_cmpeq_epi8(c, _mm256_setzero_si256())) as u32);
        coarse & !(_mm256_movemask_epi8(clean) as u32)
    }

    /// The first candidate among the `N` bytes of `window` that are not lookahead (`N` a
    /// multiple of 32 up to `window.len() - 2`), as an offset.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn first_in<const N: usize>(&self, window: &[u8]) -> Option<usize> {
        let mut classes = [_mm256_setzero_si256(); 4];
        let mut any = _mm256_setzero_si256();
        for (k, c) in classes.iter_mut().enumerate().take(N / 32) {
            *c = self.coarse(load(window, 32 * k));
            any = _mm256_or_si256(any, *c);
        }
        if _mm256_testz_si256(any, any) != 0 {
            return None;
        }
        let present = Present::of(any);
        for (k, &c) in classes.iter().enumerate().take(N / 32) {
            if _mm256_testz_si256(c, c) == 0 {
                let m = self.candidates(window, 32 * k, c, present);
                if m != 0 {
                    return Some(32 * k + m.trailing_zeros() as usize);
                }
            }
        }
        None
    }
}

/// Which refined tests a window needs, from the coarse classes it has (ORed): the lead
/// families `Cx`, `D2`–`DF` (Arabic) and `Fx`, the leads `E0`–`E2`, `EA`, `EE` (the `E2` and `EA` tests), `E3`
/// and `EF`.
#[derive(Clone, Copy)]
struct Present {
    c: bool,
    d: bool,
    f: bool,
    e2: bool,
    e3: bool,
    ef: bool,
}

impl Present {
    /// The families of the classes ORed in `classes`: folded to one byte first (a horizontal
    /// OR, a few instructions), then a scalar test per family; a vector test per family would
    /// fold the whole vector again for each.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn of(classes: __m256i) -> Present {
        let half = _mm_or_si128(
            _mm256_castsi256_si128(classes),
            _mm256_extracti128_si256::<1>(classes),
        );
        let word = _mm_cvtsi128_si64(half) as u64 | _mm_extract_epi64::<1>(half) as u64;
        let word = word | word >> 32;
        let word = word | word >> 16;
        let byte = (word | word >> 8) as u8;
        let has = |bit: u8| byte & bit != 0;
        Present {
            c: has(0x08),
            d: has(0x10),
            f: has(0x40),
            e2: has(0x20),
            e3: has(0x02),
            ef: has(0x80),
        }
    }
}

/// Bytes classified per step of the main loop, and the lookahead the refined test reads.
const WINDOW: usize = STEP + 2;

/// [`super::first_candidate`] with AVX2.
#[target_feature(enable = "avx2")]
pub(super) fn first_candidate(bytes: &[u8], from: usize, cx: Context) -> Option<usize> {
    if cx.best_fit {
        first_with(&Tables::<true>::new(cx), bytes, from)
    } else {
        first_with(&Tables::<false>::new(cx), bytes, from)
    }
}

/// Every candidate of `bytes` (for the tests: the tables are built once).
#[cfg(test)]
#[target_feature(enable = "avx2")]
pub(super) fn every_candidate(bytes: &[u8], cx: Context) -> Vec<usize> {
    if cx.best_fit {
        every_with(&Tables::<true>::new(cx), bytes)
    } else {
        every_with(&Tables::<false>::new(cx), bytes)
    }
}

/// [`every_candidate`] with the tables built.
#[cfg(test)]
#[target_feature(enable = "avx2")]
fn every_with<const BEST_FIT: bool>(t: &Tables<BEST_FIT>, bytes: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    while let Some(p) = first_with(t, bytes, found.last().map_or(0, |&p| p + 1)) {
        found.push(p);
    }
    found
}

/// [`first_candidate`] with the tables built.
#[inline]
#[target_feature(enable = "avx2")]
fn first_with<const BEST_FIT: bool>(
    t: &Tables<BEST_FIT>,
    bytes: &[u8],
    from: usize,
) -> Option<usize> {
    let mut i = from;
    // Whole steps while the refined test can read two bytes past them.
    while let Some(window) = bytes.get(i..i + WINDOW) {
        let window: &[u8; WINDOW] = window.try_into().expect("a whole window");
        if let Some(k) = t.first_in::<STEP>(window) {
            return Some(i + k);
        }
        i += STEP;
    }
    // The rest (at most `WINDOW - 1` bytes), padded with zeros: past the end, candidates are
    // masked off.
    let rest = &bytes[i.min(bytes.len())..];
    let mut padded = [0u8; WINDOW + 32];
    padded[..rest.len()].copy_from_slice(rest);
    for k in (0..rest.len()).step_by(32) {
        let c = t.coarse(load(&padded, k));
        let valid = rest.len() - k;
        let keep = if valid >= 32 {
            u32::MAX
        } else {
            (1u32 << valid) - 1
        };
        let present = Present::of(c);
        let m = t.candidates(&padded, k, c, present) & keep;
        if m != 0 {
            return Some(i + k + m.trailing_zeros() as usize);
        }
    }
    None
}

/// [`super::is_clean_ascii`] with AVX2, 128 bytes per test. A byte is bad when it is not
/// ASCII, is DEL, or is below `0x20`: `v + 1` is then below `0x21` as a signed byte. A bad
/// byte that is an ordinary TAB, LF or CR is let through by a lookup of `v` saturated up by
/// `0x70` (only `0x00`–`0x0F` stay below `0x80` and index the table by their low nibble).
#[target_feature(enable = "avx2")]
pub(super) fn is_clean_ascii(bytes: &[u8], cx: Context) -> bool {
    let mut ordinary = [0u8; 16];
    if cx.text_content {
        for b in [b'\t', b'\n', b'\r'] {
            ordinary[usize::from(b)] = 0xFF;
        }
    }
    let ordinary = table(&ordinary);
    let (one, limit, up) = (splat(1), splat(0x21), splat(0x70));
    let mut chunks = bytes.chunks_exact(128);
    for chunk in &mut chunks {
        let chunk: &[u8; 128] = chunk.try_into().expect("128 bytes");
        let mut bad = _mm256_setzero_si256();
        for k in [0, 32, 64, 96] {
            let v = load(chunk, k);
            let low = _mm256_cmpgt_epi8(limit, _mm256_add_epi8(v, one));
            let ok = _mm256_shuffle_epi8(ordinary, _mm256_adds_epu8(v, up));
            bad = _mm256_or_si256(bad, _mm256_andnot_si256(ok, low));
        }
        if _mm256_testz_si256(bad, bad) == 0 {
            return false;
        }
    }
    chunks
        .remainder()
        .iter()
        .all(|&b| b < 0x80 && !super::classes::coarse(b, cx))
}
