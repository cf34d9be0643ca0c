//! The byte scans the checks share: visiting the bytes a branch-free test flags, 64 at a time;
//! a short field's printable-ASCII test; the character at an offset; the valid stretches of a
//! field between its malformations. A leaf: it uses nothing else of the crate.

/// Calls `found(i)` for every index whose byte `flag` accepts, in order. `flag` should be
/// branch-free (`&`/`|` of comparisons) so that the block test vectorizes. The checks flag only
/// bytes that start a character.
///
/// Bytes are tested 64 at a time into a block of 0/1 flags (a loop LLVM vectorizes); a block
/// with none is skipped, and the flags of the others are packed into a bit mask whose set bits
/// are visited, so a block costs about the same however many bytes it flags.
#[inline(always)]
pub(crate) fn for_each_flagged(
    bytes: &[u8],
    flag: impl Fn(u8) -> bool,
    mut found: impl FnMut(usize),
) {
    const BLOCK: usize = 64;
    let blocks = bytes.chunks_exact(BLOCK);
    let tail_start = bytes.len() - blocks.remainder().len();
    for (n, block) in blocks.enumerate() {
        let mut flags = [0u8; BLOCK];
        let mut any = 0u8;
        for (f, &b) in flags.iter_mut().zip(block) {
            *f = u8::from(flag(b));
            any |= *f;
        }
        if any == 0 {
            continue;
        }
        let mut mask = pack_flags(&flags);
        while mask != 0 {
            found(n * BLOCK + mask.trailing_zeros() as usize);
            mask &= mask - 1;
        }
    }
    for (i, &b) in bytes[tail_start..].iter().enumerate() {
        if flag(b) {
            found(tail_start + i);
        }
    }
}

/// 64 flags of 0 or 1 as a bit mask (bit `i` for `flags[i]`), eight at a time with a
/// multiplication that gathers byte `i`'s bit into bit 56 + `i` without carries.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
pub(crate) fn pack_flags(flags: &[u8; 64]) -> u64 {
    flags
        .chunks_exact(8)
        .enumerate()
        .fold(0u64, |mask, (j, eight)| {
            let mut word = [0u8; 8];
            word.copy_from_slice(eight);
            let bits = u64::from_le_bytes(word).wrapping_mul(0x0102_0408_1020_4080) >> 56;
            mask | (bits << (8 * j))
        })
}

/// [`pack_flags`] with Wasm's `simd128`, which has the bit gathering the multiplication does
/// by hand: sixteen flags a vector, each shifted into its lane's sign bit and gathered by
/// `i8x16.bitmask` (under V8, a JSON document's blocks read a fifth faster).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
pub(crate) fn pack_flags(flags: &[u8; 64]) -> u64 {
    use core::arch::wasm32::{i8x16_bitmask, i8x16_shl, u8x16};
    let mut mask = 0u64;
    for (k, lanes) in flags.chunks_exact(16).enumerate() {
        let [a, b, c, d, e, f, g, h, i, j, l, m, n, o, p, q]: [u8; 16] =
            lanes.try_into().unwrap_or_default();
        let v = u8x16(a, b, c, d, e, f, g, h, i, j, l, m, n, o, p, q);
        mask |= u64::from(i8x16_bitmask(i8x16_shl(v, 7))) << (16 * k);
    }
    mask
}

/// For a field of printable ASCII (every byte in `0x20..0x7F`): whether it holds a `.` or a
/// `%`, the only bytes at which the traversal check can find something in it. `None` when a
/// byte is not printable ASCII. Eight bytes a step, as one `u64` each, the last word the
/// field's last eight bytes (they overlap the word before: the tests are unions): a field costs
/// a few instructions a word, where a byte loop costs a few a byte. Under eight bytes, a byte
/// loop.
#[inline(always)]
pub(crate) fn printable_ascii_dots(bytes: &[u8]) -> Option<bool> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    if bytes.len() < 8 {
        let mut dots = false;
        for &b in bytes {
            if !(0x20..0x7F).contains(&b) {
                return None;
            }
            dots |= b == b'.' || b == b'%';
        }
        return Some(dots);
    }
    // A nonzero byte of high bits where a byte of `w` is zero (exact as to whether one is).
    let zero = |w: u64| w.wrapping_sub(ONES) & !w & HIGH;
    let (mut bad, mut dots) = (0u64, 0u64);
    let mut word = |eight: &[u8]| {
        let w = u64::from_le_bytes(eight.try_into().unwrap_or([0; 8]));
        // A byte of 0x80 or more (its own high bit), under 0x20 (borrows only below one that
        // is), or 0x7F.
        bad |= w | (w.wrapping_sub(ONES * 0x20) & !w) | zero(w ^ (ONES * 0x7F));
        dots |= zero(w ^ (ONES * u64::from(b'.'))) | zero(w ^ (ONES * u64::from(b'%')));
    };
    let words = bytes.chunks_exact(8);
    let tail = !words.remainder().is_empty();
    words.for_each(&mut word);
    if tail {
        word(&bytes[bytes.len() - 8..]);
    }
    (bad & HIGH == 0).then_some(dots & HIGH != 0)
}

/// The character starting at byte `at` of `text` (which must be a char boundary).
#[inline]
pub(crate) fn char_at(text: &str, at: usize) -> Option<char> {
    text.get(at..).and_then(|rest| rest.chars().next())
}

/// A piece of a field that is not valid UTF-8: a malformation, or the valid run between two.
pub(crate) enum Piece<'a> {
    /// A valid run at a field offset.
    Run(usize, &'a str),
    /// A malformation.
    Malformed(utf8gate_codec::Malformation),
}

/// The malformations of `bytes` and the valid runs between them, in order, one at a time
/// (nothing is collected: a field with a malformation every byte costs no memory per byte).
pub(crate) fn pieces(bytes: &[u8]) -> impl Iterator<Item = Piece<'_>> {
    let mut malformations = utf8gate_codec::diagnose(bytes);
    let mut at = 0;
    let mut next: Option<utf8gate_codec::Malformation> = None;
    let mut done = false;
    core::iter::from_fn(move || {
        loop {
            if let Some(m) = next.take() {
                at = m.range().end.min(bytes.len());
                return Some(Piece::Malformed(m));
            }
            if done {
                return None;
            }
            let end = match malformations.next() {
                Some(m) => {
                    let start = m.offset().min(bytes.len());
                    next = Some(m);
                    start
                }
                None => {
                    done = true;
                    bytes.len()
                }
            };
            // Hostile fields have no valid byte between most malformations.
            if end > at
                && let Ok(text) = utf8gate_codec::validate(&bytes[at..end])
            {
                return Some(Piece::Run(at, text));
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::pack_flags;

    /// Bit `i` of the mask is `flags[i]`, for every single flag and its complement, and
    /// pseudo-random blocks (the build this runs on; the Wasm one, `i8x16.bitmask`, is held to
    /// the native verdicts by `tools/wasm-verdicts.sh`).
    #[test]
    fn packed_flags_are_their_bits() {
        let naive = |flags: &[u8; 64]| {
            (flags.iter().enumerate()).fold(0u64, |m, (i, &f)| m | (u64::from(f) << i))
        };
        let mut blocks = Vec::new();
        for i in 0..64 {
            let mut one = [0u8; 64];
            one[i] = 1;
            blocks.push(one);
            blocks.push(one.map(|f| 1 - f));
        }
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..1000 {
            let mut block = [0u8; 64];
            for f in &mut block {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *f = u8::from(state & 1 == 1);
            }
            blocks.push(block);
        }
        for block in &blocks {
            assert_eq!(pack_flags(block), naive(block), "{block:?}");
        }
    }
}
