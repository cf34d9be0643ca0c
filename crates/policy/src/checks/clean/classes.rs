//! The classifier's tables: the coarse classes of lead bytes and the full-width lookalikes'
//! third bytes (derived from the lookalike table), and the context they are read in. Shared by
//! the portable classifier (`super`) and the AVX2 one (`super::avx2`); it uses only the
//! lookalike table's data.

/// What the classifier needs to know about the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Context {
    /// TAB, LF and CR are ordinary (text content parts); elsewhere they are candidates.
    pub(crate) text_content: bool,
    /// The best-fit lookalike table is in use (more full-width forms are candidates).
    pub(crate) best_fit: bool,
}

impl Context {
    /// The context of a field of `part` checked with the lookalike table `table`.
    pub(crate) fn of(part: crate::location::Part, table: crate::checks::lookalike::Table) -> Self {
        Context {
            text_content: part.is_text_content(),
            best_fit: table == crate::checks::lookalike::Table::BestFit,
        }
    }
}

/// Coarse classes by high nibble of a byte; a byte is a coarse candidate when
/// `COARSE_HI[b >> 4] & COARSE_LO[b & 15] != 0` (with [`coarse_lo`] for the part). The leads
/// `E3` and `EF` have classes of their own, so that the classes of a block say which refined
/// tests it needs.
pub(crate) const COARSE_HI: [u8; 16] = [
    0x01, 0x40, 0, 0, 0, 0, 0, 0x04, 0, 0, 0, 0, 0x08, 0x10, 0xA2, 0x40,
];

/// Coarse classes by low nibble: bit 0 ASCII `0x00`–`0x0F` (all but TAB, LF, CR in text), bit 6
/// `0x10`–`0x1F` and `F0`–`FF`, bit 2 DEL, bit 3 `C0`–`C2`, `CA`, `CC`–`CF`, bit 4 `D2`–`DF`,
/// bit 5 `E0`–`E2`, `EA`, `EE`, bit 1 `E3`, bit 7 `EF`.
pub(crate) const fn coarse_lo(text_content: bool) -> [u8; 16] {
    let mut lo = [0u8; 16];
    let mut n = 0;
    while n < 16 {
        let ordinary = text_content && (n == 0x9 || n == 0xA || n == 0xD);
        let mut bits = 0x40;
        if !ordinary {
            bits |= 0x01;
        }
        if n == 0xF {
            bits |= 0x04 | 0x80;
        }
        if n <= 2 || n == 0xA || n >= 0xC {
            bits |= 0x08;
        }
        if n >= 2 {
            bits |= 0x10;
        }
        if n <= 2 || n == 0xA || n == 0xE {
            bits |= 0x20;
        }
        if n == 3 {
            bits |= 0x02;
        }
        lo[n] = bits;
        n += 1;
    }
    lo
}

/// [`coarse_lo`] for text content and for the other parts.
pub(crate) const COARSE_LO: [[u8; 16]; 2] = [coarse_lo(false), coarse_lo(true)];

/// Full-width lookalikes by the high nibble of their third byte (`EF BC xx`, `EF BD xx`): bit
/// `h - 8` for `h` in `8`..`B`.
pub(crate) const FULL_WIDTH_HI: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 0, 0, 0, 0];

/// Full-width lookalikes by the low nibble of their third byte, for the default table and the
/// best-fit one, derived from the lookalike table (`lookalike::full_width_lo`). Both rows
/// `EF BC` and `EF BD` share it (U+FF00..U+FF7F), so a few ordinary forms in the same cells
/// (half-width katakana) are candidates too.
pub(crate) const FULL_WIDTH_LO: [[u8; 16]; 2] = [
    crate::checks::lookalike::full_width_lo(false),
    crate::checks::lookalike::full_width_lo(true),
];

/// Whether byte `b` is a coarse candidate.
#[inline(always)]
pub(crate) fn coarse(b: u8, cx: Context) -> bool {
    COARSE_HI[usize::from(b >> 4)] & COARSE_LO[usize::from(cx.text_content)][usize::from(b & 15)]
        != 0
}
