//! The field checks compiled for 256-bit vectors (AVX2), chosen at run time.
//!
//! The scans are loops over 64-byte blocks that LLVM vectorizes. A portable x86-64 build may
//! only use 128-bit SSE2, so on a CPU with AVX2 the same code, inlined into a function compiled
//! with `target_feature(enable = "avx2")`, does each block in about half the instructions
//! (`docs/BENCHMARKS.md` has the measured gain). This and the clean-text classifier
//! ([`super::clean`]) are the crate's only `unsafe`: calling a function compiled for a feature
//! is sound only on a CPU that has it, which is checked first.

#![allow(unsafe_code)]

use super::per_check::CheckOptions;
#[cfg(target_arch = "x86_64")]
use super::run;
use crate::decide::found::Found;
use crate::location::Part;

/// [`super::check_field`] compiled for AVX2; `false` (and nothing reported) when the CPU
/// does not have it (or is not x86-64). Detection runs once; later calls read a cached flag.
#[inline]
pub(super) fn check_field(
    part: Part,
    bytes: &[u8],
    at_body_start: bool,
    options: &CheckOptions,
    out: &mut Found,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the only requirement of calling a `target_feature` function is that the CPU
        // supports the features it enables, and AVX2 was detected just above.
        unsafe { avx2(part, bytes, at_body_start, options, out) };
        return true;
    }
    let _ = (part, bytes, at_body_start, options, out);
    false
}

/// [`super::check_text`] compiled for AVX2; `None` (and nothing reported) when the CPU does
/// not have it.
#[inline]
pub(super) fn check_text(
    part: Part,
    text: &str,
    options: &CheckOptions,
    out: &mut Found,
) -> Option<Option<(usize, char)>> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: as in `check_field`, AVX2 was detected just above.
        return Some(unsafe { avx2_text(part, text, options, out) });
    }
    let _ = (part, text, options, out);
    None
}

/// The character and NFC checks of a valid run with AVX2 enabled.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn avx2_text(
    part: Part,
    text: &str,
    options: &CheckOptions,
    out: &mut Found,
) -> Option<(usize, char)> {
    super::segmented::check_run(part, 0, text, false, options, out)
}

/// The checks with AVX2 enabled: [`run::check_field_inlined`] and the scans it inlines are
/// compiled here a second time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn avx2(part: Part, bytes: &[u8], at_body_start: bool, options: &CheckOptions, out: &mut Found) {
    run::check_field_inlined(part, bytes, at_body_start, options, out)
}
