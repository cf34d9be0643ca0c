//! The keys of a document seen so far, by hash (a leaf): how a key given twice in one object
//! is found.

/// Hashes of the keys seen: the first [`FEW_KEYS`] in a list searched in order, the rest in a
/// hash set (a small document's keys allocate nothing; a large one's cost stays linear).
#[derive(Default)]
pub(crate) struct SeenKeys {
    few: smallvec::SmallVec<[u64; FEW_KEYS]>,
    many: std::collections::HashSet<u64>,
}

/// Keys kept in [`SeenKeys`]'s list.
const FEW_KEYS: usize = 32;

impl SeenKeys {
    /// Adds `hash`; `false` if it was there already.
    pub(crate) fn insert(&mut self, hash: u64) -> bool {
        if self.few.contains(&hash) {
            return false;
        }
        match self.few.len() < FEW_KEYS {
            true => {
                self.few.push(hash);
                true
            }
            false => self.many.insert(hash),
        }
    }
}

/// The keys of the objects open in a document, for the proof (`super::proof`): only keys of
/// one object can repeat each other. Each object's first [`FEW_KEYS`] keys are searched in a
/// list; past them, an object's keys go into a hash set as well, so an object of many keys
/// costs linear time. Keys are compared by a cheap hash: two keys that share one read as a
/// repeat, which fails the proof and leaves the document to the fields (never a wrong "no
/// repeat").
#[derive(Default)]
pub(crate) struct ObjectKeys {
    /// Hashes of the keys of the open objects, innermost last.
    keys: smallvec::SmallVec<[u64; FEW_KEYS]>,
    /// Where the innermost open container's keys start in `keys`.
    start: usize,
    /// Where each open container's keys start in `keys`, but the innermost's, innermost last.
    starts: smallvec::SmallVec<[usize; 16]>,
    /// Containers opened so far: each one's number.
    opened: usize,
    /// Keys of objects past [`FEW_KEYS`] keys, with their object's number.
    many: std::collections::HashSet<(usize, u64)>,
}

impl ObjectKeys {
    /// A container opens: its number.
    pub(crate) fn open(&mut self) -> usize {
        self.starts.push(self.start);
        self.start = self.keys.len();
        self.opened += 1;
        self.opened
    }

    /// The innermost container closes.
    pub(crate) fn close(&mut self) {
        if let Some(outer) = self.starts.pop() {
            self.keys.truncate(self.start);
            self.start = outer;
        }
    }

    /// Adds `key` to the innermost object, numbered `object`; `false` if it (or a key of the
    /// same hash) was there already.
    #[inline(always)]
    pub(crate) fn insert(&mut self, object: usize, key: &[u8]) -> bool {
        let hash = key_hash(key);
        let start = self.start;
        let keys = self.keys.as_slice();
        let count = keys.len() - start;
        if count >= FEW_KEYS {
            return self.insert_many(object, hash, count);
        }
        if keys[start..].contains(&hash) {
            return false;
        }
        self.keys.push(hash);
        true
    }

    /// [`ObjectKeys::insert`] of `hash` into an object of `count` keys, [`FEW_KEYS`] or more:
    /// out of line, so that the search of a few keys stays small in its caller.
    #[inline(never)]
    fn insert_many(&mut self, object: usize, hash: u64, count: usize) -> bool {
        if count == FEW_KEYS {
            let few = self.keys[self.start..].iter().map(|&h| (object, h));
            self.many.extend(few);
        }
        if !self.many.insert((object, hash)) {
            return false;
        }
        self.keys.push(hash);
        true
    }
}

/// A cheap hash of a key, eight bytes at a time (its length mixed in first, so that a short
/// last word need not be padded the same way for every length).
#[inline]
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
    use super::last_word;

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
