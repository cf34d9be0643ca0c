//! Unicode's NormalizationTest.txt (Unicode 18, `tests/data/`) through the policy's
//! normalize path: a text body with each column, evaluated with NFC normalization on, comes out
//! as the column's NFC (c2 for c1..c3, c4 for c4 and c5), and already-NFC columns are allowed
//! untouched.

use std::collections::BTreeMap;

use utf8gate_policy::{Action, Decision, FindingKind, Profile, Request, Rule, evaluate};

fn columns(line: &str) -> Option<Vec<String>> {
    let data = line.split('#').next()?.trim();
    if data.is_empty() || data.starts_with('@') {
        return None;
    }
    let cols: Vec<String> = data
        .split(';')
        .take(5)
        .map(|col| {
            col.split_whitespace()
                .map(|hex| {
                    char::from_u32(u32::from_str_radix(hex, 16).expect("hex")).expect("scalar")
                })
                .collect()
        })
        .collect();
    (cols.len() == 5).then_some(cols)
}

#[test]
fn nfc_invariants_of_every_line_hold() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/NormalizationTest.txt"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut profile = Profile::lossy();
    profile.name = "nfc".into();
    profile.set(
        FindingKind::NotNfc,
        Rule {
            default: Action::Normalize,
            classes: BTreeMap::new(),
        },
    );
    let normalize = |s: &str| {
        let request = Request::new("POST", b"/")
            .header("Content-Type", b"text/plain")
            .body(s.as_bytes());
        let e = evaluate(&profile, &request);
        assert_ne!(
            e.verdict.decision,
            Decision::Reject,
            "{s:?}: {:?}",
            e.verdict.findings
        );
        (
            e.verdict.decision,
            e.sanitized.map_or_else(
                || s.to_string(),
                |r| String::from_utf8(r.body.to_vec()).expect("valid"),
            ),
        )
    };
    let mut lines = 0;
    for line in text.lines() {
        let Some(c) = columns(line) else { continue };
        lines += 1;
        for (i, expected) in [(0, &c[1]), (1, &c[1]), (2, &c[1]), (3, &c[3]), (4, &c[3])] {
            let (decision, got) = normalize(&c[i]);
            assert_eq!(&got, expected, "line {line:?}, column c{}", i + 1);
            assert_eq!(
                decision == Decision::Allow,
                c[i] == *expected,
                "line {line:?}, column c{}",
                i + 1
            );
        }
    }
    assert!(lines > 19_000, "only {lines} test lines read");
}
