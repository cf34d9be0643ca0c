//! Counts per finding kind (a leaf).

use crate::finding::FindingKind;

const KIND_COUNT: usize = FindingKind::ALL.len();

/// A count per finding kind, with the set of kinds counted (a clean field has none, and asking
/// costs one comparison instead of a walk over every kind). The counts are a fixed array on the
/// heap, allocated with the first count: a clean field's (and request's) counts are two words,
/// neither zeroed nor copied as an array when the findings of a field are moved.
#[derive(Clone, PartialEq, Eq, Default)]
pub(crate) struct KindCounts {
    counts: Option<Box<[u64; KIND_COUNT]>>,
    present: u64,
}

impl core::fmt::Debug for KindCounts {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl KindCounts {
    /// Adds `n` to `kind`'s count.
    #[inline]
    pub(crate) fn add(&mut self, kind: FindingKind, n: u64) {
        if n > 0 {
            let counts = self.counts.get_or_insert_with(|| Box::new([0; KIND_COUNT]));
            counts[kind.index()] += n;
            self.present |= 1 << kind.index();
        }
    }

    /// `kind`'s count.
    #[cfg(test)]
    pub(crate) fn get(&self, kind: FindingKind) -> u64 {
        self.counts.as_ref().map_or(0, |c| c[kind.index()])
    }

    /// Whether no kind has a count.
    pub(crate) fn is_empty(&self) -> bool {
        self.present == 0
    }

    /// The kinds with a count, in declaration order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (FindingKind, u64)> + '_ {
        let mut bits = self.present;
        core::iter::from_fn(move || {
            let i = bits.trailing_zeros() as usize;
            (bits != 0).then(|| {
                bits &= bits - 1;
                let n = self.counts.as_ref().map_or(0, |c| c[i]);
                (FindingKind::ALL[i], n)
            })
        })
    }

    /// Adds every count of `other`.
    pub(crate) fn add_all(&mut self, other: &KindCounts) {
        for (kind, n) in other.iter() {
            self.add(kind, n);
        }
    }
}
