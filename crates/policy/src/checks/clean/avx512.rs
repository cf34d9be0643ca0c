//! The classifier of the parent module with AVX-512 (F, BW, VBMI), 64 bytes at a time: the
//! coarse test as in `super::avx2` (two nibble lookups, `vpshufb`), the refined one as seven
//! lookups in 64-entry tables (`vpermi2b`, `vpermb`) by the lead, second and third bytes: the
//! same few instructions for a block of one script as for a block that mixes six. Only called
//! after the features were detected ([`is_detected`]).
//!
//! A lead's row is looked up by its low seven bits: the leads `C0`–`FF` read the rows, the
//! bytes below `40` (the ASCII controls, coarse candidates, among them) read zeros, and ASCII
//! `40`–`7F`, which read the rows of `C0`–`FF`, are no coarse candidates but DEL, whose `FF`
//! has no row. The next bytes are looked up by their low six bits, which tell a continuation
//! byte `80`–`BF` apart. The lookups are exact
//! on valid UTF-8, where a lead is followed by its continuation bytes, which is what the
//! classifier is given (`super::first_candidate`); on other bytes they may call a byte clean
//! that the portable test does not (the AVX2 build is exact on any bytes). Port 5 runs every
//! shuffle: 64 bytes per lookup rather than 32 is what makes this build about 3× the AVX2 one
//! on CJK text (an earlier version on 256-bit vectors was 1.6×).
//!
//! The tables are worked out at compile time from the refined test itself
//! ([`super::refined_clean`]):
//! * **Rows**: the leads the refined test may call clean, in two groups of eight. A lookup by
//!   the lead byte gives its row's bit, one by the second byte the rows it admits whatever
//!   follows; a character is clean when the two share a bit.
//! * **Pairs**: the lead and second bytes whose test reads the third byte (`E2 80`, `E3 80`,
//!   `E3 82`, `EF B8`, `EF BC`/`EF BD`, `F0 9F`), a bit each, looked up by the lead, the second
//!   and the third byte.
//!
//! Tests compare this build with the portable one on every lead, second and third byte of valid
//! UTF-8 (after every ASCII control too) and on generated text.

use std::arch::x86_64::*;

use super::classes::{COARSE_HI, COARSE_LO, Context};
use super::refined::refined_clean;

/// Whether the CPU has what this build needs (AVX-512 F, BW and VBMI). Detection runs once;
/// later calls read cached flags.
#[inline]
pub(super) fn is_detected() -> bool {
    std::arch::is_x86_feature_detected!("avx512vbmi")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512f")
}

/// The leads the refined test may call clean by the second byte alone, in two groups of eight
/// (`0`: no lead).
const ROWS: [[u8; 8]; 2] = [
    [0xC2, 0xCE, 0xCF, 0xD8, 0xD9, 0xDA, 0xDB, 0xEA],
    [0xE2, 0xE3, 0xEF, 0xF0, 0xF3, 0, 0, 0],
];

/// The lead and second bytes whose refined test reads the third byte, a bit each; the two
/// second bytes of a pair share their rule for the third.
const PAIRS: [(u8, [u8; 2]); 6] = [
    (0xE2, [0x80, 0x80]),
    (0xE3, [0x80, 0x80]),
    (0xE3, [0x82, 0x82]),
    (0xEF, [0xB8, 0xB8]),
    (0xEF, [0xBC, 0xBD]),
    (0xF0, [0x9F, 0x9F]),
];

/// The tables of one lookalike table's context, each of 64 entries.
struct Data {
    /// By the lead's low six bits: its row's bit, per group.
    rows: [[u8; 64]; 2],
    /// By the second byte's low six bits: the rows that admit it, per group.
    admits: [[u8; 64]; 2],
    /// By the lead's low six bits: the pairs it leads.
    pair_leads: [u8; 64],
    /// By the second byte's low six bits: the pairs it is the second byte of.
    pair_seconds: [u8; 64],
    /// By the third byte's low six bits: the pairs that admit it.
    pair_thirds: [u8; 64],
}

/// The tables for the default lookalike table and for the best-fit one.
static DATA: [Data; 2] = [Data::build(false), Data::build(true)];

/// The coarse tables in each 128-bit lane (for `vpshufb`): by high nibble, and by low nibble
/// outside and inside text content.
static COARSE: ([u8; 64], [[u8; 64]; 2]) = (
    lanes(&COARSE_HI),
    [lanes(&COARSE_LO[0]), lanes(&COARSE_LO[1])],
);

/// `t` in each of four 16-byte lanes.
const fn lanes(t: &[u8; 16]) -> [u8; 64] {
    let mut all = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        all[i] = t[i % 16];
        i += 1;
    }
    all
}

/// Whether `lead b1` is one of the pairs.
const fn is_pair(lead: u8, b1: u8) -> bool {
    let mut j = 0;
    while j < PAIRS.len() {
        if PAIRS[j].0 == lead && (PAIRS[j].1[0] == b1 || PAIRS[j].1[1] == b1) {
            return true;
        }
        j += 1;
    }
    false
}

/// Whether the refined test calls `lead b1` clean whatever byte follows, outside the pairs: it
/// reads the third byte only in the pairs, so the first and last continuation bytes stand for
/// every byte (a test checks every one; each of 256 would cost const evaluation too long).
const fn clean_whatever_follows(lead: u8, b1: u8, cx: Context) -> bool {
    refined_clean(lead, b1, 0x80, cx) && refined_clean(lead, b1, 0xBF, cx)
}

impl Data {
    /// The tables, from the refined test in the context `best_fit`.
    const fn build(best_fit: bool) -> Data {
        let cx = Context {
            text_content: true,
            best_fit,
        };
        let mut d = Data {
            rows: [[0; 64]; 2],
            admits: [[0; 64]; 2],
            pair_leads: [0; 64],
            pair_seconds: [0; 64],
            pair_thirds: [0; 64],
        };
        let mut i = 0;
        while i < 64 {
            let (lead, next) = (0xC0 | i as u8, 0x80 | i as u8);
            let mut g = 0;
            while g < 2 {
                let mut r = 0;
                while r < 8 {
                    let row = ROWS[g][r];
                    if row == lead {
                        d.rows[g][i] |= 1 << r;
                    }
                    if row != 0 && !is_pair(row, next) && clean_whatever_follows(row, next, cx) {
                        d.admits[g][i] |= 1 << r;
                    }
                    r += 1;
                }
                g += 1;
            }
            let mut j = 0;
            while j < PAIRS.len() {
                let (pair_lead, seconds) = PAIRS[j];
                if pair_lead == lead {
                    d.pair_leads[i] |= 1 << j;
                }
                if seconds[0] == next || seconds[1] == next {
                    d.pair_seconds[i] |= 1 << j;
                }
                if refined_clean(pair_lead, seconds[0], next, cx) {
                    d.pair_thirds[i] |= 1 << j;
                }
                j += 1;
            }
            i += 1;
        }
        d
    }
}

/// The 64 bytes at `at` (`at + 64 <= bytes.len()`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn load(bytes: &[u8], at: usize) -> __m512i {
    let block: &[u8; 64] = bytes[at..at + 64].try_into().expect("64 bytes");
    // SAFETY: `block` is 64 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_si512(block.as_ptr().cast()) }
}

/// The tables of one context in registers.
struct Tables {
    coarse_hi: __m512i,
    coarse_lo: __m512i,
    nibble: __m512i,
    /// Row bits by lead, looked up by the lead's low seven bits with zeros below `40` (see the
    /// module documentation).
    rows: [__m512i; 2],
    admits: [__m512i; 2],
    pair_leads: __m512i,
    pair_seconds: __m512i,
    pair_thirds: __m512i,
}

impl Tables {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn new(cx: Context) -> Self {
        let d = &DATA[cx.best_fit as usize];
        Tables {
            coarse_hi: load(&COARSE.0, 0),
            coarse_lo: load(&COARSE.1[usize::from(cx.text_content)], 0),
            nibble: _mm512_set1_epi8(0x0F),
            rows: [load(&d.rows[0], 0), load(&d.rows[1], 0)],
            admits: [load(&d.admits[0], 0), load(&d.admits[1], 0)],
            pair_leads: load(&d.pair_leads, 0),
            pair_seconds: load(&d.pair_seconds, 0),
            pair_thirds: load(&d.pair_thirds, 0),
        }
    }

    /// The coarse classes of the 64 bytes `v`: non-zero for a coarse candidate.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn coarse(&self, v: __m512i) -> __m512i {
        let hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), self.nibble);
        let lo = _mm512_and_si512(v, self.nibble);
        _mm512_and_si512(
            _mm512_shuffle_epi8(self.coarse_hi, hi),
            _mm512_shuffle_epi8(self.coarse_lo, lo),
        )
    }

    /// Bit mask of the candidates among the 64 bytes at `at` whose coarse classes are
    /// `coarse` (`at + 66 <= bytes.len()`).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn candidates(&self, bytes: &[u8], at: usize, coarse: __m512i) -> u64 {
        let (b0, b1, b2) = (load(bytes, at), load(bytes, at + 1), load(bytes, at + 2));
        let zero = _mm512_setzero_si512();
        // By the lead's low seven bits (its row), by the next bytes' low six (what admits them).
        let lead = |t: __m512i| _mm512_permutex2var_epi8(zero, b0, t);
        let next = |t: __m512i, v: __m512i| _mm512_permutexvar_epi8(v, t);
        let a = _mm512_and_si512(lead(self.rows[0]), next(self.admits[0], b1));
        // (rows & admits) | a, then leads & seconds & thirds (`vpternlogd` truth tables).
        let ab = _mm512_ternarylogic_epi32::<0xEA>(lead(self.rows[1]), next(self.admits[1], b1), a);
        let pairs = _mm512_ternarylogic_epi32::<0x80>(
            lead(self.pair_leads),
            next(self.pair_seconds, b1),
            next(self.pair_thirds, b2),
        );
        let clean = _mm512_or_si512(ab, pairs);
        _mm512_mask_test_epi8_mask(_mm512_testn_epi8_mask(clean, clean), coarse, coarse)
    }
}

/// The lookahead the refined test reads past a block.
const LOOKAHEAD: usize = 2;

/// [`super::first_candidate`] with AVX-512 VBMI; `bytes` valid UTF-8, `from` a char boundary.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) fn first_candidate(bytes: &[u8], from: usize, cx: Context) -> Option<usize> {
    let t = Tables::new(cx);
    let mut i = from;
    // Whole blocks while the refined test can read two bytes past them.
    while let Some(window) = bytes.get(i..i + 64 + LOOKAHEAD) {
        let coarse = t.coarse(load(window, 0));
        if _mm512_test_epi8_mask(coarse, coarse) != 0 {
            let m = t.candidates(window, 0, coarse);
            if m != 0 {
                return Some(i + m.trailing_zeros() as usize);
            }
        }
        i += 64;
    }
    // The rest (at most `64 + LOOKAHEAD - 1` bytes), padded with zeros: past the end,
    // candidates are masked off.
    let rest = &bytes[i.min(bytes.len())..];
    let mut padded = [0u8; 128 + LOOKAHEAD];
    padded[..rest.len()].copy_from_slice(rest);
    for k in (0..rest.len()).step_by(64) {
        let valid = rest.len() - k;
        let keep = if valid >= 64 {
            u64::MAX
        } else {
            (1u64 << valid) - 1
        };
        let m = t.candidates(&padded, k, t.coarse(load(&padded, k))) & keep;
        if m != 0 {
            return Some(i + k + m.trailing_zeros() as usize);
        }
    }
    None
}
