//! The checks run on every field, each in its own module. They produce raw findings
//! ([`RawFinding`]): findings before the profile has chosen their
//! action. [`run`] runs them all on one field; [`wide`] is the same code compiled for AVX2;
//! [`bytes`] holds the byte scans they share. [`clean`] proves characters clean for every check
//! in one pass, so that [`segmented`] runs the character and NFC checks only around the others.

use crate::decide::found::Found;

pub(crate) mod bom;
pub(crate) mod bytes;
pub(crate) mod clean;
pub(crate) mod controls;
pub(crate) mod lookalike;
pub(crate) mod nfc;
mod per_check;
mod run;
mod segmented;
pub(crate) mod traversal;
pub(crate) mod utf8;
mod wide;

pub(crate) use per_check::CheckOptions;

/// Runs every check on one field's bytes: the same code compiled for 256-bit vectors when the
/// CPU has them (see [`wide`]), else for the baseline ([`run`]).
pub(crate) fn check_field(
    part: crate::location::Part,
    bytes: &[u8],
    at_body_start: bool,
    options: &CheckOptions,
    out: &mut Found,
) {
    if !wide::check_field(part, bytes, at_body_start, options, out) {
        run::check_field_inlined(part, bytes, at_body_start, options, out);
    }
}

/// The character and NFC checks of valid `text` read as one field of `part` that does not
/// start a body, without the traversal check (which reads a field whole: a document of many
/// fields is not one path). What `readings::json::prove` runs once over a whole document.
/// Returns the first lookalike with path syntax, as the checks of a field find it.
pub(crate) fn check_text(
    part: crate::location::Part,
    text: &str,
    options: &CheckOptions,
    out: &mut Found,
) -> Option<(usize, char)> {
    match wide::check_text(part, text, options, out) {
        Some(first) => first,
        None => segmented::check_run(part, 0, text, false, options, out),
    }
}

/// What [`check_field`] reports with no bound (tests).
#[cfg(test)]
pub(crate) fn found_in(
    part: crate::location::Part,
    bytes: &[u8],
    at_body_start: bool,
    options: &CheckOptions,
) -> Found {
    let mut out = Found::unbounded();
    check_field(part, bytes, at_body_start, options, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::location::Part;

    /// Text that exercises every check: ASCII, path syntax, controls, BOMs, lookalikes,
    /// combining marks, mixed scripts, and bytes that are not UTF-8.
    fn field_bytes() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"abc/../x".to_vec()),
            Just(
                "\u{0}\t\n\u{1b}\u{85}\u{202e}\u{feff}\u{fffe}"
                    .as_bytes()
                    .to_vec()
            ),
            Just(
                "e\u{301}\u{301}\u{301}\u{325}\u{ff0e}\u{2024}\u{2215}"
                    .as_bytes()
                    .to_vec()
            ),
            Just(
                "Ξεσκεπάζω 我能吞下 いろはにほへと ガ أنا 나는 👍🎉"
                    .as_bytes()
                    .to_vec()
            ),
            Just(vec![
                0xC0, 0xAE, 0xED, 0xA0, 0xBD, 0xF8, 0x88, 0x80, 0x80, 0x80
            ]),
            proptest::collection::vec(any::<u8>(), 0..8),
            any::<char>().prop_map(|c| c.to_string().into_bytes()),
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
    }

    /// The shortcut still runs the traversal check.
    #[test]
    fn printable_ascii_shortcut_keeps_traversal() {
        let options = super::CheckOptions {
            lookalikes: super::lookalike::Table::Default,
            max_nonstarters: 3,
        };
        let mut findings = crate::decide::found::Found::unbounded();
        super::run::check_field_inlined(
            Part::Path,
            b"/a/../etc/passwd",
            false,
            &options,
            &mut findings,
        );
        assert!(
            findings
                .detailed
                .iter()
                .any(|f| f.kind == crate::finding::FindingKind::DotSegment),
            "{findings:?}"
        );
    }

    proptest! {
        /// The shortcut for short printable ASCII finds what the full checks find.
        #[test]
        fn printable_ascii_shortcut_finds_what_the_checks_find(
            text in "([ -~]|\\.\\./|%2[eEfF]|/\\.|\\.\\.\\\\){0,60}",
            part in prop_oneof![Just(Part::Path), Just(Part::QueryValue), Just(Part::Header), Just(Part::JsonString)],
        ) {
            let options = super::CheckOptions {
                lookalikes: super::lookalike::Table::Default,
                max_nonstarters: 3,
            };
            let bytes = text.as_bytes();
            prop_assume!(bytes.len() <= 256);
            let mut shortcut = crate::decide::found::Found::unbounded();
            super::run::check_field_inlined(part, bytes, false, &options, &mut shortcut);
            let mut full = crate::decide::found::Found::unbounded();
            super::run::check_any_field(part, bytes, false, &options, &mut full);
            prop_assert_eq!(shortcut, full);
        }

        /// The AVX2 build of the checks finds exactly what the portable build finds (on a CPU
        /// without AVX2 there is only one build and nothing to compare).
        #[test]
        fn avx2_build_finds_what_the_portable_build_finds(
            bytes in field_bytes(),
            part in prop_oneof![Just(Part::Path), Just(Part::Header), Just(Part::JsonString), Just(Part::Body)],
            at_body_start in any::<bool>(),
            best_fit in any::<bool>(),
        ) {
            let options = super::CheckOptions {
                lookalikes: if best_fit { super::lookalike::Table::BestFit } else { super::lookalike::Table::Default },
                max_nonstarters: 3,
            };
            let mut portable = crate::decide::found::Found::unbounded();
            super::run::check_field_inlined(part, &bytes, at_body_start, &options, &mut portable);
            let mut wide = crate::decide::found::Found::unbounded();
            if super::wide::check_field(part, &bytes, at_body_start, &options, &mut wide) {
                prop_assert_eq!(wide, portable);
            }
        }
    }

    proptest! {
        /// `for_each_flagged` visits exactly the flagged indexes, in order, across whole
        /// blocks and the tail.
        #[test]
        fn for_each_flagged_visits_the_flagged_bytes_in_order(
            bytes in proptest::collection::vec(any::<u8>(), 0..400),
            pivot in any::<u8>(),
        ) {
            let flag = |b: u8| (b >= pivot) & b.is_multiple_of(3);
            let mut seen = Vec::new();
            super::bytes::for_each_flagged(&bytes, flag, |i| seen.push(i));
            let expected: Vec<usize> = (0..bytes.len()).filter(|&i| flag(bytes[i])).collect();
            prop_assert_eq!(seen, expected);
        }

        /// The word-at-a-time test of a short field reads as a byte loop: `None` past a byte
        /// that is not printable ASCII, else whether a `.` or `%` is there (edge bytes of each
        /// range, at every offset of a word and its tail).
        #[test]
        fn printable_ascii_dots_reads_as_a_byte_loop(
            bytes in prop_oneof![
                proptest::collection::vec(any::<u8>(), 0..80),
                "[ -~]{0,80}".prop_map(String::into_bytes),
                proptest::collection::vec(
                    prop_oneof![
                        Just(0x00u8), Just(0x1F), Just(0x20), Just(0x2D), Just(0x2F),
                        Just(0x24), Just(0x26), Just(b'.'), Just(b'%'), Just(b'a'),
                        Just(0x7E), Just(0x7F), Just(0x80), Just(0xA0), Just(0xAE), Just(0xFF),
                    ],
                    0..40,
                ),
                "[a-z]{0,40}".prop_flat_map(|s| {
                    let len = s.len();
                    (Just(s.into_bytes()), 0..=len, prop_oneof![Just(b'.'), Just(b'%'), Just(0x7F), Just(0x1F), Just(0xC3)])
                }).prop_map(|(mut b, at, x)| { b.insert(at, x); b }),
            ],
        ) {
            let expected = bytes
                .iter()
                .all(|&b| (0x20..0x7F).contains(&b))
                .then(|| bytes.iter().any(|&b| b == b'.' || b == b'%'));
            prop_assert_eq!(super::bytes::printable_ascii_dots(&bytes), expected);
        }
    }
}
