//! The 64-byte blocks of the proof's window (a leaf of `words`): the masks of a block's special
//! bytes and triggers, and the run of plain blocks of a long string, portable (loops LLVM
//! vectorizes); `crate::readings::json::words::wide` has them with AVX2 and AVX-512.

use crate::readings::json::words::escapes::Specials;

/// The length of the leading whole 64-byte blocks of `bytes` without a `"`, `\\` or control
/// byte, and whether they hold a trigger ([`triggers`]): one pass of flags ORed per block (a
/// loop LLVM vectorizes), so that long strings of text cost little more than a copy.
#[inline(always)]
pub(super) fn plain_blocks(bytes: &[u8]) -> (usize, bool) {
    let (mut at, mut trigger) = (0, 0u8);
    for (k, block) in bytes.chunks_exact(64).enumerate() {
        let (mut special, mut dot) = (0u8, 0u8);
        // The byte after the block, as one that ends a segment if it may (`triggers`).
        let after = match ends_segment(bytes.get(64 * (k + 1))) {
            true => b'/',
            false => b' ',
        };
        for (i, &b) in block.iter().enumerate() {
            // In a plain block, only a `/` can follow a dot as a separator.
            let next = block.get(i + 1).copied().unwrap_or(after);
            special |= u8::from(b == b'"') | u8::from(b == b'\\') | u8::from(b < 0x20);
            dot |= u8::from(b == b'%') | (u8::from(b == b'.') & u8::from(next == b'/'));
        }
        if special != 0 {
            break;
        }
        trigger |= dot;
        at += 64;
    }
    (at, trigger != 0)
}

/// The triggers of a block from its masks of `.`, `%` and of the bytes that may end a
/// dot-segment after a dot (`/`, `\\`, `"`): every `%`, and every `.` followed by one of them
/// (`next_ends`: the byte after the block is one, or there is none). A dot-segment in a
/// string's value ends at a separator or at the value's end, so its last dot is followed in
/// the raw text by a `/`, a `\\` (a `\\\\` or an escape that may make one) or the closing
/// quote: a string without a trigger has none (`proof::traversal_may_report` reads the others).
#[inline(always)]
pub(super) fn triggers(dots: u64, percents: u64, enders: u64, next_ends: bool) -> u64 {
    percents | (dots & ((enders >> 1) | u64::from(next_ends) << 63))
}

/// Whether `next` (the byte after a block, if any) may end a dot-segment (see [`triggers`]).
#[inline(always)]
pub(super) fn ends_segment(next: Option<&u8>) -> bool {
    next.is_none_or(|b| matches!(b, b'/' | b'\\' | b'"'))
}

/// The masks of the quotes, backslashes and control bytes and of the triggers ([`triggers`])
/// among the first 64 of `bytes` (fewer at the end): a flag byte for each (a loop LLVM turns
/// into vector compares), then eight flags at a time packed into bits by one multiplication
/// (their products land in distinct bits: no carries).
#[inline(always)]
pub(super) fn block_masks(bytes: &[u8]) -> (Specials, u64) {
    let mut block = [b' '; 64];
    let n = bytes.len().min(64);
    block[..n].copy_from_slice(&bytes[..n]);
    let (mut quotes, mut backslashes, mut controls) = ([0u8; 64], [0u8; 64], [0u8; 64]);
    let (mut dots, mut percents, mut enders) = ([0u8; 64], [0u8; 64], [0u8; 64]);
    for (i, &b) in block.iter().enumerate() {
        quotes[i] = u8::from(b == b'"');
        backslashes[i] = u8::from(b == b'\\');
        controls[i] = u8::from(b < 0x20);
        dots[i] = u8::from(b == b'.');
        percents[i] = u8::from(b == b'%');
        enders[i] = u8::from((b == b'/') | (b == b'\\') | (b == b'"'));
    }
    // Past the end of the bytes, as past the end of a value.
    enders[n..].fill(1);
    let next_ends = ends_segment(bytes.get(64));
    let specials = Specials {
        quotes: pack(&quotes),
        backslashes: pack(&backslashes),
        controls: pack(&controls),
    };
    let triggers = triggers(pack(&dots), pack(&percents), pack(&enders), next_ends);
    (specials, triggers)
}

/// The widest vectors the CPU has for the block readings (only the portable loops off x86-64).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) enum Vectors {
    /// The portable loops (SSE2 on x86-64).
    #[default]
    Portable,
    /// AVX2 (and POPCNT, BMI1): a block in two 256-bit vectors.
    Avx2,
    /// AVX-512 (F and BW; and POPCNT, BMI1): a block in one vector, its masks straight from
    /// the compares.
    Avx512,
}

impl Vectors {
    /// What this CPU has (detected once; later calls read cached flags).
    pub(super) fn detect() -> Vectors {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            // The window's readings count and scan bits with POPCNT and BMI1 too.
            let bits = has!("popcnt") && has!("bmi1");
            if bits && has!("avx512bw") && has!("avx512f") {
                return Vectors::Avx512;
            }
            if bits && has!("avx2") {
                return Vectors::Avx2;
            }
        }
        Vectors::Portable
    }
}

/// 64 flag bytes (0 or 1) as the bits of a mask.
#[inline(always)]
fn pack(flags: &[u8; 64]) -> u64 {
    crate::checks::bytes::pack_flags(flags)
}
