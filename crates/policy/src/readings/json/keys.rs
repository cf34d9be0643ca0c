//! The keys of the open objects of a document, by hash: how the proof finds a key given twice
//! in one object.

use crate::readings::json::stack::Stack;

/// Keys of one object searched in a list as they come; an object's keys past them are checked
/// at its end.
const FEW_KEYS: usize = 32;

/// The keys of the objects open in a document, for the proof (`crate::readings::json::proof`): only keys of
/// one object can repeat each other. Each object's first [`FEW_KEYS`] keys are searched in a
/// list as they come; an object of more keys is checked at its end, its keys' hashes sorted
/// (`n log n` for `n` keys, whatever the keys: no hash table an attacker's keys could fill
/// with collisions, and no hasher to run per key). Keys are compared by a cheap hash: two keys
/// that share one read as a repeat, which fails the proof and leaves the document to the
/// fields (never a wrong "no repeat"). The hashes of the open objects' keys are a stack whose
/// first [`INLINE`] live in an array: a search and a push of a few keys inline, and a clean
/// document of shallow objects allocates nothing.
pub(crate) struct ObjectKeys {
    /// The first [`INLINE`] hashes of the open objects' keys, innermost last.
    inline: [u64; INLINE],
    /// The hashes past them.
    spill: Vec<u64>,
    /// How many hashes the open objects have.
    len: usize,
    /// Where the innermost open container's keys start in the stack.
    start: usize,
    /// Where each open container's keys start in the stack, but the innermost's, innermost
    /// last.
    starts: Stack<usize, 16>,
    /// Containers opened so far: each one's number.
    opened: usize,
    /// The hashes of an object of many keys, sorted at its end (kept for the next one).
    sorted: Vec<u64>,
    /// An object of many keys had a key twice (found at its end).
    repeated: bool,
}

/// Hashes of the open objects' keys kept in [`ObjectKeys`]'s array.
const INLINE: usize = 64;

impl Default for ObjectKeys {
    fn default() -> Self {
        ObjectKeys {
            inline: [0; INLINE],
            spill: Vec::new(),
            len: 0,
            start: 0,
            starts: Stack::default(),
            opened: 0,
            sorted: Vec::new(),
            repeated: false,
        }
    }
}

impl ObjectKeys {
    /// A container opens: its number.
    pub(crate) fn open(&mut self) -> usize {
        self.starts.push(self.start);
        self.start = self.len;
        self.opened += 1;
        self.opened
    }

    /// The innermost container closes; an object of more than [`FEW_KEYS`] keys is checked
    /// for a repeat now ([`repeated`](Self::repeated)).
    pub(crate) fn close(&mut self) {
        if let Some(outer) = self.starts.pop() {
            if self.len - self.start > FEW_KEYS {
                self.check_many();
            }
            self.len = self.start;
            self.spill.truncate(self.len.saturating_sub(INLINE));
            self.start = outer;
        }
    }

    /// Whether an object closed so far had a key twice that [`insert`](Self::insert) did not
    /// report (one of more than [`FEW_KEYS`] keys).
    pub(crate) fn repeated(&self) -> bool {
        self.repeated
    }

    /// Adds `key` to the innermost object; `false` if it (or a key of the same hash) was among
    /// the object's first [`FEW_KEYS`] keys. A repeat past them is found when the object
    /// closes ([`repeated`](Self::repeated)).
    #[inline(always)]
    pub(crate) fn insert(&mut self, key: &[u8]) -> bool {
        let hash = key_hash(key);
        let (start, len) = (self.start, self.len);
        if len - start < FEW_KEYS
            && let Some(stack) = self.inline.get_mut(..=len)
        {
            let (keys, free) = stack.split_at_mut(len);
            // A loop, not `contains`, which is a call: an object has a few keys.
            for &k in &keys[start..] {
                if k == hash {
                    return false;
                }
            }
            free[0] = hash;
            self.len = len + 1;
            return true;
        }
        self.insert_far(hash)
    }

    /// [`ObjectKeys::insert`] of `hash` into an object of [`FEW_KEYS`] keys or more, or past
    /// the array: out of line, so that the search of a few keys stays small in its caller.
    #[inline(never)]
    fn insert_far(&mut self, hash: u64) -> bool {
        if self.len - self.start < FEW_KEYS {
            let mut few = hashes(&self.inline, &self.spill, self.start, self.len);
            if few.any(|k| k == hash) {
                return false;
            }
        }
        match self.inline.get_mut(self.len) {
            Some(free) => *free = hash,
            None => self.spill.push(hash),
        }
        self.len += 1;
        true
    }

    /// Sorts the innermost object's hashes and notes whether two are equal.
    #[inline(never)]
    fn check_many(&mut self) {
        self.sorted.clear();
        (self.sorted).extend(hashes(&self.inline, &self.spill, self.start, self.len));
        self.sorted.sort_unstable();
        self.repeated |= self.sorted.windows(2).any(|w| w[0] == w[1]);
    }
}

/// The hashes from `start` to `len` of a stack whose first [`INLINE`] are `inline` and the rest
/// `spill`: the innermost object's keys (a function of the two, not of [`ObjectKeys`], so that
/// its set of many keys can be extended from them).
fn hashes<'k>(
    inline: &'k [u64; INLINE],
    spill: &'k [u64],
    start: usize,
    len: usize,
) -> impl Iterator<Item = u64> + 'k {
    let inline = &inline[start.min(INLINE)..len.min(INLINE)];
    let spill = &spill[start.saturating_sub(INLINE)..];
    inline.iter().chain(spill).copied()
}

/// A cheap hash of a key, eight bytes at a time (its length mixed in first, so that a short
/// last word need not be padded the same way for every length).
#[inline(always)]
fn key_hash(key: &[u8]) -> u64 {
    let mix = |h: u64, word: u64| (h.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    let mut words = key.chunks_exact(8);
    let h = (&mut words).fold(key.len() as u64, |h, w| {
        mix(h, u64::from_le_bytes(w.try_into().expect("eight bytes")))
    });
    match words.remainder() {
        [] => h,
        tail => mix(h, last_word(tail)),
    }
}

/// A word of the 1 to 7 bytes of `tail` that tells apart any two tails of one length: the
/// first, middle and last byte of a short one, the overlapping first and last four bytes of a
/// longer one (no copy into a padded buffer).
#[inline]
fn last_word(tail: &[u8]) -> u64 {
    let n = tail.len();
    if n >= 4 {
        let four = |at: usize| {
            u64::from(u32::from_le_bytes(
                tail[at..at + 4].try_into().expect("four bytes"),
            ))
        };
        four(0) | four(n - 4) << 32
    } else {
        u64::from(tail[0]) | u64::from(tail[n / 2]) << 8 | u64::from(tail[n - 1]) << 16
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{ObjectKeys, last_word};

    proptest! {
        /// The keys of nested objects, in the array, past it and past [`super::FEW_KEYS`] in
        /// one object, are told apart as a set per open object tells them: a repeat among an
        /// object's first keys as it comes, one past them when its object closes, never a
        /// repeat where there is none.
        #[test]
        fn repeats_are_found_per_object(
            steps in prop::collection::vec(
                prop_oneof![1 => Just(None), 1 => Just(Some(None)), 12 => (0u8..90).prop_map(|k| Some(Some(k)))],
                0..400,
            ),
        ) {
            let mut keys = ObjectKeys::default();
            // Each open object: its keys, how many were kept, whether one came twice past
            // the first ones.
            let mut model: Vec<(std::collections::HashSet<u8>, usize, bool)> = Vec::new();
            let mut repeated = false;
            for step in steps {
                match step {
                    // An object opens.
                    None => {
                        keys.open();
                        model.push(Default::default());
                    }
                    // The innermost closes.
                    Some(None) => {
                        if let Some((_, _, twice)) = model.pop() {
                            keys.close();
                            repeated |= twice;
                        }
                    }
                    Some(Some(key)) => {
                        if let Some((seen, kept, twice)) = model.last_mut() {
                            let name = format!("key{key}");
                            let new = seen.insert(key);
                            let expected = new || *kept >= super::FEW_KEYS;
                            prop_assert_eq!(keys.insert(name.as_bytes()), expected);
                            *twice |= !new && *kept >= super::FEW_KEYS;
                            *kept += usize::from(expected);
                        }
                    }
                }
                prop_assert_eq!(keys.repeated(), repeated);
            }
        }
    }

    /// Two different tails of one length never make the same last word (every tail of up to
    /// two bytes, three-byte tails over the bytes of keys, and tails of four to seven bytes that
    /// differ in one byte anywhere).
    #[test]
    fn last_words_tell_tails_apart() {
        let mut seen = std::collections::HashMap::new();
        let bytes: Vec<u8> = (b'0'..=b'z').chain([0x00, 0x80, 0xC3, 0xFF]).collect();
        let mut tails: Vec<Vec<u8>> = (0..=u16::MAX)
            .map(|i| i.to_le_bytes()[..1 + usize::from(i > 255)].to_vec())
            .collect();
        for &a in &bytes {
            for &b in &bytes {
                tails.extend(bytes.iter().map(|&c| vec![a, b, c]));
            }
        }
        for tail in tails {
            let word = last_word(&tail);
            if let Some(other) = seen.insert((tail.len(), word), tail.clone()) {
                assert_eq!(other, tail);
            }
        }
        for n in 4..=7 {
            let base: Vec<u8> = (1..=n as u8).collect();
            for at in 0..n {
                for b in 0..=255u8 {
                    let mut other = base.clone();
                    other[at] = b;
                    assert_eq!(
                        last_word(&other) == last_word(&base),
                        other == base,
                        "{other:?}"
                    );
                }
            }
        }
    }
}
