//! The classifier of the parent module with AVX-512 (VBMI, on 256-bit vectors): the coarse test
//! as in `super::avx2`, the refined one as seven lookups in 64-entry tables (`vpermi2b`) by the
//! lead, second and third bytes, the same few instructions for a block of one script as for a
//! block that mixes six. Only called after the features were detected ([`is_detected`]).
//!
//! A 64-entry lookup reads the low six bits of its index: of a lead byte `C0`–`FF` (the others
//! are masked off), of a continuation byte `80`–`BF`. The lookups are exact on valid UTF-8,
//! where a lead is followed by its continuation bytes, which is what the classifier is given
//! (`super::first_candidate`); on other bytes they may call a byte clean that the portable test
//! does not (the AVX2 build is exact on any bytes).
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
//! UTF-8 and on generated text.

use std::arch::x86_64::*;

use super::avx2::{load, splat, table};
use super::classes::{COARSE_HI, COARSE_LO, Context};
use super::refined::refined_clean;

/// Whether the CPU has what this build needs (AVX-512 VBMI, VL and BW, and AVX2). Detection
/// runs once; later calls read cached flags.
#[inline]
pub(super) fn is_detected() -> bool {
    std::arch::is_x86_feature_detected!("avx512vbmi")
        && std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx2")
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
const DATA: [Data; 2] = [Data::build(false), Data::build(true)];

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

/// A 64-entry table in two registers (entries 0–31, 32–63).
#[derive(Clone, Copy)]
struct Table64(__m256i, __m256i);

impl Table64 {
    #[inline]
    #[target_feature(enable = "avx512vbmi,avx512vl,avx512bw,avx2")]
    fn new(t: &[u8; 64]) -> Self {
        Table64(load(t, 0), load(t, 32))
    }

    /// The entries of the low six bits of each byte of `idx`.
    #[inline]
    #[target_feature(enable = "avx512vbmi,avx512vl,avx512bw,avx2")]
    fn look(self, idx: __m256i) -> __m256i {
        _mm256_permutex2var_epi8(self.0, idx, self.1)
    }

    /// [`Table64::look`] where `keep` has a bit, zero elsewhere.
    #[inline]
    #[target_feature(enable = "avx512vbmi,avx512vl,avx512bw,avx2")]
    fn look_where(self, keep: __mmask32, idx: __m256i) -> __m256i {
        _mm256_maskz_permutex2var_epi8(keep, self.0, idx, self.1)
    }
}

/// The tables of one context in registers.
struct Tables {
    coarse_hi: __m256i,
    coarse_lo: __m256i,
    nibble: __m256i,
    lead: __m256i,
    rows: [Table64; 2],
    admits: [Table64; 2],
    pair_leads: Table64,
    pair_seconds: Table64,
    pair_thirds: Table64,
}

impl Tables {
    #[inline]
    #[target_feature(enable = "avx512vbmi,avx512vl,avx512bw,avx2")]
    fn new(cx: Context) -> Self {
        let d = &DATA[cx.best_fit as usize];
        Tables {
            coarse_hi: table(&COARSE_HI),
            coarse_lo: table(&COARSE_LO[usize::from(cx.text_content)]),
            nibble: splat(0x0F),
            lead: splat(0xC0),
            rows: [Table64::new(&d.rows[0]), Table64::new(&d.rows[1])],
            admits: [Table64::new(&d.admits[0]), Table64::new(&d.admits[1])],
            pair_leads: Table64::new(&d.pair_leads),
            pair_seconds: Table64::new(&d.pair_seconds),
            pair_thirds: Table64::new(&d.pair_thirds),
        }
    }

    /// Bit mask of the coarse candidates among the 32 bytes `v`.
    #[inline]
    #[target_feature(enable = "avx512vbmi,avx512vl,avx512bw,avx2")]
    fn coarse(&self, v: __m256i) -> u32 {
        let hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), self.nibble);
        let lo = _mm256_and_si256(v, self.nibble);
        _mm256_test_epi8_mask(
            _mm256_shuffle_epi8(self.coarse_hi, hi),
            _mm256_shuffle_epi8(self.coarse_lo, lo),
        )
    }

    /// Bit mask of the candidates among the 32 bytes at `at` whose coarse candidates are
    /// `coarse` (`at + 34 <= bytes.len()`).
    #[inline]
    #[target_feature(enable = "avx512vbmi,avx512vl,avx512bw,avx2")]
    fn candidates(&self, bytes: &[u8], at: usize, coarse: u32) -> u32 {
        let (b0, b1, b2) = (load(bytes, at), load(bytes, at + 1), load(bytes, at + 2));
        let leads = _mm256_cmpge_epu8_mask(b0, self.lead);
        let mut clean = 0;
        for g in 0..2 {
            let row = self.rows[g].look_where(leads, b0);
            clean |= _mm256_test_epi8_mask(row, self.admits[g].look(b1));
        }
        let pairs = _mm256_and_si256(
            self.pair_leads.look_where(leads, b0),
            self.pair_seconds.look(b1),
        );
        clean |= _mm256_test_epi8_mask(pairs, self.pair_thirds.look(b2));
        coarse & !clean
    }
}

/// Bytes classified per step of the main loop.
const STEP: usize = 128;

/// A step and the lookahead the refined test reads.
const WINDOW: usize = STEP + 2;

/// [`super::first_candidate`] with AVX-512 VBMI; `bytes` valid UTF-8, `from` a char boundary.
#[target_feature(enable = "avx512vbmi,avx512vl,avx512bw,avx2")]
pub(super) fn first_candidate(bytes: &[u8], from: usize, cx: Context) -> Option<usize> {
    let t = Tables::new(cx);
    let mut i = from;
    // Whole steps while the refined test can read two bytes past them.
    while let Some(window) = bytes.get(i..i + WINDOW) {
        let window: &[u8; WINDOW] = window.try_into().expect("a whole window");
        let mut coarse = [0u32; STEP / 32];
        for (k, c) in coarse.iter_mut().enumerate() {
            *c = t.coarse(load(window, 32 * k));
        }
        if coarse.iter().any(|&c| c != 0) {
            for (k, &c) in coarse.iter().enumerate() {
                if c != 0 {
                    let m = t.candidates(window, 32 * k, c);
                    if m != 0 {
                        return Some(i + 32 * k + m.trailing_zeros() as usize);
                    }
                }
            }
        }
        i += STEP;
    }
    // The rest (at most `WINDOW - 1` bytes), padded with zeros: past the end, candidates are
    // masked off.
    let rest = &bytes[i.min(bytes.len())..];
    let mut padded = [0u8; WINDOW + 32];
    padded[..rest.len()].copy_from_slice(rest);
    for k in (0..rest.len()).step_by(32) {
        let valid = rest.len() - k;
        let keep = if valid >= 32 {
            u32::MAX
        } else {
            (1u32 << valid) - 1
        };
        let m = t.candidates(&padded, k, t.coarse(load(&padded, k))) & keep;
        if m != 0 {
            return Some(i + k + m.trailing_zeros() as usize);
        }
    }
    None
}

/// Every candidate of `bytes` (valid UTF-8), for the tests.
#[cfg(test)]
#[target_feature(enable = "avx512vbmi,avx512vl,avx512bw,avx2")]
pub(super) fn every_candidate(bytes: &[u8], cx: Context) -> Vec<usize> {
    let mut found: Vec<usize> = Vec::new();
    while let Some(p) = first_candidate(bytes, found.last().map_or(0, |&p| p + 1), cx) {
        found.push(p);
    }
    found
}
