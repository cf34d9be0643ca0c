//! The classifier of the parent module, 16 bytes at a time with WebAssembly's 128-bit SIMD (a
//! Wasm build with `simd128`, as the proxy-wasm filter's): the AVX2 build's tests, lane for lane.
//! The coarse test is two nibble lookups (`i8x16.swizzle`) ANDed, the refined one byte
//! comparisons on the block and the same block read one and two bytes later. No `unsafe`: a
//! Wasm build with `simd128` always has it, and blocks are built from arrays.

use core::arch::wasm32::*;

use super::classes::{COARSE_HI, COARSE_LO, Context, FULL_WIDTH_HI, FULL_WIDTH_LO};
use super::leads::clean_leads;

/// Bytes classified per step of the main loop.
const STEP: usize = 128;

/// Bytes classified per step, and the lookahead the refined test reads.
const WINDOW: usize = STEP + 2;

/// The 16 bytes at `at` (`at + 16 <= bytes.len()`).
#[inline(always)]
fn load(bytes: &[u8], at: usize) -> v128 {
    let b: &[u8; 16] = bytes[at..at + 16].try_into().expect("16 bytes");
    u8x16(
        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
        b[14], b[15],
    )
}

/// `k` in every byte.
#[inline(always)]
fn splat(k: u8) -> v128 {
    u8x16_splat(k)
}

/// `t[i]` for each byte `i` of `v` (below 16).
#[inline(always)]
fn lookup(t: v128, v: v128) -> v128 {
    i8x16_swizzle(t, v)
}

/// The lookups both tests use; `BEST_FIT` as in the AVX2 build.
struct Tables<const BEST_FIT: bool> {
    coarse_hi: v128,
    coarse_lo: v128,
    wide_hi: v128,
    wide_lo: v128,
    nibble: v128,
}

impl<const BEST_FIT: bool> Tables<BEST_FIT> {
    fn new(cx: Context) -> Self {
        Tables {
            coarse_hi: load(&COARSE_HI, 0),
            coarse_lo: load(&COARSE_LO[usize::from(cx.text_content)], 0),
            wide_hi: load(&FULL_WIDTH_HI, 0),
            wide_lo: load(&FULL_WIDTH_LO[usize::from(BEST_FIT)], 0),
            nibble: splat(0x0F),
        }
    }

    /// Non-zero bytes where `v` has a coarse candidate.
    #[inline(always)]
    fn coarse(&self, v: v128) -> v128 {
        let hi = u8x16_shr(v, 4);
        let lo = v128_and(v, self.nibble);
        v128_and(lookup(self.coarse_hi, hi), lookup(self.coarse_lo, lo))
    }

    /// Bit mask of the candidates among the 16 bytes at `at` whose coarse classes are `c`
    /// (`at + 18 <= bytes.len()`); the refined tests only for the leads `present` says the
    /// window has.
    #[inline(always)]
    fn candidates(&self, bytes: &[u8], at: usize, c: v128, present: Present) -> u16 {
        let (b0, b1, b2) = (load(bytes, at), load(bytes, at + 1), load(bytes, at + 2));
        let eq = |v: v128, k: u8| u8x16_eq(v, splat(k));
        let ge = |v: v128, k: u8| u8x16_ge(v, splat(k));
        let le = |v: v128, k: u8| u8x16_le(v, splat(k));
        let within = |v: v128, lo: u8, hi: u8| le(u8x16_sub(v, splat(lo)), hi - lo);
        let and = v128_and;
        let or = v128_or;
        // `b & !a`, as AVX2's `andnot(a, b)`.
        let andnot = |a: v128, b: v128| v128_andnot(b, a);
        let mut clean = clean_leads!(
            present,
            splat(0),
            (b0, b1, b2),
            BEST_FIT,
            [eq, ge, within, and, or, andnot]
        );
        if present.ef {
            let ef = eq(b0, 0xEF);
            let hi2 = u8x16_shr(b2, 4);
            let lo2 = v128_and(b2, self.nibble);
            let lookalike = v128_and(lookup(self.wide_hi, hi2), lookup(self.wide_lo, lo2));
            let not_lookalike = eq(lookalike, 0);
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
                v128_not(and(eq(b1, 0x9F), not_astral)),
            );
            let tags = and(eq(b0, 0xF3), eq(b1, 0xA0));
            clean = or(clean, or(astral, tags));
        }
        let coarse = !u8x16_bitmask(eq(c, 0));
        coarse & !u8x16_bitmask(clean)
    }

    /// The first candidate among the first `STEP` bytes of `window`, as an offset.
    #[inline(always)]
    fn first_in(&self, window: &[u8; WINDOW]) -> Option<usize> {
        let mut classes = [splat(0); STEP / 16];
        let mut any = splat(0);
        for (k, c) in classes.iter_mut().enumerate() {
            *c = self.coarse(load(window, 16 * k));
            any = v128_or(any, *c);
        }
        if !v128_any_true(any) {
            return None;
        }
        let present = Present::of(any);
        for (k, &c) in classes.iter().enumerate() {
            if v128_any_true(c) {
                let m = self.candidates(window, 16 * k, c, present);
                if m != 0 {
                    return Some(16 * k + m.trailing_zeros() as usize);
                }
            }
        }
        None
    }
}

/// Which refined tests a window needs, from the coarse classes it has (ORed), as in the AVX2
/// build.
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
    #[inline(always)]
    fn of(classes: v128) -> Present {
        let word = u64x2_extract_lane::<0>(classes) | u64x2_extract_lane::<1>(classes);
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

/// [`super::first_candidate`] with `simd128`.
pub(super) fn first_candidate(bytes: &[u8], from: usize, cx: Context) -> Option<usize> {
    if cx.best_fit {
        first_with(&Tables::<true>::new(cx), bytes, from)
    } else {
        first_with(&Tables::<false>::new(cx), bytes, from)
    }
}

/// [`first_candidate`] with the tables built.
#[inline(always)]
fn first_with<const BEST_FIT: bool>(
    t: &Tables<BEST_FIT>,
    bytes: &[u8],
    from: usize,
) -> Option<usize> {
    let mut i = from;
    while let Some(window) = bytes.get(i..i + WINDOW) {
        let window: &[u8; WINDOW] = window.try_into().expect("a whole window");
        if let Some(k) = t.first_in(window) {
            return Some(i + k);
        }
        i += STEP;
    }
    // The rest, padded with zeros: past the end, candidates are masked off.
    let rest = &bytes[i.min(bytes.len())..];
    let mut padded = [0u8; WINDOW + 16];
    padded[..rest.len()].copy_from_slice(rest);
    for k in (0..rest.len()).step_by(16) {
        let c = t.coarse(load(&padded, k));
        let valid = rest.len() - k;
        let keep = if valid >= 16 {
            u16::MAX
        } else {
            (1u16 << valid) - 1
        };
        let m = t.candidates(&padded, k, c, Present::of(c)) & keep;
        if m != 0 {
            return Some(i + k + m.trailing_zeros() as usize);
        }
    }
    None
}

/// [`super::is_clean_ascii`] with `simd128`, 64 bytes per test: as the AVX2 build, a byte is
/// bad when `v + 1` is below `0x21` as a signed byte, unless it is an ordinary TAB, LF or CR
/// (a lookup of `v` itself: `swizzle` reads 0 for every index from 16 on).
pub(super) fn is_clean_ascii(bytes: &[u8], cx: Context) -> bool {
    let mut ordinary = [0u8; 16];
    if cx.text_content {
        for b in [b'\t', b'\n', b'\r'] {
            ordinary[usize::from(b)] = 0xFF;
        }
    }
    let ordinary = load(&ordinary, 0);
    let (one, limit) = (splat(1), splat(0x21));
    let mut chunks = bytes.chunks_exact(64);
    for chunk in &mut chunks {
        let mut bad = splat(0);
        for k in [0, 16, 32, 48] {
            let v = load(chunk, k);
            let low = i8x16_gt(limit, i8x16_add(v, one));
            let ok = lookup(ordinary, v);
            bad = v128_or(bad, v128_andnot(low, ok));
        }
        if v128_any_true(bad) {
            return false;
        }
    }
    chunks
        .remainder()
        .iter()
        .all(|&b| b < 0x80 && !super::classes::coarse(b, cx))
}
