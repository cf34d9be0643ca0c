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
    /// Where each open container's keys start in `keys`, innermost last.
    starts: smallvec::SmallVec<[usize; 16]>,
    /// Containers opened so far: each one's number.
    opened: usize,
    /// Keys of objects past [`FEW_KEYS`] keys, with their object's number.
    many: std::collections::HashSet<(usize, u64)>,
}

impl ObjectKeys {
    /// A container opens: its number.
    pub(crate) fn open(&mut self) -> usize {
        self.starts.push(self.keys.len());
        self.opened += 1;
        self.opened
    }

    /// The innermost container closes.
    pub(crate) fn close(&mut self) {
        if let Some(start) = self.starts.pop() {
            self.keys.truncate(start);
        }
    }

    /// Adds `key` to the innermost object, numbered `object`; `false` if it (or a key of the
    /// same hash) was there already.
    pub(crate) fn insert(&mut self, object: usize, key: &[u8]) -> bool {
        let hash = key_hash(key);
        let start = self.starts.last().copied().unwrap_or(0);
        let count = self.keys.len() - start;
        if count < FEW_KEYS {
            if self.keys[start..].contains(&hash) {
                return false;
            }
        } else {
            if count == FEW_KEYS {
                let few = self.keys[start..].iter().map(|&h| (object, h));
                self.many.extend(few);
            }
            if !self.many.insert((object, hash)) {
                return false;
            }
        }
        self.keys.push(hash);
        true
    }
}

/// A cheap hash of a key, eight bytes at a time.
fn key_hash(key: &[u8]) -> u64 {
    key.chunks(8).fold(key.len() as u64, |h, chunk| {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(0x517c_c1b7_2722_0a95)
    })
}
