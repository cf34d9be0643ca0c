//! The lone surrogate escapes of one string (a leaf): where each U+FFFD that replaced one is,
//! and the code unit it was.

/// Entries a chunk holds.
const CHUNK: usize = 4096;

/// Lone surrogates in the order they were decoded: offset in the decoded value and code unit,
/// six bytes each (an offset past 4 GiB is written as `u32::MAX`). Kept in chunks of a fixed
/// size, offsets and units apart (no padding), never one vector grown by doubling: a string of
/// a million `\ud800` escapes holds 6 MiB of them, not the 8 MiB and 16 MiB a vector of pairs
/// holds at once while it grows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LoneSurrogates {
    chunks: Vec<(Vec<u32>, Vec<u16>)>,
}

impl LoneSurrogates {
    /// Records one.
    pub(crate) fn push(&mut self, at: u32, unit: u16) {
        match self.chunks.last_mut() {
            Some((offsets, units)) if offsets.len() < CHUNK => {
                offsets.push(at);
                units.push(unit);
            }
            _ => {
                let (mut offsets, mut units) =
                    (Vec::with_capacity(CHUNK), Vec::with_capacity(CHUNK));
                offsets.push(at);
                units.push(unit);
                self.chunks.push((offsets, units));
            }
        }
    }

    /// `true` when there is none.
    pub(crate) fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// How many there are.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.chunks.iter().map(|(offsets, _)| offsets.len()).sum()
    }

    /// Each, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, u16)> + '_ {
        self.chunks
            .iter()
            .flat_map(|(offsets, units)| offsets.iter().copied().zip(units.iter().copied()))
    }
}
