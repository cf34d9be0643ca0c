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
