//! The checks run on every field, each in its own module. They produce raw findings
//! ([`RawFinding`](crate::finding::RawFinding)): findings before the profile has chosen their
//! action.

use std::borrow::Cow;

use crate::finding::{FindingKind, Fix, RawFinding};

pub(crate) mod bom;
pub(crate) mod controls;
pub(crate) mod lookalike;
pub(crate) mod nfc;
pub(crate) mod traversal;
pub(crate) mod utf8;
mod wide;

/// What the checks need to know beyond the field's bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CheckOptions {
    /// Which lookalike table to use.
    pub(crate) lookalikes: lookalike::Table,
    /// Longest run of non-starters before `excessive_combining`.
    pub(crate) max_nonstarters: usize,
}

/// Calls `found(i)` for every index whose byte `flag` accepts, in order. `flag` should be
/// branch-free (`&`/`|` of comparisons) so that the block test vectorizes. The checks flag only
/// bytes that start a character.
///
/// Bytes are tested 64 at a time into a block of 0/1 flags (a loop LLVM vectorizes); a block
/// with none is skipped, and the flags of the others are packed into a bit mask whose set bits
/// are visited, so a block costs about the same however many bytes it flags.
#[inline(always)]
pub(crate) fn for_each_flagged(
    bytes: &[u8],
    flag: impl Fn(u8) -> bool,
    mut found: impl FnMut(usize),
) {
    const BLOCK: usize = 64;
    let blocks = bytes.chunks_exact(BLOCK);
    let tail_start = bytes.len() - blocks.remainder().len();
    for (n, block) in blocks.enumerate() {
        let mut flags = [0u8; BLOCK];
        let mut any = 0u8;
        for (f, &b) in flags.iter_mut().zip(block) {
            *f = u8::from(flag(b));
            any |= *f;
        }
        if any == 0 {
            continue;
        }
        let mut mask = pack_flags(&flags);
        while mask != 0 {
            found(n * BLOCK + mask.trailing_zeros() as usize);
            mask &= mask - 1;
        }
    }
    for (i, &b) in bytes[tail_start..].iter().enumerate() {
        if flag(b) {
            found(tail_start + i);
        }
    }
}

/// 64 flags of 0 or 1 as a bit mask (bit `i` for `flags[i]`), eight at a time with a
/// multiplication that gathers byte `i`'s bit into bit 56 + `i` without carries.
#[inline(always)]
pub(crate) fn pack_flags(flags: &[u8; 64]) -> u64 {
    flags
        .chunks_exact(8)
        .enumerate()
        .fold(0u64, |mask, (j, eight)| {
            let mut word = [0u8; 8];
            word.copy_from_slice(eight);
            let bits = u64::from_le_bytes(word).wrapping_mul(0x0102_0408_1020_4080) >> 56;
            mask | (bits << (8 * j))
        })
}

/// The character starting at byte `at` of `text` (which must be a char boundary).
#[inline]
pub(crate) fn char_at(text: &str, at: usize) -> Option<char> {
    text.get(at..).and_then(|rest| rest.chars().next())
}

/// The valid stretches of `bytes` between the given malformations, with their offsets.
pub(crate) fn valid_runs<'a>(
    bytes: &'a [u8],
    malformations: &[utf8gate_codec::Malformation],
) -> Vec<(usize, &'a str)> {
    let mut runs = Vec::with_capacity(malformations.len() + 1);
    let mut at = 0;
    let ends = malformations
        .iter()
        .map(|m| m.range())
        .chain(core::iter::once(bytes.len()..bytes.len()));
    for range in ends {
        if let Ok(text) = utf8gate_codec::validate(&bytes[at..range.start.min(bytes.len())]) {
            if !text.is_empty() {
                runs.push((at, text));
            }
        }
        at = range.end.min(bytes.len());
    }
    runs
}

/// Runs every check on one field's bytes: the same code compiled for 256-bit vectors when the
/// CPU has them (see [`wide`]), else for the baseline.
pub(crate) fn check_field(
    part: crate::location::Part,
    bytes: &[u8],
    at_body_start: bool,
    options: &CheckOptions,
) -> Vec<RawFinding> {
    wide::check_field(part, bytes, at_body_start, options)
        .unwrap_or_else(|| check_field_inlined(part, bytes, at_body_start, options))
}

/// [`check_field`]'s body, inlined into each of its builds together with the scans it calls.
#[inline(always)]
fn check_field_inlined(
    part: crate::location::Part,
    bytes: &[u8],
    at_body_start: bool,
    options: &CheckOptions,
) -> Vec<RawFinding> {
    // Short printable ASCII (most paths, query values and headers) is valid UTF-8 with no
    // control character and nothing any other character check looks for: only the traversal
    // check can find something in it.
    if bytes.len() <= 256 && bytes.iter().all(|&b| (0x20..0x7F).contains(&b)) {
        let mut findings = Vec::new();
        let known = traversal::Known {
            text: core::str::from_utf8(bytes).ok(),
            path_lookalike: None,
        };
        traversal::scan_with(part, bytes, &[], options.lookalikes, known, &mut findings);
        return findings;
    }
    check_any_field(part, bytes, at_body_start, options)
}

/// [`check_field_inlined`] for any field, without the shortcut for printable ASCII.
#[inline(always)]
fn check_any_field(
    part: crate::location::Part,
    bytes: &[u8],
    at_body_start: bool,
    options: &CheckOptions,
) -> Vec<RawFinding> {
    // Valid fields (the usual case) are validated once; only invalid ones are diagnosed.
    let whole;
    let (malformations, runs, text) = match utf8gate_codec::validate(bytes) {
        Ok(text) => {
            // A valid field is one run, kept on the stack.
            whole = [(0, text)];
            let runs: &[(usize, &str)] = if text.is_empty() { &[] } else { &whole };
            (Vec::new(), Cow::Borrowed(runs), Some(text))
        }
        Err(_) => {
            let malformations: Vec<_> = utf8gate_codec::diagnose(bytes).collect();
            let runs = valid_runs(bytes, &malformations);
            (malformations, Cow::Owned(runs), None)
        }
    };
    let mut findings = utf8::findings(&malformations);
    let mut path_lookalike = None;
    for &(offset, text) in runs.iter() {
        let first = scan_characters(part, offset, text, at_body_start, options, &mut findings);
        path_lookalike = path_lookalike.or(first);
        // ASCII (most paths and headers) holds nothing that NFC changes and no non-starter.
        if !text.is_ascii() {
            nfc_findings(offset, text, options.max_nonstarters, &mut findings);
        }
    }
    let known = traversal::Known {
        text,
        path_lookalike,
    };
    traversal::scan_with(
        part,
        bytes,
        &malformations,
        options.lookalikes,
        known,
        &mut findings,
    );
    findings
}

/// The character checks of a valid run (at field offset `offset`) in one pass: the controls,
/// BOM and lookalike checks each flag a few byte values, and the bytes any of them flags are
/// visited once, in order, by each check that flags them. Returns the first lookalike with path
/// syntax in its image (for the traversal check).
#[inline(always)]
fn scan_characters(
    part: crate::location::Part,
    offset: usize,
    text: &str,
    at_body_start: bool,
    options: &CheckOptions,
    out: &mut Vec<RawFinding>,
) -> Option<(usize, char)> {
    let bytes = text.as_bytes();
    let text_content = part.is_text_content();
    let mut path_syntax = None;
    for_each_flagged(
        bytes,
        |b| controls::flags(b, text_content) | bom::flags(b) | lookalike::may_start(b),
        |at| {
            let b = bytes[at];
            if controls::flags(b, text_content) {
                controls::visit(part, offset, text, at, out);
            }
            if bom::flags(b) {
                bom::visit(offset, text, at, at_body_start, out);
            }
            if lookalike::may_start(b) {
                lookalike::visit(options.lookalikes, offset, text, at, out, &mut path_syntax);
            }
        },
    );
    path_syntax
}

#[inline(always)]
fn nfc_findings(offset: usize, text: &str, max_nonstarters: usize, out: &mut Vec<RawFinding>) {
    let (status, all_inert) = nfc::nfc_scan(text);
    if let nfc::NfcStatus::NotNfc { offset: first } = status {
        let end = text[first..]
            .char_indices()
            .nth(1)
            .map_or(text.len(), |(i, _)| first + i);
        out.push(RawFinding::new(
            FindingKind::NotNfc,
            offset + first,
            &text.as_bytes()[first..end],
            Fix::Normalize,
            None,
            "text is not in Normalization Form C".to_string(),
        ));
    }
    if all_inert && nfc::inert_text_is_stream_safe(text, max_nonstarters) {
        return;
    }
    if let Some((start, len, count)) = nfc::nonstarter_run_over(text, max_nonstarters) {
        out.push(RawFinding::new(
            FindingKind::ExcessiveCombining,
            offset + start,
            &text.as_bytes()[start..start + len],
            Fix::None,
            None,
            format!("{count} combining characters in a row (more than {max_nonstarters})"),
        ));
    }
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
        let findings = super::check_field_inlined(Part::Path, b"/a/../etc/passwd", false, &options);
        assert!(
            findings
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
            prop_assert_eq!(
                super::check_field_inlined(part, bytes, false, &options),
                super::check_any_field(part, bytes, false, &options)
            );
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
            let portable = super::check_field_inlined(part, &bytes, at_body_start, &options);
            if let Some(wide) = super::wide::check_field(part, &bytes, at_body_start, &options) {
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
            let flag = |b: u8| (b >= pivot) & (b % 3 == 0);
            let mut seen = Vec::new();
            super::for_each_flagged(&bytes, flag, |i| seen.push(i));
            let expected: Vec<usize> = (0..bytes.len()).filter(|&i| flag(bytes[i])).collect();
            prop_assert_eq!(seen, expected);
        }
    }
}
