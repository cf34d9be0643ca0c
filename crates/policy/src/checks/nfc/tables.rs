//! The lookup tables, built once from `unicode-normalization`'s data: which characters are not
//! inert (NFC), and how many non-starters each adds to a Stream-Safe run.

use super::*;

/// A set of code points (bit `cp & 63` of a block), indexed for lookups from UTF-8 bytes: by a
/// character's first two bytes and, when needed, its third. Built for the NFC table (characters
/// that are not inert) and the stream-safe one (characters with leading non-starters).
#[derive(Debug)]
pub(super) struct ByteSet {
    /// The set.
    pub(super) set: Blocks<u64>,
    /// By lead byte (`0xC0..=0xFF`, 6 bits) and second byte (6 bits): the index in `masks` of
    /// the mask to test with the third byte. 0 (an empty mask) when no character starting with
    /// the two is in the set; an all-ones mask for a 2-byte character in the set; `full` (also
    /// all ones) when the third byte does not settle it (a 4-byte character).
    pub(super) pair: Box<[u16]>,
    /// The set's masks, then two all-ones masks (the last one is `full`).
    pub(super) masks: Box<[u64]>,
    /// The entry of `pair` that asks for a full lookup.
    pub(super) full: u16,
    /// The most selective filter [`Finder::find`](super::filter::Finder::find) may use for
    /// this set: [`SEQUENCES`] (after [`LEADS`]) when both flag every member; else [`LEADS`]
    /// or [`PLAIN`]. For Unicode 18 that is
    /// [`SEQUENCES`] for the NFC table and [`LEADS`] for the stream-safe one (U+FF9E and U+FF9F
    /// are inert, so [`may_be_not_inert`] clears them).
    pub(super) filter: u8,
}

impl ByteSet {
    /// Indexes `set`, which must hold nothing below U+0300 (the [`PLAIN`] filter's premise).
    pub(super) fn build(set: Blocks<u64>) -> Self {
        let member = |cp: u32| (set.block(cp) >> (cp & 63)) & 1 != 0;
        let sequences_exact = (0..0x11_0000u32)
            .filter(|&cp| member(cp))
            .filter_map(char::from_u32)
            .all(|c| {
                let mut utf8 = [0; 4];
                let b = c.encode_utf8(&mut utf8).as_bytes();
                match *b {
                    // Whatever follows a 2-byte character.
                    [b0, b1] => (0..=u8::MAX).all(|b2| may_be_not_inert(b0, b1, b2)),
                    [b0, b1, b2, ..] => may_be_not_inert(b0, b1, b2),
                    _ => false,
                }
            });
        let leads_exact = set.skipped_leads_are_empty();
        let filter = match (leads_exact, sequences_exact) {
            (true, true) => SEQUENCES,
            (true, false) => LEADS,
            _ => PLAIN,
        };
        // Two all-ones masks at the end: one for 2-byte members, one (the last) for 4-byte
        // pairs that need a full lookup.
        let mut masks = set.data.to_vec();
        let all = u16::try_from(masks.len()).unwrap_or(u16::MAX);
        let full = all.saturating_add(1);
        masks.extend([u64::MAX, u64::MAX]);
        let pair = (0..64u32 * 64)
            .map(|k| {
                let (b0, b1) = (0xC0 | (k >> 6), 0x80 | (k & 0x3F));
                match b0 {
                    0xC2..=0xDF => {
                        let cp = ((b0 & 0x1F) << 6) | (b1 & 0x3F);
                        if member(cp) { all } else { 0 }
                    }
                    0xE0..=0xEF => {
                        let block = ((b0 & 0x0F) << 6) | (b1 & 0x3F);
                        set.index.get(block as usize).copied().unwrap_or(0)
                    }
                    0xF0..=0xF4 => {
                        let first = (((b0 & 0x07) << 18) | ((b1 & 0x3F) << 12)) >> 6;
                        let clean = (first..first + 64)
                            .all(|n| set.index.get(n as usize).copied().unwrap_or(0) == 0);
                        if clean { 0 } else { full }
                    }
                    _ => 0,
                }
            })
            .collect();
        Self {
            set,
            pair,
            masks: masks.into_boxed_slice(),
            full,
            filter,
        }
    }

    /// Whether the character at `j` in valid UTF-8, which starts with the bytes `start` (then
    /// whatever follows), is in the set: looked up by its first two bytes and, when needed, its
    /// third; a 4-byte character may need a full lookup.
    #[inline(always)]
    pub(super) fn contains_at(&self, bytes: &[u8], j: usize, start: [u8; 3]) -> bool {
        let [b0, b1, b2] = start;
        let entry = self.pair[(usize::from(b0 & 0x3F) << 6) | usize::from(b1 & 0x3F)];
        // Branch-free until a bit is set, which clean text never reaches.
        let set = (self.masks[usize::from(entry)] >> (b2 & 63)) & 1 != 0;
        set && (entry != self.full || self.contains(decode(bytes, j).0))
    }

    /// Whether `cp` is in the set.
    #[inline(always)]
    pub(super) fn contains(&self, cp: u32) -> bool {
        (self.set.block(cp) >> (cp & 63)) & 1 != 0
    }
}

/// The table of characters that are not inert (not `NFC_QC=Yes` with ccc 0).
#[derive(Debug)]
pub(super) struct NfcTables {
    /// The characters that are not inert.
    pub(super) not_inert: ByteSet,
    /// What the quick check (UAX #15 §9) reads of each character: its canonical combining
    /// class in the low byte and its `NFC_QC` in the high one ([`QC_MAYBE`], [`QC_NO`]; 0 for
    /// Yes). Only blocks with a character that is not inert have entries: every other
    /// character is ccc 0 and Yes.
    pub(super) quick: Blocks<[u16; 64]>,
}

/// [`NfcTables::quick`]'s `NFC_QC=Maybe`.
pub(super) const QC_MAYBE: u16 = 1 << 8;
/// [`NfcTables::quick`]'s `NFC_QC=No`.
pub(super) const QC_NO: u16 = 2 << 8;

impl NfcTables {
    /// Builds the table from `unicode-normalization`'s data.
    pub(super) fn build() -> Self {
        let not_inert = Blocks::build(0u64, |n| {
            (0..64).fold(0u64, |mask, k| {
                let c = char::from_u32((n << 6) | k);
                mask | (u64::from(c.is_some_and(|c| !is_inert(c))) << k)
            })
        });
        let quick = Blocks::build([0u16; 64], |n| {
            let mut block = [0u16; 64];
            if not_inert.index.get(n as usize).is_some_and(|&k| k != 0) {
                for (k, entry) in (0u32..).zip(block.iter_mut()) {
                    if let Some(c) = char::from_u32((n << 6) | k) {
                        *entry = quick_entry(c);
                    }
                }
            }
            block
        });
        Self {
            not_inert: ByteSet::build(not_inert),
            quick,
        }
    }

    /// Whether `cp` is not inert.
    #[inline(always)]
    pub(super) fn is_not_inert(&self, cp: u32) -> bool {
        self.not_inert.contains(cp)
    }

    /// The quick check of UAX #15 §9 for NFC, as `unicode-normalization`'s `is_nfc_quick`
    /// answers it, from [`quick`](Self::quick): No at a non-starter of a lower class than the
    /// one before it or at a No character, else Maybe if a character is Maybe, else Yes.
    pub(super) fn quick_check(&self, text: &str) -> IsNormalized {
        let (mut last, mut maybe) = (0u16, false);
        for c in text.chars() {
            let cp = u32::from(c);
            let entry = self.quick.block(cp)[(cp & 63) as usize];
            let ccc = entry & 0xFF;
            if (last > ccc && ccc != 0) || entry & QC_NO != 0 {
                return IsNormalized::No;
            }
            maybe |= entry & QC_MAYBE != 0;
            last = ccc;
        }
        match maybe {
            true => IsNormalized::Maybe,
            false => IsNormalized::Yes,
        }
    }
}

/// [`NfcTables::quick`]'s entry for `c`.
pub(super) fn quick_entry(c: char) -> u16 {
    let qc = match is_nfc_quick(core::iter::once(c)) {
        IsNormalized::Yes => 0,
        IsNormalized::Maybe => QC_MAYBE,
        IsNormalized::No => QC_NO,
    };
    qc | u16::from(canonical_combining_class(c))
}

/// Whether `c` is inert: `NFC_QC=Yes` and canonical combining class 0 (the definition the
/// table is built from).
pub(super) fn is_inert(c: char) -> bool {
    canonical_combining_class(c) == 0 && is_nfc_quick(core::iter::once(c)) == IsNormalized::Yes
}

/// The shared, lazily built NFC table.
pub(super) fn nfc_tables() -> &'static NfcTables {
    static TABLES: OnceLock<NfcTables> = OnceLock::new();
    TABLES.get_or_init(NfcTables::build)
}

/// What the stream-safe count needs of one character, packed in a byte: bits 0–2 the leading
/// non-starters of its NFKD, bits 3–5 the trailing ones, bit 6 set when its NFKD consists only
/// of non-starters. (Unicode 18 needs at most 2 leading and 3 trailing; a test checks that the
/// three bits suffice.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct NonstarterProps(u8);

impl NonstarterProps {
    /// Computes the properties of `c` from its NFKD.
    pub(super) fn of(c: char) -> Self {
        let (mut len, mut lead, mut trail) = (0u32, 0u32, 0u32);
        decompose_compatible(c, |d| {
            let nonstarter = canonical_combining_class(d) != 0;
            if nonstarter {
                trail += 1;
                if lead == len {
                    lead += 1;
                }
            } else {
                trail = 0;
            }
            len += 1;
        });
        let all = u8::from(lead == len && len > 0);
        let clamp = |n: u32| u8::try_from(n.min(7)).unwrap_or(7);
        Self(clamp(lead) | (clamp(trail) << 3) | (all << 6))
    }

    /// Leading non-starters of the NFKD.
    pub(super) fn lead(self) -> u8 {
        self.0 & 7
    }

    /// Trailing non-starters of the NFKD.
    pub(super) fn trail(self) -> u8 {
        (self.0 >> 3) & 7
    }

    /// Whether the NFKD consists only of non-starters.
    pub(super) fn all_nonstarters(self) -> bool {
        self.0 & 0x40 != 0
    }
}

/// The per-character data of the stream-safe count.
#[derive(Debug)]
pub(super) struct StreamSafeTables {
    /// [`NonstarterProps`] of every code point.
    pub(super) props: Blocks<[NonstarterProps; 64]>,
    /// The largest trailing count of any character.
    pub(super) max_trail: u8,
    /// The largest leading count of any character.
    pub(super) max_lead: u8,
    /// The characters with leading non-starters, which the scan looks for.
    pub(super) leading: ByteSet,
    /// The ones that are inert, which the NFC scan does not report, grouped by their UTF-8
    /// but the last byte: a searcher for that prefix, and the last bytes that complete one of
    /// them (one group in Unicode 18: `EF BE` then `9E` or `9F`), so that text is searched
    /// once per group.
    pub(super) inert_leading: Vec<(memchr::memmem::Finder<'static>, Vec<u8>)>,
}

impl StreamSafeTables {
    /// Builds the table from `unicode-normalization`'s data.
    pub(super) fn build() -> Self {
        let (mut max_trail, mut max_lead) = (0, 0);
        let mut leading = Vec::new();
        let props = Blocks::build([NonstarterProps::default(); 64], |n| {
            let mut block = [NonstarterProps::default(); 64];
            let mut lead_bits = 0u64;
            for (k, p) in (0u32..).zip(block.iter_mut()) {
                if let Some(c) = char::from_u32((n << 6) | k) {
                    *p = NonstarterProps::of(c);
                    max_trail = max_trail.max(p.trail());
                    max_lead = max_lead.max(p.lead());
                    lead_bits |= u64::from(p.lead() > 0) << k;
                }
            }
            leading.push(lead_bits);
            block
        });
        // A character with leading non-starters must be found by `find`: none below U+0300
        // (a test checks it), and the filter is chosen by what it flags.
        let leading = ByteSet::build(Blocks::build(0u64, |n| leading[n as usize]));
        let inert_leading: Vec<String> = (0..0x11_0000u32)
            .filter(|&cp| leading.contains(cp))
            .filter_map(char::from_u32)
            .filter(|&c| is_inert(c))
            .map(String::from)
            .collect();
        let mut groups: Vec<(&[u8], Vec<u8>)> = Vec::new();
        for c in &inert_leading {
            // Every such character is at least two bytes (ASCII has no non-starter).
            let (last, prefix) = c.as_bytes().split_last().expect("not empty");
            match groups.iter_mut().find(|(p, _)| *p == prefix) {
                Some((_, lasts)) => lasts.push(*last),
                None => groups.push((prefix, vec![*last])),
            }
        }
        let inert_leading = groups
            .into_iter()
            .map(|(prefix, lasts)| (memchr::memmem::Finder::new(prefix).into_owned(), lasts))
            .collect();
        Self {
            props,
            max_trail,
            max_lead,
            leading,
            inert_leading,
        }
    }

    /// The fewest consecutive non-ASCII bytes that hold a run over `limit`, when they are
    /// enough to tell words apart (`None`: count every character). With `limit >= max_trail`,
    /// the run's first character adds at most `max_trail` and each one after it at least one
    /// leading non-starter and at most `max_lead`, in two bytes or more (none is ASCII): over
    /// `limit` takes `(limit - max_trail) / max_lead + 1` such characters.
    pub(super) fn stretch_for_a_run_over(&self, limit: usize) -> Option<usize> {
        let (trail, lead) = (usize::from(self.max_trail), usize::from(self.max_lead));
        let after = limit.checked_sub(trail)? / lead.max(1) + 1;
        // Under 15 bytes a stretch need not hold a whole aligned word: see `long_high_stretch`.
        (2 * after >= 15).then_some(2 * after)
    }

    /// The properties of `cp`.
    #[inline(always)]
    pub(super) fn props(&self, cp: u32) -> NonstarterProps {
        self.props.block(cp)[(cp & 63) as usize]
    }
}

/// The shared, lazily built stream-safe table.
pub(super) fn stream_safe_tables() -> &'static StreamSafeTables {
    static TABLES: OnceLock<StreamSafeTables> = OnceLock::new();
    TABLES.get_or_init(StreamSafeTables::build)
}

impl Lookup for NfcTables {
    /// A character that is not inert.
    #[inline(always)]
    fn hit(&self, bytes: &[u8], j: usize, start: [u8; 3]) -> bool {
        self.not_inert.contains_at(bytes, j, start)
    }
}

impl Lookup for StreamSafeTables {
    /// A character with leading non-starters in its NFKD.
    #[inline(always)]
    fn hit(&self, bytes: &[u8], j: usize, start: [u8; 3]) -> bool {
        self.leading.contains_at(bytes, j, start)
    }
}
