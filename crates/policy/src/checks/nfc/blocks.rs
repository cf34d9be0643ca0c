//! Per-code-point data in blocks of 64 code points, shared between equal blocks: the form of
//! every table of the parent module (a leaf of it).

use super::filter::SKIPPED_LEADS;

/// Per-code-point data stored in blocks of 64 code points; blocks that are all default share
/// entry 0 of `data`.
#[derive(Debug)]
pub(super) struct Blocks<T> {
    /// Code point >> 6 to index in `data`. Code points past its end have the default value.
    pub(super) index: Box<[u16]>,
    /// The distinct-by-position blocks; `data[0]` is the all-default block.
    pub(super) data: Box<[T]>,
}

impl<T: Copy + PartialEq> Blocks<T> {
    /// Builds the table from `block(n)`, the data of code points `64 * n .. 64 * n + 64`.
    pub(super) fn build(empty: T, mut block: impl FnMut(u32) -> T) -> Self {
        let mut index = Vec::new();
        let mut data = vec![empty];
        for n in 0..(0x11_0000 >> 6) {
            let b = block(n);
            if b == empty {
                index.push(0);
            } else {
                // At most 0x4400 blocks, so the index always fits.
                index.push(u16::try_from(data.len()).unwrap_or(u16::MAX));
                data.push(b);
            }
        }
        let used = index.iter().rposition(|&k| k != 0).map_or(0, |k| k + 1);
        index.truncate(used);
        Self {
            index: index.into_boxed_slice(),
            data: data.into_boxed_slice(),
        }
    }

    /// The block holding `cp`.
    #[inline(always)]
    pub(super) fn block(&self, cp: u32) -> T {
        let k = self.index.get((cp >> 6) as usize).copied().unwrap_or(0);
        self.data[usize::from(k)]
    }

    /// Whether every code point behind UTF-8 lead byte `lead` has the default value.
    pub(super) fn lead_is_empty(&self, lead: u8) -> bool {
        let (first, last) = match lead {
            0xC2..=0xDF => (
                u32::from(lead & 0x1F) << 6,
                (u32::from(lead & 0x1F) << 6) | 0x3F,
            ),
            0xE0..=0xEF => (
                u32::from(lead & 0x0F) << 12,
                (u32::from(lead & 0x0F) << 12) | 0xFFF,
            ),
            0xF0..=0xF4 => (
                u32::from(lead & 0x07) << 18,
                ((u32::from(lead & 0x07) << 18) | 0x3_FFFF).min(0x10_FFFF),
            ),
            _ => return true,
        };
        ((first >> 6)..=(last >> 6)).all(|n| self.index.get(n as usize).copied().unwrap_or(0) == 0)
    }

    /// Whether every lead byte in [`SKIPPED_LEADS`] has only default entries behind it.
    pub(super) fn skipped_leads_are_empty(&self) -> bool {
        SKIPPED_LEADS
            .iter()
            .all(|&(lo, hi)| (lo..=hi).all(|lead| self.lead_is_empty(lead)))
    }
}
