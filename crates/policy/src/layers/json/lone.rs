//! The lone surrogate escapes of one string (a leaf): where each U+FFFD that replaced one is,
//! and the code unit it was.

/// Entries a chunk holds.
const CHUNK: usize = 4096;

/// Lone surrogates in the order they were decoded: offset in the decoded value and code unit,
/// eight bytes each (an offset past 4 GiB is written as `u32::MAX`). Kept in chunks of a fixed
/// size, never one vector grown by doubling: a string of a million `\ud800` escapes holds
/// 8 MiB of them, not the 8 MiB and 16 MiB a vector holds at once while it grows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LoneSurrogates {
    chunks: Vec<Vec<(u32, u16)>>,
}

impl LoneSurrogates {
    /// Records one.
    pub(crate) fn push(&mut self, at: u32, unit: u16) {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < CHUNK => chunk.push((at, unit)),
            _ => {
                let mut chunk = Vec::with_capacity(CHUNK);
                chunk.push((at, unit));
                self.chunks.push(chunk);
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
        self.chunks.iter().map(Vec::len).sum()
    }

    /// Each, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, u16)> + '_ {
        self.chunks.iter().flatten().copied()
    }
}
