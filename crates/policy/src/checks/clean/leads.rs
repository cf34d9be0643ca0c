//! The refined tests of the leads `C2`/`CE`/`CF`, `D8`–`DB`, `E2`/`EA` and `E3`, written
//! once for the two builds that spell them with the same lane operations (`avx2`, `simd128`):
//! a change to what those leads prove clean is made here, and both builds and their tests
//! follow. The leads `EF` and `Fx` use each build's own table lookups and stay there.

/// The lanes of `$b0` (the block), `$b1` and `$b2` (it one and two bytes later) whose lead is
/// proven clean by the tests of the leads `present` says the window has, starting from
/// `$zero`. The expansion calls the caller's lane operations, passed by name: `eq(v, k)`,
/// `ge(v, k)` (unsigned), `within(v, lo, hi)`, `and(a, b)`, `or(a, b)` and `andnot(a, b)`
/// (`b & !a`); `$best_fit` is the table in use.
macro_rules! clean_leads {
    (
        $present:expr, $zero:expr, ($b0:ident, $b1:ident, $b2:ident), $best_fit:expr,
        [$eq:ident, $ge:ident, $within:ident, $and:ident, $or:ident, $andnot:ident]
    ) => {{
        let mut lanes = $zero;
        if $present.c {
            let latin1 = $andnot(
                $or(
                    $or($eq($b1, 0xA5), $eq($b1, 0xAB)),
                    $or($eq($b1, 0xAD), $eq($b1, 0xBB)),
                ),
                $and($eq($b0, 0xC2), $ge($b1, 0xA0)),
            );
            let greek = $or($andnot($eq($b1, 0x87), $eq($b0, 0xCE)), $eq($b0, 0xCF));
            lanes = $or(latin1, greek);
        }
        if $present.d {
            // Arabic letters (`arabic_letter`).
            let d9 = $or(
                $or($within($b1, 0x81, 0x8A), $within($b1, 0xAE, 0xAF)),
                $ge($b1, 0xB1),
            );
            let db = $or(
                $or($within($b1, 0x80, 0x93), $eq($b1, 0x95)),
                $or(
                    $or($within($b1, 0xAE, 0xAF), $within($b1, 0xBA, 0xBC)),
                    $eq($b1, 0xBF),
                ),
            );
            let arabic = $or(
                $or(
                    $and($eq($b0, 0xD8), $ge($b1, 0xA0)),
                    $and($eq($b0, 0xD9), d9),
                ),
                $or($eq($b0, 0xDA), $and($eq($b0, 0xDB), db)),
            );
            lanes = $or(lanes, arabic);
        }
        if $present.e2 {
            let e2 = $eq($b0, 0xE2);
            let mut not_symbols = $or($eq($b1, 0x88), $eq($b1, 0x8C));
            if $best_fit {
                let enclosed = $or($or($eq($b1, 0x91), $eq($b1, 0x92)), $eq($b1, 0xA9));
                not_symbols = $or(not_symbols, enclosed);
            }
            let symbols = $andnot(not_symbols, $within($b1, 0x85, 0xAA));
            // Spaces and format characters, then dashes, quotes and bullets (`typographic`).
            let typographic = if $best_fit {
                $or($within($b2, 0x92, 0x97), $within($b2, 0xA0, 0xA2))
            } else {
                $within($b2, 0x92, 0xA2)
            };
            let spaces = $and($eq($b1, 0x80), $or($within($b2, 0x82, 0x8F), typographic));
            let hangul = $and($eq($b0, 0xEA), $ge($b1, 0xB0));
            lanes = $or(lanes, $or($and(e2, $or(spaces, symbols)), hangul));
        }
        if $present.e3 {
            let e3 = $eq($b0, 0xE3);
            let mut marks = $or(
                $and($eq($b1, 0x80), $within($b2, 0xAA, 0xAF)),
                $and($eq($b1, 0x82), $within($b2, 0x99, 0x9A)),
            );
            if $best_fit {
                marks = $or(
                    marks,
                    $or($or($eq($b1, 0x88), $eq($b1, 0x89)), $eq($b1, 0x8F)),
                );
            }
            lanes = $or(lanes, $andnot(marks, e3));
        }
        lanes
    }};
}

pub(super) use clean_leads;
