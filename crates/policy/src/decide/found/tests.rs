use proptest::prelude::*;

use super::{Found, KindSet, Report};
use crate::checks::bytes::{Piece, pieces};
use crate::checks::{controls, utf8};
use crate::decide::found::Actions;
use crate::finding::{Action, FindingKind, Fix, RawFinding};
use crate::location::Part;

/// Reports the malformations and control characters of `bytes` into `out`.
fn report_all(bytes: &[u8], out: &mut impl super::Report) {
    for piece in pieces(bytes) {
        match piece {
            Piece::Malformed(m) => utf8::findings_of(&m, out),
            Piece::Run(offset, text) => controls::scan(Part::Body, offset, text, out),
        }
    }
}

#[test]
fn adjacent_findings_of_one_kind_are_one_run() {
    let bytes = [0x80u8; 1000];
    let mut found = Found::new(100, KindSet::ALL);
    report_all(&bytes, &mut found);
    assert_eq!(found.counts.get(FindingKind::UnexpectedContinuation), 1000);
    assert_eq!(found.detailed.len(), 1);
    assert_eq!(found.detailed[0].length, 1000);
    assert_eq!(found.detailed[0].run, 1000);
    assert!(
        found
            .malformed
            .contains(FindingKind::UnexpectedContinuation)
    );
    assert!(!found.dropped);
}

#[test]
fn past_the_room_nothing_is_built() {
    let mut built = 0;
    let mut found = Found::new(3, KindSet::default());
    for i in 0..1000 {
        // Not adjacent: every other byte.
        found.report(
            FindingKind::Nul,
            2 * i,
            1,
            Fix::Char(2 * i..2 * i + 1),
            || {
                built += 1;
                RawFinding::new(
                    FindingKind::Nul,
                    2 * i,
                    b"\0",
                    Fix::None,
                    None,
                    String::new(),
                )
            },
        );
    }
    assert_eq!(built, 3);
    assert_eq!(found.detailed.len(), 3);
    assert_eq!(found.counts.get(FindingKind::Nul), 1000);
    assert!(found.dropped);
    assert!(
        !found.spans.any_kind(|_| true),
        "no rewritable kind, no span"
    );
    assert!(found.fixable.contains(FindingKind::Nul));
}

#[test]
fn overlong_nuls_are_two_kinds_and_no_span() {
    let bytes = b"\xC0\x80".repeat(500);
    let mut found = Found::new(10, KindSet::ALL);
    report_all(&bytes, &mut found);
    assert!(found.malformed.contains(FindingKind::Overlong));
    assert!(found.malformed.contains(FindingKind::Nul));
    assert!(!found.spans.any_kind(|_| true));
    assert_eq!(found.counts.get(FindingKind::Overlong), 500);
    assert_eq!(found.counts.get(FindingKind::Nul), 500);
    assert_eq!(found.detailed.len(), 2, "two runs: {:?}", found.detailed);
}

/// The rewrite of every finding on its own, as fixes were applied before spans: the
/// reference the merged spans are held to.
fn reference(
    bytes: &[u8],
    findings: &[RawFinding],
    action: impl Fn(FindingKind) -> Action,
) -> Vec<u8> {
    let mut edits: Vec<(core::ops::Range<usize>, Vec<u8>)> = Vec::new();
    for f in findings {
        match (&f.fix, action(f.kind)) {
            (Fix::Malformed { range, .. }, Action::Replace) => edits.push((
                range.clone(),
                utf8gate_codec::to_lossy(&bytes[range.clone()])
                    .into_owned()
                    .into_bytes(),
            )),
            (Fix::Malformed { range, .. } | Fix::Char(range), Action::Strip) => {
                edits.push((range.clone(), Vec::new()))
            }
            (
                Fix::Malformed {
                    range,
                    repair_to: Some(c),
                },
                Action::Repair,
            ) => edits.push((range.clone(), c.to_string().into_bytes())),
            (Fix::Char(range), Action::Replace) => {
                edits.push((range.clone(), "\u{FFFD}".as_bytes().to_vec()))
            }
            _ => {}
        }
    }
    edits.sort_by(|a, b| a.0.start.cmp(&b.0.start).then(b.0.end.cmp(&a.0.end)));
    let mut out = Vec::new();
    let mut at = 0;
    for (range, replacement) in edits {
        if range.start < at {
            continue;
        }
        out.extend_from_slice(&bytes[at..range.start]);
        out.extend_from_slice(&replacement);
        at = range.end;
    }
    out.extend_from_slice(&bytes[at..]);
    out
}

fn hostile_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"\xC0\xAE".to_vec()),
        Just(b"\xC0\x80".to_vec()),
        Just(b"\x80".to_vec()),
        Just(b"\xED\xA0\xBD\xED\xB8\x80".to_vec()),
        Just(b"\xED\xA0\x80".to_vec()),
        Just(b"\xF8\x88\x80\x80\x80".to_vec()),
        Just(b"\xE2\x82".to_vec()),
        Just(b"\0".to_vec()),
        Just("\u{202E}\u{1}".as_bytes().to_vec()),
        Just(b"a".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..4),
    ];
    proptest::collection::vec(piece, 0..60).prop_map(|p| p.concat())
}

proptest! {
    /// Merged spans rewrite exactly as every finding's own fix did, under every action.
    #[test]
    fn merged_spans_rewrite_as_each_fix_did(
        bytes in hostile_bytes(),
        malformed in prop::sample::select(vec![Action::Replace, Action::Strip, Action::Repair, Action::Log]),
        chars in prop::sample::select(vec![Action::Replace, Action::Strip, Action::Log]),
        nul in prop::sample::select(vec![Action::Replace, Action::Strip, Action::Log]),
    ) {
        let action = |k: FindingKind| match k {
            FindingKind::Nul => nul,
            k if k.is_malformed_utf8() => malformed,
            _ => chars,
        };
        let mut all = Vec::new();
        report_all(&bytes, &mut all);
        let mut found = Found::new(5, KindSet::ALL);
        report_all(&bytes, &mut found);
        let mut actions = Actions::default();
        for (k, _) in found.counts.iter() {
            actions.set(k, action(k));
        }
        let (rewritten, _) = crate::rewrite::apply(&bytes, &found, &actions, bytes.len());
        prop_assert_eq!(rewritten, reference(&bytes, &all, action));
        let total: u64 = found.counts.iter().map(|(_, n)| n).sum();
        prop_assert_eq!(total as usize, all.len());
    }
}
